#include "krylov.h"

#include <tamsi/contact_problem.h>

#include <algorithm>
#include <unsupported/Eigen/IterativeSolvers>

namespace tamsi::internal {
namespace {

/// Eigen-style preconditioner that applies a kept factorization: P⁻¹b = A_old⁻¹ b.
class FactorizationPreconditioner {
 public:
  using Scalar = double;
  using RealScalar = double;
  using StorageIndex = int;
  FactorizationPreconditioner() = default;
  template <typename MatrixType>
  FactorizationPreconditioner& analyzePattern(const MatrixType&) {
    return *this;
  }
  template <typename MatrixType>
  FactorizationPreconditioner& factorize(const MatrixType&) {
    return *this;
  }
  template <typename MatrixType>
  FactorizationPreconditioner& compute(const MatrixType&) {
    return *this;
  }
  Eigen::ComputationInfo info() const { return Eigen::Success; }
  void set_factorization(LinearSolver* factorization) { factorization_ = factorization; }
  Eigen::VectorXd solve(const Eigen::VectorXd& b) const {
    Eigen::VectorXd x;
    factorization_->Solve(b, &x, nullptr);
    return x;
  }

 private:
  LinearSolver* factorization_{nullptr};
};

}  // namespace

bool SolveWithKrylov(const CscView& A, LinearSolver& factorization, int max_iterations, double tolerance,
                     const Eigen::VectorXd& b, Eigen::VectorXd* x, int* iterations) {
  const Eigen::Map<const SparseMatrix> matrix(A.n, A.n, A.col_ptr[A.n], A.col_ptr, A.row_index, A.values);
  Eigen::GMRES<SparseMatrix, FactorizationPreconditioner> gmres;
  gmres.setMaxIterations(max_iterations);
  gmres.set_restart(max_iterations);
  gmres.setTolerance(tolerance);
  gmres.compute(matrix);
  gmres.preconditioner().set_factorization(&factorization);
  *x = gmres.solve(b);
  *iterations = std::max(1, static_cast<int>(gmres.iterations()));
  return gmres.info() == Eigen::Success && x->allFinite();
}

}  // namespace tamsi::internal
