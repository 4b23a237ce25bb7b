#include "dense_lu.h"

#include <algorithm>
#include <cmath>

namespace tamsi::internal {

bool DenseLu::Factor(Eigen::MatrixXd* A) {
  Eigen::MatrixXd& a = *A;
  const int n = static_cast<int>(a.rows());
  pivots_.resize(n);
  rows_.resize(n);
  smallest_ = n > 0 ? INFINITY : 0.0;
  largest_ = 0.0;
  for (int k = 0; k < n; ++k) {
    double* column_k = a.data() + static_cast<size_t>(k) * n;
    int p = k;
    double best = std::abs(column_k[k]);
    for (int i = k + 1; i < n; ++i)
      if (std::abs(column_k[i]) > best) best = std::abs(column_k[p = i]);
    pivots_[k] = p;
    if (p != k) a.row(k).swap(a.row(p));
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
    const int m = n - k - 1;
    const bool dense = 2 * num_rows > m;
    for (int j = k + 1; j < n && num_rows > 0; ++j) {
      double* column_j = a.data() + static_cast<size_t>(j) * n;
      const double u = column_j[k];
      if (u == 0.0) continue;
      if (dense) {
        a.col(j).tail(m) -= u * a.col(k).tail(m);
      } else {
        for (int r = 0; r < num_rows; ++r) column_j[rows_[r]] -= column_k[rows_[r]] * u;
      }
    }
  }
  return smallest_ > 1e-14 * largest_;
}

void DenseLu::SolveInPlace(const Eigen::MatrixXd& factors, Eigen::VectorXd* b) const {
  Eigen::VectorXd& x = *b;
  const int n = static_cast<int>(factors.rows());
  for (int k = 0; k < n; ++k) std::swap(x[k], x[pivots_[k]]);
  for (int j = 0; j < n; ++j)
    if (x[j] != 0.0) x.tail(n - j - 1) -= x[j] * factors.col(j).tail(n - j - 1);
  for (int j = n - 1; j >= 0; --j) {
    x[j] /= factors(j, j);
    if (x[j] != 0.0) x.head(j) -= x[j] * factors.col(j).head(j);
  }
}

}  // namespace tamsi::internal
