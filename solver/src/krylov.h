#pragma once
/// @file
/// Internal: preconditioned GMRES, for Options::newton_solve (kReuseFactorization, kSymmetricPreconditioner).

#include <Eigen/Core>

#include "linear_solver.h"

namespace tamsi::internal {

/// Solves A x = b by GMRES (Eigen's, unrestarted within `max_iterations`) preconditioned by `factorization`, a
/// numeric factorization of a matrix close to A (an earlier matrix of A's pattern, or A's symmetric part). True when
/// ‖b − A x‖ ≤ tolerance ‖b‖ was met.
bool SolveWithKrylov(const CscView& A, LinearSolver& factorization, int max_iterations, double tolerance,
                     const Eigen::VectorXd& b, Eigen::VectorXd* x, int* iterations);

}  // namespace tamsi::internal
