#pragma once
/// @file
/// Internal: preconditioned GMRES, for Options::newton_solve (kReuseFactorization, kSymmetricPreconditioner).

#include <Eigen/Core>

#include "linear_solver.h"

namespace tamsi::internal {

/// The Krylov basis and the least-squares problem of SolveWithKrylov, kept by the caller: solves of one size and
/// iteration budget after the first allocate nothing.
struct KrylovWorkspace {
  Eigen::MatrixXd basis;       // n × (m + 1): the orthonormal Krylov vectors
  Eigen::MatrixXd hessenberg;  // (m + 1) × m, reduced to upper triangular by the Givens rotations
  Eigen::VectorXd cosines, sines, g, y, v, w, z;
};

/// Solves A x = b by GMRES, right-preconditioned by `factorization` (a numeric factorization of a matrix close to A:
/// an earlier matrix of A's pattern, or A's symmetric part), from x = 0, without restarts within `max_iterations`,
/// modified Gram–Schmidt. True when the true residual ‖b − A x‖ ≤ tolerance ‖b‖ was met (right preconditioning
/// makes the monitored residual the true one). `iterations`: matrix–vector products done (≥ 1).
bool SolveWithKrylov(const CscView& A, LinearSolver& factorization, int max_iterations, double tolerance,
                     const Eigen::VectorXd& b, Eigen::VectorXd* x, int* iterations, KrylovWorkspace* workspace);

}  // namespace tamsi::internal
