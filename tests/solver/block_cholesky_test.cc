// Internal: the block sparse Cholesky of the symmetric preconditioner and the Schwarz subdomains
// (solver/src/block_cholesky.h) against dense LLᵀ.
#include "block_cholesky.h"

#include <gtest/gtest.h>
#include <tamsi/kernels/parallel.h>

#include <Eigen/Cholesky>
#include <Eigen/SparseCore>
#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace tamsi::internal {
namespace {

using Sparse = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

CscView View(const Sparse& A) {
  return CscView{static_cast<int>(A.cols()), A.outerIndexPtr(), A.innerIndexPtr(), A.valuePtr()};
}

/// An SPD matrix on the pattern of bodies of the given sizes, each coupled to a few random others by dense blocks
/// (strictly diagonally dominant, with a random symmetric part in each diagonal block).
Sparse BodyMatrix(const std::vector<int>& sizes, int couplings, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::uniform_int_distribution<int> pick(0, static_cast<int>(sizes.size()) - 1);
  std::vector<int> start(1, 0);
  for (int s : sizes) start.push_back(start.back() + s);
  const int n = start.back();
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(n, n);
  auto couple = [&](int a, int b) {
    for (int i = start[a]; i < start[a + 1]; ++i)
      for (int j = start[b]; j < start[b + 1]; ++j) {
        const double x = value(rng);
        dense(i, j) += x;
        if (i != j) dense(j, i) += x;
      }
  };
  for (int b = 0; b < static_cast<int>(sizes.size()); ++b) {
    couple(b, b);
    for (int c = 0; c < couplings; ++c) {
      const int other = pick(rng);
      if (other != b) couple(b, other);
    }
  }
  for (int i = 0; i < n; ++i) dense(i, i) = dense.row(i).cwiseAbs().sum() + 1.0;
  Sparse A = dense.sparseView(0.0, 0.0);  // keeps the block pattern (no value is exactly 0)
  A.makeCompressed();
  return A;
}

/// Copies `dense` into A's stored entries (A's pattern kept).
void SetValues(const Eigen::MatrixXd& dense, Sparse* A) {
  for (int p = 0; p < A->outerSize(); ++p)
    for (Sparse::InnerIterator it(*A, p); it; ++it) it.valueRef() = dense(it.row(), it.col());
}

/// *x = A⁻¹ b by `solver`, already analyzed on A's pattern: factors A's values, then solves.
void FactorAndSolve(LinearSolver* solver, const Sparse& A, const Eigen::VectorXd& b, Eigen::VectorXd* x) {
  std::string message;
  ASSERT_TRUE(solver->Factor(View(A), &message)) << message;
  ASSERT_TRUE(solver->Solve(b, x, &message)) << message;
}

// EstimateCholeskyFlops counts block operations: a chain of k bodies of 6 velocities (block tridiagonal, no fill)
// costs 6³ (3 (k − 1) + k / 3); bodies coupled at random (fill) cost more per body, and more as they grow in number.
TEST(EstimateCholeskyFlops, CountsTheBlockOperationsOfAChainAndGrowsWithFill) {
  const int k = 40;
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(6 * k, 6 * k);
  for (int b = 0; b < k; ++b)
    for (int c = std::max(0, b - 1); c <= std::min(k - 1, b + 1); ++c) dense.block<6, 6>(6 * b, 6 * c).setConstant(1.0);
  Sparse chain = dense.sparseView();
  chain.makeCompressed();
  EXPECT_NEAR(EstimateCholeskyFlops(View(chain)), 216.0 * (3.0 * (k - 1) + k / 3.0), 1e-9);
  const Sparse few = BodyMatrix(std::vector<int>(60, 6), 3, 1), many = BodyMatrix(std::vector<int>(240, 6), 3, 1);
  const double per_body_few = EstimateCholeskyFlops(View(few)) / 60,
               per_body_many = EstimateCholeskyFlops(View(many)) / 240;
  EXPECT_GT(per_body_few, 2.0 * EstimateCholeskyFlops(View(chain)) / k);
  EXPECT_GT(per_body_many, 2.0 * per_body_few);
}

// 60 bodies, and 200 (whose dense last separator is cut into supernodes of at most 64 columns and updated in groups
// of at most 64 rows; its sparse parts merge into relaxed supernodes with explicit zeros). Solves in single precision
// (a preconditioner's) agree to float rounding, in double precision to double rounding.
class BlockCholeskyPrecision : public ::testing::TestWithParam<CholeskyPrecision> {};

TEST_P(BlockCholeskyPrecision, SolvesLikeDenseCholeskyOnBodyPatternsAndRefactors) {
  const double tolerance = GetParam() == CholeskyPrecision::kDouble ? 1e-12 : 1e-5;
  for (unsigned seed : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE(seed);
    std::mt19937 rng(seed);
    std::vector<int> sizes;
    const int sizes_of_bodies[] = {6, 6, 6, 1, 3, 7};
    for (int b = 0; b < (seed == 4u ? 200 : 60); ++b) sizes.push_back(sizes_of_bodies[rng() % 6]);
    Sparse A = BodyMatrix(sizes, 3, seed);
    const int n = static_cast<int>(A.cols());
    auto solver = MakeBlockCholeskySolver(GetParam());
    std::string message;
    ASSERT_TRUE(solver->Analyze(View(A), &message)) << message;
    for (int round = 0; round < 2; ++round) {
      // Same pattern, new values: the analysis is kept.
      if (round == 1)
        for (int p = 0; p < A.nonZeros(); ++p) A.valuePtr()[p] *= A.innerIndexPtr()[p] % 2 == 0 ? 1.1 : 0.9;
      Eigen::MatrixXd dense(A);
      dense = 0.5 * (dense + dense.transpose()).eval();
      SetValues(dense, &A);
      const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, -1.0, 2.0);
      Eigen::VectorXd x;
      ASSERT_NO_FATAL_FAILURE(FactorAndSolve(solver.get(), A, b, &x));
      const Eigen::VectorXd expected = dense.llt().solve(b);
      EXPECT_LE((x - expected).norm(), tolerance * expected.norm()) << "round " << round;
      // The same b as rows of a longer vector, taken in place (rows in reverse order, between others): bitwise x,
      // written where it is asked for and nowhere else.
      Eigen::VectorXd longer = Eigen::VectorXd::Constant(2 * n + 1, 1e30);
      std::vector<int> rows(n);
      for (int j = 0; j < n; ++j) longer[rows[j] = 2 * (n - j)] = b[j];
      Eigen::VectorXd out = Eigen::VectorXd::Constant(n + 2, -7.0);
      solver->SolveGathered(longer, rows.data(), out.data() + 1);
      EXPECT_EQ(0, std::memcmp(out.data() + 1, x.data(), sizeof(double) * n)) << "round " << round;
      EXPECT_EQ(out[0], -7.0);
      EXPECT_EQ(out[n + 1], -7.0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Solves, BlockCholeskyPrecision,
                         ::testing::Values(CholeskyPrecision::kDouble, CholeskyPrecision::kSingle,
                                           CholeskyPrecision::kSingleInverted),
                         [](const ::testing::TestParamInfo<CholeskyPrecision>& info) {
                           switch (info.param) {
                             case CholeskyPrecision::kDouble:
                               return std::string("double");
                             case CholeskyPrecision::kSingle:
                               return std::string("single");
                             case CholeskyPrecision::kSingleInverted:
                               break;
                           }
                           return std::string("single_inverted");
                         });

// A matrix that float cannot factor: a body's 2 × 2 block [[1, 1 − 1e-9], [1 − 1e-9, 1]] (its second pivot, 2e-9 in
// double, rounds to 0 in float), beside a well-conditioned body (uncoupled: any coupling of this size would make the
// matrix indefinite). kSingle factors it again in double, solves it to double's accuracy, and returns to float when
// the next matrix allows.
TEST(BlockCholesky, SingleFallsBackToDoubleWhereFloatLosesDefiniteness) {
  const double c = 1.0 - 1e-9;
  Eigen::MatrixXd dense(4, 4);
  dense << 1, c, 0, 0, c, 1, 0, 0, 0, 0, 4, 1, 0, 0, 1, 4;
  Sparse A = dense.sparseView();
  A.makeCompressed();
  auto solver = MakeBlockCholeskySolver(CholeskyPrecision::kSingle);
  std::string message;
  ASSERT_TRUE(solver->Analyze(View(A), &message)) << message;
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(4, -1.0, 2.0);
  Eigen::VectorXd x;
  ASSERT_NO_FATAL_FAILURE(FactorAndSolve(solver.get(), A, b, &x));
  const Eigen::VectorXd expected = dense.llt().solve(b);
  EXPECT_LE((x - expected).norm(), 1e-6 * expected.norm());  // float's solve would be off by ~1e-1 relative, or fail
  // A well-conditioned matrix of the same pattern is factored in float again.
  dense(0, 1) = dense(1, 0) = 0.5;
  SetValues(dense, &A);
  ASSERT_NO_FATAL_FAILURE(FactorAndSolve(solver.get(), A, b, &x));
  const Eigen::VectorXd well = dense.llt().solve(b);
  EXPECT_LE((x - well).norm(), 1e-5 * well.norm());
  EXPECT_GT((x - well).norm(), 1e-12 * well.norm());  // float rounding: not the double factorization
}

// A dense SPD matrix: its 150 columns share one pattern, which is cut into blocks of at most 64 columns (so that no
// dense operand of a factorization outgrows Eigen's stack buffers; allocation_test counts those on Schwarz's path),
// chained back into supernodes; the solution is dense LLᵀ's.
TEST(BlockCholesky, SolvesADenseMatrixAsOnePatternCutIntoBlocks) {
  Sparse A = BodyMatrix({150}, 0, 5);
  Eigen::MatrixXd dense(A);
  auto solver = MakeBlockCholeskySolver(CholeskyPrecision::kSingleInverted);
  std::string message;
  ASSERT_TRUE(solver->Analyze(View(A), &message)) << message;
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(150, -1.0, 2.0);
  Eigen::VectorXd x;
  ASSERT_NO_FATAL_FAILURE(FactorAndSolve(solver.get(), A, b, &x));
  const Eigen::VectorXd expected = dense.llt().solve(b);
  EXPECT_LE((x - expected).norm(), 1e-5 * expected.norm());
}

TEST(BlockCholesky, RefusesAMatrixThatIsNotPositiveDefinite) {
  // Two bodies of 2 velocities; the second's diagonal block [[1, 2], [2, 1]] is indefinite.
  Eigen::MatrixXd dense(4, 4);
  dense << 4, 1, 0.5, 0, 1, 4, 0, 0.5, 0.5, 0, 1, 2, 0, 0.5, 2, 1;
  Sparse A = dense.sparseView();
  A.makeCompressed();
  auto solver = MakeBlockCholeskySolver(CholeskyPrecision::kSingleInverted);
  std::string message;
  ASSERT_TRUE(solver->Analyze(View(A), &message)) << message;
  EXPECT_FALSE(solver->Factor(View(A), &message));
  EXPECT_NE(message.find("not positive definite"), std::string::npos) << message;
}

/// A 3D grid of k³ bodies of 6 velocities, each coupled to its face neighbours by dense blocks (SPD, strictly
/// diagonally dominant): a pile's pattern, whose nested-dissection separators are dense and many supernodes tall.
Sparse GridMatrix(int k, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  const int n = 6 * k * k * k;
  std::vector<Eigen::Triplet<double>> entries;
  Eigen::VectorXd row_sum = Eigen::VectorXd::Zero(n);
  auto couple = [&](int a, int b) {
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) {
        const double x = value(rng);
        entries.emplace_back(6 * a + i, 6 * b + j, x);
        entries.emplace_back(6 * b + j, 6 * a + i, x);
        row_sum[6 * a + i] += std::abs(x);
        row_sum[6 * b + j] += std::abs(x);
      }
  };
  for (int x = 0; x < k; ++x)
    for (int y = 0; y < k; ++y)
      for (int z = 0; z < k; ++z) {
        const int body = (x * k + y) * k + z;
        if (x + 1 < k) couple(body, body + k * k);
        if (y + 1 < k) couple(body, body + k);
        if (z + 1 < k) couple(body, body + 1);
      }
  for (int i = 0; i < n; ++i) entries.emplace_back(i, i, row_sum[i] + 1.0);
  Sparse A(n, n);
  A.setFromTriplets(entries.begin(), entries.end());
  A.makeCompressed();
  return A;
}

// The factorization on 2, 3 and 4 threads (subtrees in parallel, then the supernodes above them by row chunks), and
// the solves on those threads (the same tasks, forward from the leaves and backward from the root), give bitwise the
// solution of the one-thread factorization and solves, in every precision, on an 8 × 8 × 8 grid of bodies (3,072
// velocities, a dense top separator of ~400 columns) and on 250 bodies coupled at random; and where several supernodes
// fail, it names the one the one-thread factorization names.
TEST(BlockCholesky, ParallelFactorizationAndSolvesAreBitwiseTheOneThreadOnes) {
  for (const Sparse& A0 : {GridMatrix(8, 5), BodyMatrix(std::vector<int>(250, 6), 3, 6)}) {
    for (CholeskyPrecision precision :
         {CholeskyPrecision::kDouble, CholeskyPrecision::kSingle, CholeskyPrecision::kSingleInverted}) {
      SCOPED_TRACE(static_cast<int>(precision));
      Sparse A = A0;
      const int n = static_cast<int>(A.cols());
      const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, -1.0, 2.0);
      auto serial = MakeBlockCholeskySolver(precision);
      std::string message;
      ASSERT_TRUE(serial->Analyze(View(A), &message)) << message;
      Eigen::VectorXd expected;
      ASSERT_NO_FATAL_FAILURE(FactorAndSolve(serial.get(), A, b, &expected));
      const double tolerance = precision == CholeskyPrecision::kDouble ? 1e-12 : 1e-5;
      EXPECT_LE((A * expected - b).norm(), tolerance * b.norm());
      for (int threads : {2, 3, 4}) {
        SCOPED_TRACE(threads);
        const kernels::ThreadBudget budget(threads);
        auto parallel = MakeBlockCholeskySolver(precision);
        ASSERT_TRUE(parallel->Analyze(View(A), &message)) << message;
        ASSERT_TRUE(parallel->Factor(budget, View(A), &message)) << message;
        Eigen::VectorXd x, x_parallel;
        ASSERT_TRUE(parallel->Solve(b, &x, &message)) << message;
        EXPECT_EQ(0, std::memcmp(x.data(), expected.data(), sizeof(double) * n));
        for (int repeat = 0; repeat < 3; ++repeat) {  // tasks finish in another order each time
          ASSERT_TRUE(parallel->Solve(budget, b, &x_parallel, &message)) << message;
          EXPECT_EQ(0, std::memcmp(x_parallel.data(), expected.data(), sizeof(double) * n));
        }
      }
      // Six velocities spread over the matrix made indefinite, so that several supernodes in different subtrees
      // fail: both factorizations fail, naming the same (the first in elimination order, whichever fails first in
      // time).
      if (precision == CholeskyPrecision::kSingle) continue;  // kSingle would retry in double, and fail there too
      for (int j = n / 12; j < n; j += n / 6)
        for (int p = A.outerIndexPtr()[j]; p < A.outerIndexPtr()[j + 1]; ++p)
          if (A.innerIndexPtr()[p] == j) A.valuePtr()[p] = -A.valuePtr()[p];
      std::string serial_message, parallel_message;
      EXPECT_FALSE(serial->Factor(View(A), &serial_message));
      const kernels::ThreadBudget budget(3);
      EXPECT_FALSE(serial->Factor(budget, View(A), &parallel_message));
      EXPECT_NE(serial_message.find("not positive definite"), std::string::npos) << serial_message;
      EXPECT_EQ(serial_message, parallel_message);
    }
  }
}

TEST(BlockCholesky, HandlesAnEmptyMatrix) {
  Sparse A(0, 0);
  A.makeCompressed();
  auto solver = MakeBlockCholeskySolver(CholeskyPrecision::kSingleInverted);
  std::string message;
  ASSERT_TRUE(solver->Analyze(View(A), &message));
  ASSERT_TRUE(solver->Factor(View(A), &message));
  Eigen::VectorXd x;
  ASSERT_TRUE(solver->Solve(Eigen::VectorXd(0), &x, &message));
  EXPECT_EQ(x.size(), 0);
}

}  // namespace
}  // namespace tamsi::internal
