#include "dense_lu.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace tamsi::internal {
namespace {
constexpr double kPivotThreshold = 0.1;
}  // namespace

// Plain loops over the columns' storage: at these sizes Eigen's dynamic-size column expressions cost more in setup
// than in arithmetic.
bool DenseLu::Factor(Eigen::MatrixXd* A) {
  const int n = static_cast<int>(A->rows());
  double* a = A->data();
  pivots_.resize(n);
  rows_.resize(n);
  row_scale_.resize(n);
  for (int i = 0; i < n; ++i) {
    const double diagonal = std::abs(a[static_cast<size_t>(i) * n + i]);
    row_scale_[i] = diagonal > 0.0 && std::isfinite(diagonal) ? 1.0 / std::sqrt(diagonal) : 1.0;
  }
  smallest_ = n > 0 ? INFINITY : 0.0;
  largest_ = 0.0;
  for (int k = 0; k < n; ++k) {
    double* column_k = a + static_cast<size_t>(k) * n;
    // Scaled threshold pivoting: rows compared by |a_ik| / √|a_ii| (the island's velocities come in mixed units, m/s
    // and rad/s), and the diagonal kept unless it is below kPivotThreshold times the column's largest, so that rows
    // keep their zero blocks.
    int p = k;
    double best_scaled = std::abs(column_k[k]) * row_scale_[k];
    const double diagonal_scaled = best_scaled;
    for (int i = k + 1; i < n; ++i)
      if (std::abs(column_k[i]) * row_scale_[i] > best_scaled) best_scaled = std::abs(column_k[p = i]) * row_scale_[i];
    if (diagonal_scaled >= kPivotThreshold * best_scaled) p = k;
    const double best = std::abs(column_k[p]);
    pivots_[k] = p;
    if (p != k) {
      for (int j = 0; j < n; ++j) std::swap(a[static_cast<size_t>(j) * n + k], a[static_cast<size_t>(j) * n + p]);
      std::swap(row_scale_[k], row_scale_[p]);
    }
    smallest_ = std::min(smallest_, best);
    largest_ = std::max(largest_, best);
    if (!(best > 0.0) || !std::isfinite(best)) return false;
    // Column k below the pivot becomes L's multipliers; the trailing block takes their rank-one update, restricted to
    // the rows and columns where it is not zero (the island's bodies couple only through their contacts).
    const double inverse = 1.0 / column_k[k];
    int num_rows = 0;
    for (int i = k + 1; i < n; ++i)
      if (column_k[i] != 0.0) {
        column_k[i] *= inverse;
        rows_[num_rows++] = i;
      }
    if (num_rows == 0) continue;
    const int m = n - k - 1;
    const double* multipliers = column_k + k + 1;
    for (int j = k + 1; j < n; ++j) {
      double* column_j = a + static_cast<size_t>(j) * n;
      const double u = column_j[k];
      if (u == 0.0) continue;
      if (2 * num_rows > m) {
        for (int i = 0; i < m; ++i) column_j[k + 1 + i] -= multipliers[i] * u;
      } else {
        for (int r = 0; r < num_rows; ++r) column_j[rows_[r]] -= column_k[rows_[r]] * u;
      }
    }
  }
  return smallest_ > kSingularPivotRatio * largest_;
}

void DenseLu::SolveInPlace(const Eigen::MatrixXd& factors, Eigen::VectorXd* b) const {
  const int n = static_cast<int>(factors.rows());
  const double* a = factors.data();
  double* x = b->data();
  for (int k = 0; k < n; ++k) std::swap(x[k], x[pivots_[k]]);
  for (int j = 0; j < n; ++j) {
    const double xj = x[j];
    if (xj == 0.0) continue;
    const double* column = a + static_cast<size_t>(j) * n;
    for (int i = j + 1; i < n; ++i) x[i] -= column[i] * xj;
  }
  for (int j = n - 1; j >= 0; --j) {
    const double* column = a + static_cast<size_t>(j) * n;
    x[j] /= column[j];
    const double xj = x[j];
    if (xj == 0.0) continue;
    for (int i = 0; i < j; ++i) x[i] -= column[i] * xj;
  }
}

}  // namespace tamsi::internal
