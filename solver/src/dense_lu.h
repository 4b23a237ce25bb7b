#pragma once
/// @file
/// Internal: LU factorization with partial pivoting of a small dense matrix, in place (LAPACK's getrf layout), for
/// the Newton systems of small islands. Unblocked and right-looking, each rank-one update restricted to the nonzero
/// rows and columns: an island's bodies couple only through their contacts (a hand's fingers through the object they
/// hold), so its matrix is mostly zero blocks and their zeros mostly stay zero.

#include <Eigen/Core>
#include <vector>

namespace tamsi::internal {

/// P A = L U of a square matrix, stored in place of A (U on and above the diagonal, L's unit-diagonal multipliers
/// below it); pivots()[k] is the row swapped with row k at step k.
class DenseLu {
 public:
  /// Factors `A` (n × n, overwritten by the factors). Returns false if a pivot is zero or not finite (the
  /// factorization stops there) or the smallest pivot magnitude is below 1e-14 times the largest (singular to working
  /// precision); smallest_pivot() and largest_pivot() are the magnitudes met so far.
  bool Factor(Eigen::MatrixXd* A);
  /// b ← A⁻¹ b with the last factors; b: n.
  void SolveInPlace(const Eigen::MatrixXd& factors, Eigen::VectorXd* b) const;
  double smallest_pivot() const { return smallest_; }
  double largest_pivot() const { return largest_; }

 private:
  std::vector<int> pivots_;
  std::vector<int> rows_;  // the nonzero rows below the pivot of the current column
  double smallest_{0.0}, largest_{0.0};
};

}  // namespace tamsi::internal
