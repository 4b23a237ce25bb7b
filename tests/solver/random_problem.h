#pragma once
// Test fixture: a seeded random ContactProblem with coupled contacts (each contact row touches a few random
// velocities), SPD mass matrix, and contacts in a mix of stiction and sliding.

#include <tamsi/contact_problem.h>

#include <Eigen/Dense>
#include <random>
#include <vector>

namespace tamsi::testing {

inline SparseMatrix RandomSparse(int rows, int cols, int per_row, std::mt19937& rng) {
  std::uniform_int_distribution<int> col(0, cols - 1);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<Eigen::Triplet<double, int>> triplets;
  for (int i = 0; i < rows; ++i)
    for (int k = 0; k < per_row; ++k) triplets.emplace_back(i, col(rng), value(rng));
  SparseMatrix A(rows, cols);
  A.setFromTriplets(triplets.begin(), triplets.end());
  return A;
}

/// nv velocities, nc contacts; velocities of magnitude `speed` (m/s) in v_guess.
inline ContactProblem RandomProblem(int nv, int nc, unsigned seed, double speed = 1e-2) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  ContactProblem p;
  p.time_step = 1e-3;
  // M = B Bᵀ + nv I: SPD and sparse.
  const SparseMatrix B = RandomSparse(nv, nv, 2, rng);
  SparseMatrix identity(nv, nv);
  identity.setIdentity();
  p.M = SparseMatrix(B * SparseMatrix(B.transpose())) + 2.0 * identity;
  p.M.makeCompressed();
  p.Jn = RandomSparse(nc, nv, 4, rng);
  p.Jt = RandomSparse(2 * nc, nv, 4, rng);
  p.p_star = Eigen::VectorXd::NullaryExpr(nv, [&] { return speed * (2 * unit(rng) - 1); });
  p.delta0 = Eigen::VectorXd::NullaryExpr(nc, [&] { return 1e-3 * (unit(rng) + 0.2); });
  p.stiffness = Eigen::VectorXd::NullaryExpr(nc, [&] { return 1e3 * (1 + unit(rng)); });
  p.dissipation = Eigen::VectorXd::NullaryExpr(nc, [&] { return 2 * unit(rng); });
  p.friction = Eigen::VectorXd::NullaryExpr(nc, [&] { return 0.2 + 0.8 * unit(rng); });
  p.v_guess = Eigen::VectorXd::NullaryExpr(nv, [&] { return speed * (2 * unit(rng) - 1); });
  return p;
}

}  // namespace tamsi::testing
