#pragma once
/// @file
/// Internal: GMRES on a kept factorization, for Options::reuse_factorization.

#include <Eigen/Core>

#include "linear_solver.h"

namespace tamsi::internal {

/// Relative residual GMRES must reach; tight enough that Newton sees the exact step.
constexpr double kKrylovTolerance = 1e-10;

/// Solves A x = b by GMRES (Eigen's, unrestarted within `max_iterations`) preconditioned by `factorization`, the
/// factorization of an earlier matrix of A's pattern. True when the relative residual met kKrylovTolerance.
bool SolveWithKrylov(const CscView& A, LinearSolver& factorization, int max_iterations, const Eigen::VectorXd& b,
                     Eigen::VectorXd* x, int* iterations);

}  // namespace tamsi::internal
