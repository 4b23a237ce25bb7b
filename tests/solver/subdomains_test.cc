// Internal: the overlapping subdomains of the Schwarz preconditioner (solver/src/subdomains.h).
#include "subdomains.h"

#include <gtest/gtest.h>

#include <Eigen/SparseCore>
#include <algorithm>
#include <random>
#include <set>
#include <vector>

namespace tamsi::internal {
namespace {

using Pattern = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

/// A pile-like pattern: `num_bodies` bodies of 6 velocities (dense 6 × 6 diagonal blocks), each coupled to a few
/// random others (dense 6 × 6 blocks both ways), as contacts between free bodies couple them.
Pattern BodyPattern(int num_bodies, int contacts_per_body, unsigned seed, std::vector<int>* body) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(0, num_bodies - 1);
  std::vector<Eigen::Triplet<double, int>> t;
  auto couple = [&](int a, int b) {
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) {
        t.emplace_back(6 * a + i, 6 * b + j, 1.0);
        t.emplace_back(6 * b + j, 6 * a + i, 1.0);
      }
  };
  for (int b = 0; b < num_bodies; ++b) {
    couple(b, b);
    // Neighbours near b in index, as bodies near in space: a connected, geometric-like graph.
    for (int k = 0; k < contacts_per_body; ++k) couple(b, std::clamp(b + pick(rng) % 20 - 10, 0, num_bodies - 1));
  }
  Pattern A(6 * num_bodies, 6 * num_bodies);
  A.setFromTriplets(t.begin(), t.end());
  A.makeCompressed();
  body->resize(6 * num_bodies);
  for (int j = 0; j < 6 * num_bodies; ++j) (*body)[j] = j / 6;
  return A;
}

CscView View(const Pattern& A) {
  return CscView{static_cast<int>(A.cols()), A.outerIndexPtr(), A.innerIndexPtr(), A.valuePtr()};
}

TEST(Subdomains, PartsCoverEveryBodyOnceAndEachSubdomainIsItsPartWithItsNeighbours) {
  for (int part_bodies : {1, 7, 32, 1000}) {
    SCOPED_TRACE(part_bodies);
    std::vector<int> body;
    const Pattern A = BodyPattern(500, 3, 1, &body);
    const Subdomains s = FindSubdomains(View(A), body, 500, part_bodies);
    ASSERT_EQ(s.ptr.size(), static_cast<size_t>(s.count + 1));
    ASSERT_EQ(s.part.size(), 500u);
    std::vector<int> bodies_in_part(s.count, 0);
    for (int p : s.part) {
      ASSERT_GE(p, 0);
      ASSERT_LT(p, s.count);
      ++bodies_in_part[p];
    }
    for (int d = 0; d < s.count; ++d) {
      EXPECT_GE(bodies_in_part[d], 1);
      EXPECT_LE(bodies_in_part[d], part_bodies);
      // Exactly the velocities of the part's bodies and of every body coupled to them in A (one layer of overlap).
      std::set<int> expected;
      for (int j = 0; j < A.cols(); ++j) {
        if (s.part[body[j]] != d) continue;
        expected.insert(j);
        for (Pattern::InnerIterator it(A, j); it; ++it)
          for (int k = 0; k < 6; ++k) expected.insert(6 * body[it.row()] + k);
      }
      const std::vector<int> actual(s.velocities.begin() + s.ptr[d], s.velocities.begin() + s.ptr[d + 1]);
      EXPECT_EQ(actual, std::vector<int>(expected.begin(), expected.end())) << "subdomain " << d;
    }
  }
}

TEST(Subdomains, PartsOfAConnectedBodyGraphAreBalanced) {
  std::vector<int> body;
  const Pattern A = BodyPattern(1024, 3, 2, &body);
  const Subdomains s = FindSubdomains(View(A), body, 1024, 32);
  // Halving 1,024 bodies down to at most 32 gives 32 parts of exactly 32.
  ASSERT_EQ(s.count, 32);
  for (int d = 0; d < s.count; ++d) EXPECT_EQ(std::count(s.part.begin(), s.part.end(), d), 32);
}

}  // namespace
}  // namespace tamsi::internal
