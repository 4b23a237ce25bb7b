#pragma once
/// @file
/// Internal: right-preconditioned GMRES, for Options::newton_solve (kReuseFactorization, kSymmetricPreconditioner).

#include <tamsi/kernels/parallel.h>

#include <Eigen/Core>
#include <functional>
#include <vector>

#include "linear_solver.h"

namespace tamsi::internal {

/// z = P⁻¹ r for a preconditioner P close to A; false when it fails.
using Preconditioner = std::function<bool(const Eigen::VectorXd& r, Eigen::VectorXd* z)>;

/// GMRES on A x = b from x = 0, right-preconditioned, without restarts, classical Gram–Schmidt with one
/// reorthogonalization (CGS2: as stable as modified Gram–Schmidt, and two block products per iteration instead of k
/// dependent dot products). Products with A run by row groups and every reduction sums fixed chunks of rows in a
/// fixed order, in parallel over the thread budget: x is bitwise identical for any thread count. Keeps its basis and
/// the pattern's row groups: solves of one pattern, size and budget after the first allocate nothing.
class Gmres {
 public:
  /// The block rows of A's pattern (compressed columns, symmetric pattern, sorted rows), so that y = A x runs by
  /// blocks of rows: runs of consecutive rows with one pattern (a free body's 6 velocities; at most kMaxGroupRows),
  /// each row's pattern cut into runs of consecutive columns, and each run's dense block stored contiguously, with the
  /// place of each of its entries in the values Solve reads (A.slot(p): A's own, or a larger matrix's through
  /// A.value_index). Kept while the pattern holds. A.values is not read.
  void Analyze(const CscView& A);
  /// True when the true residual ‖b − A x‖ ≤ tolerance ‖b‖ was met within `max_iterations` (right preconditioning
  /// makes the monitored residual the true one). `values`: the array the analysis's slots point into (A's values,
  /// or the larger matrix's). `iterations`: products with A done (≥ 1 unless b = 0).
  bool Solve(const kernels::ThreadBudget& budget, const double* values, const Preconditioner& precondition,
             int max_iterations, double tolerance, const Eigen::VectorXd& b, Eigen::VectorXd* x, int* iterations);

 private:
  void Multiply(const kernels::ThreadBudget& budget, const Eigen::VectorXd& x, Eigen::VectorXd* y);
  /// w orthogonalized twice against V, the first k basis vectors (CGS2): h[0, k) = h1 + h2 with h1 = Vᵀ w,
  /// w ← w − V h1, h2 = Vᵀ w, w ← w − V h2, in three passes over V (each update fused with the next reduction over
  /// the same rows). Returns ‖w‖. h has at least k entries.
  double Orthogonalize(const kernels::ThreadBudget& budget, int k, Eigen::VectorXd* h);
  double Norm(const kernels::ThreadBudget& budget, const Eigen::VectorXd& x);
  /// Sizes the workspaces for a budget of m iterations, unless they hold a larger one for this n: a solve within a
  /// smaller budget (a first try on a kept factorization) allocates nothing.
  void ReserveWorkspaces(int m);

  /// Rows [first_row, first_row + rows) share one pattern, cut into the column runs [run_begin, run_end).
  struct RowGroup {
    int first_row, rows, run_begin, run_end;
  };
  /// Columns [first_column, first_column + columns) of a row group, whose rows × columns block of A lies at
  /// block_values_[offset], column-major.
  struct ColumnRun {
    int first_column, columns, offset;
  };
  static constexpr int kMaxGroupRows = 8;
  std::vector<RowGroup> groups_;
  std::vector<ColumnRun> runs_;
  int n_{0};                          // A's order
  std::vector<double> block_values_;  // A's values by row groups and column runs (one gather per solve)
  // The gather, as copies of consecutive values: block_values_[gather_ptr_[q] + t] = values[gather_source_[q] + t]
  // for t < gather_ptr_[q + 1] − gather_ptr_[q], `values` as Solve reads them.
  std::vector<int> gather_ptr_, gather_source_;
  // Sized for the largest budget m so far (ReserveWorkspaces); a solve uses the first columns and entries.
  Eigen::MatrixXd basis_;           // n × (m + 1): the orthonormal Krylov vectors
  Eigen::MatrixXd preconditioned_;  // n × m: P⁻¹ applied to each, so that x = P⁻¹ V y needs no further application
  Eigen::MatrixXd hessenberg_;      // (m + 1) × m, reduced to upper triangular by the Givens rotations
  Eigen::MatrixXd partial_;         // (m + 1) × chunks: per-chunk partial products
  Eigen::VectorXd cosines_, sines_, g_, y_, h_, h2_, v_, w_, z_;
};

}  // namespace tamsi::internal
