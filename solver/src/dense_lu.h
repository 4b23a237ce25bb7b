#pragma once
/// @file
/// Internal: LU factorization with row pivoting of a small dense matrix, in place (LAPACK's getrf layout), for the
/// Newton systems of small islands. Unblocked and right-looking, each rank-one update restricted to the nonzero
/// rows and columns: an island's bodies couple only through their contacts (a hand's fingers through the object they
/// hold), so its matrix is mostly zero blocks and their zeros mostly stay zero.

#include <Eigen/Core>
#include <vector>

namespace tamsi::internal {

/// A dense factorization is singular to working precision when its smallest pivot magnitude is not above this times
/// its largest (DenseLu's and the dense backend's LDLᵀ test alike).
constexpr double kSingularPivotRatio = 1e-14;

/// P A = L U of a square matrix, stored in place of A (U on and above the diagonal, L's unit-diagonal multipliers
/// below it). Rows are pivoted by scaled threshold pivoting: at step k, each candidate row i is weighed by |a_ik| /
/// √|a_ii| (its original diagonal), and the diagonal row is kept while its weight is at least 0.1 times the largest.
/// The scaling makes the test independent of the velocities' units; the threshold keeps rows in place, and with them
/// the zero blocks of an island's matrix, as sparse LU codes prefer their diagonals.
class DenseLu {
 public:
  /// Factors `A` (n × n, overwritten by the factors). Returns false if a pivot is zero or not finite (the
  /// factorization stops there) or the smallest pivot magnitude is below kSingularPivotRatio times the largest
  /// (singular to working precision); smallest_pivot() and largest_pivot() are the magnitudes met so far.
  bool Factor(Eigen::MatrixXd* A);
  /// b ← A⁻¹ b with the last factors; b: n.
  void SolveInPlace(const Eigen::MatrixXd& factors, Eigen::VectorXd* b) const;
  /// pivots()[k]: the row swapped with row k at step k of the last factorization (k itself where none was).
  const std::vector<int>& pivots() const { return pivots_; }
  double smallest_pivot() const { return smallest_; }
  double largest_pivot() const { return largest_; }

 private:
  std::vector<int> pivots_;
  std::vector<int> rows_;          // the nonzero rows below the pivot of the current column
  std::vector<double> row_scale_;  // 1/√|a_ii| of each row's original diagonal, following the row swaps
  double smallest_{0.0}, largest_{0.0};
};

}  // namespace tamsi::internal
