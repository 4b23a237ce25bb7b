// Internal: the overlapping subdomains of the Schwarz preconditioner (solver/src/subdomains.h).
#include <gtest/gtest.h>

#include <Eigen/SparseCore>
#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "subdomains.h"

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

TEST(Subdomains, EveryVelocityIsOwnedOnceAndEachPartIsExtendedByItsNeighbours) {
  for (int part_bodies : {1, 7, 32, 1000}) {
    SCOPED_TRACE(part_bodies);
    std::vector<int> body;
    const Pattern A = BodyPattern(500, 3, 1, &body);
    const Subdomains s = FindSubdomains(View(A), body, 500, part_bodies);
    ASSERT_EQ(s.ptr.size(), static_cast<size_t>(s.count + 1));
    EXPECT_GE(s.count, (500 + part_bodies - 1) / part_bodies);
    std::vector<int> owner(A.cols(), -1);
    for (int d = 0; d < s.count; ++d) {
      const auto first = s.velocities.begin() + s.ptr[d], last = s.velocities.begin() + s.ptr[d + 1];
      EXPECT_TRUE(std::is_sorted(first, last));
      std::set<int> owned_bodies;
      for (int e = s.ptr[d]; e < s.ptr[d + 1]; ++e) {
        if (!s.owned[e]) continue;
        EXPECT_EQ(owner[s.velocities[e]], -1) << "velocity " << s.velocities[e] << " owned twice";
        owner[s.velocities[e]] = d;
        owned_bodies.insert(body[s.velocities[e]]);
      }
      EXPECT_GE(static_cast<int>(owned_bodies.size()), 1);
      EXPECT_LE(static_cast<int>(owned_bodies.size()), part_bodies);
      // One layer of overlap: every velocity coupled in A to an owned velocity is in the subdomain, whole bodies.
      for (int e = s.ptr[d]; e < s.ptr[d + 1]; ++e) {
        if (!s.owned[e]) continue;
        for (Pattern::InnerIterator it(A, s.velocities[e]); it; ++it)
          EXPECT_TRUE(std::binary_search(first, last, static_cast<int>(it.row())));
      }
    }
    EXPECT_EQ(std::count(owner.begin(), owner.end(), -1), 0);
  }
}

TEST(Subdomains, PartsOfAConnectedBodyGraphAreBalanced) {
  std::vector<int> body;
  const Pattern A = BodyPattern(1024, 3, 2, &body);
  const Subdomains s = FindSubdomains(View(A), body, 1024, 32);
  // Halving 1,024 bodies down to at most 32 gives 32 parts of exactly 32.
  ASSERT_EQ(s.count, 32);
  for (int d = 0; d < s.count; ++d)
    EXPECT_EQ(std::count(s.owned.begin() + s.ptr[d], s.owned.begin() + s.ptr[d + 1], 1), 32 * 6);
}

}  // namespace
}  // namespace tamsi::internal
