#include "krylov.h"

#include <cmath>

namespace tamsi::internal {
namespace {

/// y = A x for A in compressed columns.
void Multiply(const CscView& A, const Eigen::VectorXd& x, Eigen::VectorXd* y) {
  y->setZero(A.n);
  for (int j = 0; j < A.n; ++j)
    for (int p = A.col_ptr[j]; p < A.col_ptr[j + 1]; ++p) (*y)[A.row_index[p]] += A.values[p] * x[j];
}

}  // namespace

bool SolveWithKrylov(const CscView& A, LinearSolver& factorization, int max_iterations, double tolerance,
                     const Eigen::VectorXd& b, Eigen::VectorXd* x, int* iterations, KrylovWorkspace* ws) {
  const int n = A.n;
  const int m = max_iterations;
  ws->basis.resize(n, m + 1);
  ws->hessenberg.resize(m + 1, m);
  ws->cosines.resize(m);
  ws->sines.resize(m);
  ws->g.setZero(m + 1);
  x->setZero(n);
  *iterations = 0;
  const double beta = b.norm();
  if (!(beta > 0.0)) return std::isfinite(beta);
  ws->basis.col(0) = b / beta;
  ws->g[0] = beta;
  int k = 0;  // Krylov dimension reached
  bool converged = false;
  while (k < m && !converged) {
    // w = A P⁻¹ vₖ, orthogonalized against v₀ … vₖ.
    ws->v = ws->basis.col(k);
    if (!factorization.Solve(ws->v, &ws->z, nullptr)) return false;
    Multiply(A, ws->z, &ws->w);
    for (int i = 0; i <= k; ++i) {
      ws->hessenberg(i, k) = ws->w.dot(ws->basis.col(i));
      ws->w -= ws->hessenberg(i, k) * ws->basis.col(i);
    }
    const double norm = ws->w.norm();
    ws->hessenberg(k + 1, k) = norm;
    if (norm > 0.0) ws->basis.col(k + 1) = ws->w / norm;
    // Previous rotations on the new column, then the rotation that zeroes its subdiagonal entry.
    for (int i = 0; i < k; ++i) {
      const double a = ws->hessenberg(i, k), c = ws->hessenberg(i + 1, k);
      ws->hessenberg(i, k) = ws->cosines[i] * a + ws->sines[i] * c;
      ws->hessenberg(i + 1, k) = -ws->sines[i] * a + ws->cosines[i] * c;
    }
    const double a = ws->hessenberg(k, k), c = ws->hessenberg(k + 1, k);
    const double r = std::hypot(a, c);
    ws->cosines[k] = r > 0.0 ? a / r : 1.0;
    ws->sines[k] = r > 0.0 ? c / r : 0.0;
    ws->hessenberg(k, k) = r;
    ws->hessenberg(k + 1, k) = 0.0;
    ws->g[k + 1] = -ws->sines[k] * ws->g[k];
    ws->g[k] *= ws->cosines[k];
    ++k;
    // |g_k| is the residual norm of the least-squares solution; a zero subdiagonal means the solution is exact.
    converged = std::abs(ws->g[k]) <= tolerance * beta || norm == 0.0;
  }
  *iterations = k;
  // y = R⁻¹ g (back substitution), x = P⁻¹ V y.
  ws->y.resize(m);
  for (int i = k - 1; i >= 0; --i) {
    double sum = ws->g[i];
    for (int j = i + 1; j < k; ++j) sum -= ws->hessenberg(i, j) * ws->y[j];
    ws->y[i] = sum / ws->hessenberg(i, i);
  }
  ws->w.noalias() = ws->basis.leftCols(k) * ws->y.head(k);
  if (!factorization.Solve(ws->w, x, nullptr)) return false;
  return converged && x->allFinite();
}

}  // namespace tamsi::internal
