#pragma once
/// @file
/// Internal: one-level additive overlapping Schwarz for the Newton systems of large islands.

#include <tamsi/kernels/parallel.h>

#include <Eigen/Core>
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "block_cholesky.h"
#include "linear_solver.h"
#include "subdomains.h"

namespace tamsi::internal {

/// The bodies per part for an island of `num_bodies` bodies: Options::schwarz_part_bodies, or at most
/// ⌈num_bodies / kMinSubdomains⌉ (at least one), so that a smaller island still has about 16 parts for 16 cores.
/// Depends on the island alone, never on the thread count. On the dumped pile steps (bench/README.md, "Big islands"),
/// 256 bodies per part give the fewest GMRES iterations for their cost at N = 10,000, and ~60 the fastest steps at N =
/// 1,000.
constexpr int kMinSubdomains = 16;
inline int SchwarzPartBodies(int part_bodies, int num_bodies) {
  return std::max(1, std::min(part_bodies, (num_bodies + kMinSubdomains - 1) / kMinSubdomains));
}

/// z = Σ_d R_dᵀ S_d⁻¹ R_d r: R_d restricts to subdomain d's velocities (FindSubdomains: parts of SchwarzPartBodies
/// bodies with one layer of overlap), and S_d = R_d S R_dᵀ, the subdomain's block of the symmetric part
/// S = M + h(W_nn + W_tt) of the Newton matrix, is factored by a block sparse Cholesky (MakeBlockCholeskySolver, solves
/// in single precision). It approximates S⁻¹ (SPD, like S) at a cost linear in the island's size, without factoring the
/// whole island. Additive rather than restricted (each velocity taken from the subdomain that owns it): on dumped pile
/// steps the restricted variant needed 2–4× the GMRES iterations (bench/README.md, "Big islands"). Analyses,
/// factorizations and solves run in parallel over the thread budget, one subdomain per task; each z entry sums its
/// subdomains' values in subdomain order, so z is bitwise identical for any thread count.
class SchwarzPreconditioner {
 public:
  /// The subdomains of the n × n pattern `A` and the symbolic analyses of their blocks, kept while the pattern
  /// holds. `body` (n): each velocity's body in [0, num_bodies); `part_bodies`: bodies per part (FindSubdomains).
  bool Analyze(const kernels::ThreadBudget& budget, const CscView& A, const std::vector<int>& body, int num_bodies,
               int part_bodies, std::string* message);
  /// Numeric factorizations of the subdomain blocks of `S` (on the analyzed pattern) that changed since their last
  /// one: a block is factored again when it has none, or when some entry moved by more than `refactor_tolerance` ×
  /// √(S_ii S_jj) of the factored values (Options::schwarz_refactor_tolerance). The choice depends on the
  /// values alone, never on the thread count. *factored: the blocks factored now. False, naming the subdomain, when
  /// one is not positive definite.
  bool Factor(const kernels::ThreadBudget& budget, const CscView& S, double refactor_tolerance, int* factored,
              std::string* message);
  /// z = Σ_d R_dᵀ S_d⁻¹ R_d r with the last factorizations; each subdomain's solve reads its rows of r in place and
  /// writes its own segment of the copies' values. False when some block has no factorization.
  bool Apply(const kernels::ThreadBudget& budget, const Eigen::VectorXd& r, Eigen::VectorXd* z);

  int num_subdomains() const { return subdomains_.count; }
  const Subdomains& subdomains() const { return subdomains_; }

 private:
  /// S_d in compressed columns (local indices) with each entry's index in S's values and each column's diagonal
  /// entry, the values of its last factorization and that factorization (`ok`: it succeeded).
  struct Block {
    std::vector<int> col_ptr, row_index, source, diagonal;
    Eigen::VectorXd values;
    std::unique_ptr<BlockCholeskySolver> factorization;
    bool ok{false}, factored{false};
    std::string message;
  };
  /// True when some entry of S_d differs from the factored values by more than tolerance × √(S_ii S_jj).
  static bool Changed(const Block& b, const CscView& S, double tolerance);
  /// The first failed block's message, prefixed with its subdomain; false when any block failed.
  bool CollectStatus(const char* what, std::string* message) const;

  Subdomains subdomains_;
  std::vector<Block> blocks_;
  /// Velocity → the entries of subdomains_.velocities that hold it (in subdomain order); and every subdomain's
  /// S_d⁻¹ R_d r at its entries.
  Groups copies_;
  Eigen::VectorXd local_solutions_;
};

}  // namespace tamsi::internal
