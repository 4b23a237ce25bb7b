// Internal: tamsi's GMRES (solver/src/krylov.h) on nonsymmetric matrices with a symmetric pattern, the Newton matrices'
// shape: free bodies' 6 × 6 blocks mixed with single velocities, small joint chains and runs of identical rows longer
// than a row group, so that the products by row groups and column runs meet every kind of group.
#include "krylov.h"

#include <gtest/gtest.h>

#include <Eigen/SparseCore>
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace tamsi::internal {
namespace {

using Sparse = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

CscView View(const Sparse& A) {
  return CscView{static_cast<int>(A.cols()), A.outerIndexPtr(), A.innerIndexPtr(), A.valuePtr()};
}

/// Groups of velocities of sizes 6, 1, 3, 12, 2 (repeated `repeats` times), each coupled to a few random others by
/// dense blocks whose (i, j) and (j, i) entries are drawn independently; strictly diagonally dominant by rows.
Sparse MixedMatrix(int repeats, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<int> start(1, 0);
  for (int r = 0; r < repeats; ++r)
    for (int size : {6, 1, 3, 12, 2}) start.push_back(start.back() + size);
  const int groups = static_cast<int>(start.size()) - 1, n = start.back();
  std::uniform_int_distribution<int> pick(0, groups - 1);
  std::vector<Eigen::Triplet<double>> entries;
  std::vector<double> row_sum(n, 0.0);
  auto add = [&](int i, int j, double x) {
    entries.emplace_back(i, j, x);
    row_sum[i] += std::abs(x);
  };
  auto couple = [&](int a, int b) {
    for (int i = start[a]; i < start[a + 1]; ++i)
      for (int j = start[b]; j < start[b + 1]; ++j) {
        if (a == b && j > i) continue;
        add(i, j, value(rng));
        if (i != j) add(j, i, value(rng));
      }
  };
  for (int a = 0; a < groups; ++a) {
    couple(a, a);
    for (int c = 0; c < 3; ++c) {
      const int b = pick(rng);
      if (b != a) couple(a, b);
    }
  }
  for (int i = 0; i < n; ++i) entries.emplace_back(i, i, row_sum[i] + 1.0);
  Sparse A(n, n);
  A.setFromTriplets(entries.begin(), entries.end());
  A.makeCompressed();
  return A;
}

Eigen::VectorXd Solve(const Sparse& A, const Eigen::VectorXd& b, int threads, int* iterations) {
  Gmres gmres;
  gmres.Analyze(View(A));
  const Preconditioner identity = [](const Eigen::VectorXd& r, Eigen::VectorXd* z) {
    *z = r;
    return true;
  };
  Eigen::VectorXd x;
  EXPECT_TRUE(gmres.Solve(kernels::ThreadBudget(threads), View(A).values, identity, 100, 1e-10, b, &x, iterations));
  return x;
}

// The residual GMRES monitors is the true one only if its products with A are right: check it against Eigen's.
TEST(Gmres, MeetsItsToleranceInTheTrueResidual) {
  for (unsigned seed : {1u, 2u}) {
    const Sparse A = MixedMatrix(400, seed);  // 9,600 velocities, 2,000 groups: several chunks of row groups
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(A.rows(), -1.0, 2.0);
    int iterations = 0;
    const Eigen::VectorXd x = Solve(A, b, 1, &iterations);
    EXPECT_GT(iterations, 3);
    EXPECT_LE((b - A * x).norm(), 1e-9 * b.norm());
  }
}

TEST(Gmres, BitwiseIdenticalForAnyThreadCount) {
  const Sparse A = MixedMatrix(400, 3);
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(A.rows(), 1.0, -1.0);
  int iterations_1 = 0;
  const Eigen::VectorXd x1 = Solve(A, b, 1, &iterations_1);
  for (int threads : {2, 4}) {
    int iterations = 0;
    const Eigen::VectorXd x = Solve(A, b, threads, &iterations);
    EXPECT_EQ(iterations, iterations_1);
    for (Eigen::Index i = 0; i < x.size(); ++i) ASSERT_EQ(x[i], x1[i]) << "threads " << threads << ", row " << i;
  }
}

// An island's block read in place from the whole system's values (CscView::value_index): the same iterates as from
// a copy of its values.
TEST(Gmres, ReadsABlockInPlaceThroughItsValueIndex) {
  const Sparse A = MixedMatrix(50, 4);
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(A.rows(), -1.0, 1.0);
  int copied_iterations = 0;
  const Eigen::VectorXd copied = Solve(A, b, 1, &copied_iterations);
  // A's values scattered into an array three times as long, the rest of it NaN.
  const int nnz = static_cast<int>(A.nonZeros());
  std::vector<int> index(nnz);
  std::vector<double> whole(3 * static_cast<size_t>(nnz), std::nan(""));
  std::mt19937 rng(5);
  std::vector<int> slots(whole.size());
  for (size_t k = 0; k < slots.size(); ++k) slots[k] = static_cast<int>(k);
  std::shuffle(slots.begin(), slots.end(), rng);
  for (int p = 0; p < nnz; ++p) {
    index[p] = slots[p];
    whole[index[p]] = A.valuePtr()[p];
  }
  CscView pattern = View(A);
  pattern.values = nullptr;  // not read by the analysis
  pattern.value_index = index.data();
  Gmres gmres;
  gmres.Analyze(pattern);
  const Preconditioner identity = [](const Eigen::VectorXd& r, Eigen::VectorXd* z) {
    *z = r;
    return true;
  };
  Eigen::VectorXd x;
  int iterations = 0;
  EXPECT_TRUE(gmres.Solve(kernels::ThreadBudget(2), whole.data(), identity, 100, 1e-10, b, &x, &iterations));
  EXPECT_EQ(iterations, copied_iterations);
  for (Eigen::Index i = 0; i < x.size(); ++i) ASSERT_EQ(x[i], copied[i]) << "row " << i;
}

}  // namespace
}  // namespace tamsi::internal
