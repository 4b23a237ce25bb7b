#pragma once
/// @file
/// Internal: the Cholesky factorization of the mass matrix M by the connected components of its pattern (one per
/// kinematic tree: 6 velocities for a free body, a robot's dofs for a robot). It proves M positive definite, which
/// ContactProblem requires and Validate's O(nnz) checks cannot see, and gives the free motion v* = M⁻¹ p*.

#include <tamsi/contact_problem.h>

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "islands.h"
#include "linear_solver.h"

namespace tamsi::internal {

class MassFactorization {
 public:
  /// Components of at most this many velocities are factored densely in place, without allocating; an M with a
  /// larger one is factored whole by CHOLMOD (which allocates inside its own calls).
  static constexpr int kDenseLimit = 256;

  /// Finds the components of M's pattern (n × n, both triangles stored) and plans their storage (allocates). Keep it
  /// while M's pattern holds. False with a message when CHOLMOD's analysis fails.
  bool Analyze(const SparseMatrix& M, int num_threads, std::string* message);
  /// Factors M's values (the analysed pattern). False with a message naming the first velocity at which M is not
  /// positive definite.
  bool Factor(const SparseMatrix& M, std::string* message);
  /// x = M⁻¹ b (n) with the last factorization.
  bool Solve(const Eigen::VectorXd& b, Eigen::VectorXd* x, std::string* message);

 private:
  Components components_;       // of M's pattern
  std::vector<int> block_ptr_;  // component k's dense n_k × n_k block at blocks_[block_ptr_[k]]
  std::vector<double> blocks_;
  Eigen::VectorXd gathered_;
  std::unique_ptr<LinearSolver> sparse_;  // CHOLMOD, when a component passes kDenseLimit
};

}  // namespace tamsi::internal
