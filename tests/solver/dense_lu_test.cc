// Internal: the partial-pivoting LU of small islands (solver/src/dense_lu.h) against Eigen's PartialPivLU.
#include "dense_lu.h"

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <cmath>
#include <random>
#include <vector>

namespace tamsi::internal {
namespace {

Eigen::VectorXd Solve(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, bool* factored, std::vector<int>* pivots) {
  Eigen::MatrixXd factors = A;
  DenseLu lu;
  *factored = lu.Factor(&factors);
  if (pivots) *pivots = lu.pivots();
  Eigen::VectorXd x = b;
  if (*factored) lu.SolveInPlace(factors, &x);
  return x;
}

void ExpectSolvesLikeEigen(const Eigen::MatrixXd& A, std::mt19937* rng) {
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  Eigen::VectorXd b(A.rows());
  for (int i = 0; i < b.size(); ++i) b[i] = value(*rng);
  bool factored = false;
  const Eigen::VectorXd x = Solve(A, b, &factored, nullptr);
  ASSERT_TRUE(factored);
  const Eigen::VectorXd expected = A.partialPivLu().solve(b);
  EXPECT_LE((x - expected).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + expected.cwiseAbs().maxCoeff()));
  EXPECT_LE((A * x - b).cwiseAbs().maxCoeff(), 1e-12);
}

/// A hand's island (22 velocities): four fingers of four joints, each coupled to the six velocities of the object it
/// touches (last) and to nothing else; off-diagonal entries uniform in ±`entry`, `diagonal` added to the diagonal.
Eigen::MatrixXd HandIsland(double entry, double diagonal, std::mt19937* rng) {
  std::uniform_real_distribution<double> value(-entry, entry);
  const int n = 22;
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
  for (int f = 0; f < 4; ++f)
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) A(4 * f + i, 4 * f + j) = value(*rng);
      for (int j = 16; j < n; ++j) {
        A(4 * f + i, j) = value(*rng);
        A(j, 4 * f + i) = value(*rng);
      }
    }
  for (int i = 16; i < n; ++i)
    for (int j = 16; j < n; ++j) A(i, j) = value(*rng);
  A.diagonal().array() += diagonal;
  return A;
}

// Dense, nonsymmetric, with no diagonal dominance: rows must be swapped.
TEST(DenseLu, SolvesDenseMatricesThatNeedPivoting) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (int n : {2, 5, 22, 47}) {
    Eigen::MatrixXd A(n, n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) A(i, j) = value(rng);
    A(0, 0) = 0.0;  // the first pivot must come from another row
    ExpectSolvesLikeEigen(A, &rng);
  }
}

// A hand's island with the object last (the sparse path of the rank-one updates), then the object first (all fill).
TEST(DenseLu, SolvesIslandsWhoseBodiesCoupleThroughContacts) {
  std::mt19937 rng(11);
  const Eigen::MatrixXd A = HandIsland(1.0, 4.0, &rng);
  const int n = static_cast<int>(A.rows());
  ExpectSolvesLikeEigen(A, &rng);
  Eigen::VectorXi order(n);
  for (int i = 0; i < n; ++i) order[i] = (i + 6) % n;  // the object's velocities first
  const Eigen::PermutationMatrix<Eigen::Dynamic> P(order);
  ExpectSolvesLikeEigen(P * A * P.transpose(), &rng);
}

// The same island in mixed units: the fingers' joint velocities (rad/s) with inertias of 1e-4, the object's
// translation (m/s) with a mass of 10, so a finger's column holds object-row entries far above its diagonal. Scaled
// pivoting keeps every row in place (so the finger blocks' zeros stay zero), where plain partial pivoting would swap.
TEST(DenseLu, KeepsTheDiagonalOfAnIslandInMixedUnits) {
  std::mt19937 rng(13);
  const Eigen::MatrixXd A = HandIsland(0.2, 1.0, &rng);
  const int n = static_cast<int>(A.rows());
  Eigen::VectorXd scale(n);
  for (int i = 0; i < n; ++i) scale[i] = i < 16 ? 1e-2 : std::sqrt(10.0);
  const Eigen::MatrixXd mixed = scale.asDiagonal() * A * scale.asDiagonal();
  ASSERT_GT(mixed.col(0).tail(6).cwiseAbs().maxCoeff(), mixed(0, 0));  // plain partial pivoting would swap row 0
  ExpectSolvesLikeEigen(mixed, &rng);
  bool factored = false;
  std::vector<int> pivots;
  Solve(mixed, Eigen::VectorXd::Ones(n), &factored, &pivots);
  ASSERT_TRUE(factored);
  for (int k = 0; k < n; ++k) EXPECT_EQ(pivots[k], k);
}

TEST(DenseLu, RefusesSingularAndNonFiniteMatrices) {
  Eigen::MatrixXd A(3, 3);
  A << 1, 2, 3, 2, 4, 6, 0, 1, 1;  // row 1 = 2 × row 0
  bool factored = true;
  Solve(A, Eigen::VectorXd::Ones(3), &factored, nullptr);
  EXPECT_FALSE(factored);
  A << 1, 0, 0, 0, 1e-20, 0, 0, 0, 1;  // a pivot below 1e-14 times the largest
  factored = true;
  Solve(A, Eigen::VectorXd::Ones(3), &factored, nullptr);
  EXPECT_FALSE(factored);
  A.setIdentity();
  A(2, 2) = std::nan("");
  factored = true;
  Solve(A, Eigen::VectorXd::Ones(3), &factored, nullptr);
  EXPECT_FALSE(factored);
}

}  // namespace
}  // namespace tamsi::internal
