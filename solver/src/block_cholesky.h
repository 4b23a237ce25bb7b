#pragma once
/// @file
/// Internal: a sparse Cholesky factorization whose unit is a block of consecutive columns with one pattern (a
/// body's velocities), for the symmetric preconditioner's S and the many small SPD blocks of the Schwarz
/// preconditioner.

#include <tamsi/kernels/thread_budget.h>

#include <memory>

#include "linear_solver.h"

namespace tamsi::internal {

/// Block sparse Cholesky LLᵀ of an SPD matrix (both triangles stored). Consecutive columns with the same row
/// pattern form one block (a free body's 6 velocities); the blocks are ordered by AMD on the block graph, chains of
/// the block elimination tree are merged into relaxed supernodes of up to 64 columns, and each is factored after its
/// descendants, whose updates it pulls (left-looking), its panel holding its dense diagonal block and the dense blocks
/// below it, column-major, so that updates are dense products of rank the supernode's width: the diagonal block by
/// Eigen's LLT, the solves below it by a triangular solve (the BLAS's dtrsm, Eigen's in float), the updates by
/// PanelProduct (tamsi's AVX2 kernel, or the BLAS's gemm: on a CPU without AVX2, or where OpenBLAS runs its AVX-512
/// kernels). Measured against SuiteSparse's scalar
/// LDLᵀ and CHOLMOD in bench/README.md, "Big islands". No allocation after Analyze (but for kSingle's first fall back
/// to double); Factor fails on a diagonal block that is not positive definite. Factor reads A's values through the
/// value index that Analyze saw (CscView::value_index, composed into its scatter of the lower triangle at Analyze).
///
/// Precisions:
/// - kDouble: L in double, triangular solves on it: exact to rounding, as a direct solver.
/// - kSingle: L in float, triangular solves on it: a preconditioner's accuracy (a relative error of ~1e-6 on
///   well-conditioned blocks) for about half the factorization's and the solves' time and memory traffic (the
///   settled N = 500 pile's island: numeric factorizations −20 to −45 %, solves −25 %, the same GMRES iterations;
///   bench/README.md). Where float meets a pivot that is not positive, the matrix is factored again in double.
/// - kSingleInverted: L in double, then a float copy of the panels in partitioned-inverse form, [L11⁻¹; −L21 L11⁻¹]
///   per supernode, so that each supernode's solve is one dense product (the inversion adds 10–30 % to a
///   factorization, repaid when each factorization serves many solves, as in the Schwarz subdomains).
enum class CholeskyPrecision { kDouble, kSingle, kSingleInverted };

/// The block Cholesky's LinearSolver, whose factorization can also run on a thread budget.
class BlockCholeskySolver : public LinearSolver {
 public:
  using LinearSolver::Factor;
  /// Factor on `budget`'s threads: supernodes of independent subtrees of the elimination tree in parallel, and
  /// those above them each after its children, by row chunks in parallel; each supernode pulls the updates of its
  /// descendants in their order (left-looking). L, the solves and a failure's message are bitwise those of
  /// Factor(A, message) on one thread.
  virtual bool Factor(const kernels::ThreadBudget& budget, const CscView& A, std::string* message) = 0;
  using LinearSolver::Solve;
  /// Solve on `budget`'s threads: the forward solve by the factorization's tasks, each after its children (the
  /// subtrees in parallel; a supernode above them pulls what its descendants' products left for its rows, in their
  /// order, where one thread subtracts each product at once), the backward solve by the same tasks from the root
  /// down. x is bitwise that of Solve(b, x, message) on one thread. The inverted panels (kSingleInverted) solve on one
  /// thread.
  virtual bool Solve(const kernels::ThreadBudget& budget, const Eigen::VectorXd& b, Eigen::VectorXd* x,
                     std::string* message) = 0;
  /// x[0, n) = A⁻¹ b with b_j = r[rows[j]], on one thread: a restriction of a longer vector solved without copying
  /// it out first (the Schwarz subdomains, whose solves the restriction and the write to x bracket). Bitwise what
  /// Solve gives for the gathered b.
  virtual void SolveGathered(const Eigen::VectorXd& r, const int* rows, double* x) = 0;
};
std::unique_ptr<BlockCholeskySolver> MakeBlockCholeskySolver(CholeskyPrecision precision);

/// The flops of the block Cholesky of S (its pattern), from AMD's counts on the graph of S's blocks (the same blocks
/// and order as Analyze), each a block operation of the mean block size s = n / blocks: s³ (2 · multiply–subtract
/// pairs + blocks below the diagonal + blocks / 3). A chain of k blocks: s³ (3 (k − 1) + k / 3). Within 3 % of the
/// supernodal factorization's own count on the settled piles (N = 500: 2.74e7 against 2.80e7; N = 1,000: 1.34e8
/// against 1.35e8). ∞ when AMD fails.
double EstimateCholeskyFlops(const CscView& S);

}  // namespace tamsi::internal
