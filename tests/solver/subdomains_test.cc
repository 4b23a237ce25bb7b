// Internal: the overlapping subdomains of the Schwarz preconditioner (solver/src/subdomains.h).
#include "subdomains.h"

#include <gtest/gtest.h>

#include <Eigen/SparseCore>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "islands.h"
#include "schwarz.h"

namespace tamsi::internal {
namespace {

using Pattern = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

/// The pattern of `num_bodies` bodies of 6 velocities, with dense 6 × 6 blocks on the diagonal and both ways for
/// each pair of `couplings`, as contacts between free bodies couple them; *body: each velocity's body.
Pattern CoupledBodies(int num_bodies, const std::vector<std::pair<int, int>>& couplings, std::vector<int>* body) {
  std::vector<Eigen::Triplet<double, int>> t;
  auto couple = [&](int a, int b) {
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) {
        t.emplace_back(6 * a + i, 6 * b + j, 1.0);
        t.emplace_back(6 * b + j, 6 * a + i, 1.0);
      }
  };
  for (int b = 0; b < num_bodies; ++b) couple(b, b);
  for (const auto& [a, b] : couplings) couple(a, b);
  Pattern A(6 * num_bodies, 6 * num_bodies);
  A.setFromTriplets(t.begin(), t.end());
  A.makeCompressed();
  body->resize(6 * num_bodies);
  for (int j = 0; j < 6 * num_bodies; ++j) (*body)[j] = j / 6;
  return A;
}

/// A pile-like pattern: `num_bodies` bodies, each coupled to a few others near it in index (as bodies near in space:
/// a connected, geometric-like graph).
Pattern BodyPattern(int num_bodies, int contacts_per_body, unsigned seed, std::vector<int>* body) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(0, num_bodies - 1);
  std::vector<std::pair<int, int>> couplings;
  for (int b = 0; b < num_bodies; ++b)
    for (int k = 0; k < contacts_per_body; ++k)
      couplings.emplace_back(b, std::clamp(b + pick(rng) % 20 - 10, 0, num_bodies - 1));
  return CoupledBodies(num_bodies, couplings, body);
}

CscView View(const Pattern& A) {
  return CscView{static_cast<int>(A.cols()), A.outerIndexPtr(), A.innerIndexPtr(), A.valuePtr()};
}

Subdomains Find(const Pattern& A, const std::vector<int>& body, int num_bodies, int part_bodies) {
  Subdomains s;
  EXPECT_TRUE(FindSubdomains(View(A), body, num_bodies, part_bodies, &s));
  return s;
}

/// The most bodies METIS may put in one of `count` parts of `num_bodies` (its imbalance of 3 %, rounded up).
int MaxPartBodies(int num_bodies, int count) { return static_cast<int>(std::ceil(1.03 * num_bodies / count)); }

TEST(Subdomains, PartsCoverEveryBodyOnceAndEachSubdomainIsItsPartWithItsNeighbours) {
  for (int part_bodies : {7, 32, 1000}) {
    SCOPED_TRACE(part_bodies);
    std::vector<int> body;
    const Pattern A = BodyPattern(500, 3, 1, &body);
    const Subdomains s = Find(A, body, 500, part_bodies);
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
      EXPECT_LE(bodies_in_part[d], MaxPartBodies(500, s.count) + 1);  // parts of a few bodies balance less well
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

/// A pile-like lattice: nx × ny × nz bodies, each coupled to its 6 lattice neighbours.
Pattern LatticePattern(int nx, int ny, int nz, std::vector<int>* body) {
  auto id = [&](int x, int y, int z) { return (z * ny + y) * nx + x; };
  std::vector<std::pair<int, int>> couplings;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        if (x + 1 < nx) couplings.emplace_back(id(x, y, z), id(x + 1, y, z));
        if (y + 1 < ny) couplings.emplace_back(id(x, y, z), id(x, y + 1, z));
        if (z + 1 < nz) couplings.emplace_back(id(x, y, z), id(x, y, z + 1));
      }
  return CoupledBodies(nx * ny * nz, couplings, body);
}

/// The body pairs of A (each once) whose bodies lie in different parts.
int CutPairs(const Pattern& A, const std::vector<int>& body, const std::vector<int>& part) {
  std::set<std::pair<int, int>> cut;
  for (int j = 0; j < A.cols(); ++j)
    for (Pattern::InnerIterator it(A, j); it; ++it) {
      const int a = body[j], b = body[it.row()];
      if (a < b && part[a] != part[b]) cut.emplace(a, b);
    }
  return static_cast<int>(cut.size());
}

// A 16 × 16 × 8 lattice of 2,048 bodies halved down to at most 64 gives 32 parts, which METIS balances to within its
// 3 %. Its parts cut at most 25 % more body pairs than 32 cubes of 4 × 4 × 4 bodies would (1,024; METIS: 1,155; the
// recursive breadth-first bisection that it replaced: 2,152), and the same pattern always gives the same parts.
TEST(Subdomains, PartsOfALatticeAreBalancedCutAboutAsLittleAsCubesAndAreReproducible) {
  std::vector<int> body;
  const Pattern A = LatticePattern(16, 16, 8, &body);
  const Subdomains s = Find(A, body, 2048, 64);
  ASSERT_EQ(s.count, 32);
  for (int d = 0; d < s.count; ++d) EXPECT_LE(std::count(s.part.begin(), s.part.end(), d), MaxPartBodies(2048, 32));
  std::vector<int> cubes(2048);
  for (int b = 0; b < 2048; ++b) cubes[b] = ((b / 256) / 4 * 4 + (b % 256) / 16 / 4) * 4 + b % 16 / 4;
  ASSERT_EQ(CutPairs(A, body, cubes), 1024);
  EXPECT_LE(CutPairs(A, body, s.part), 1280);
  EXPECT_EQ(Find(A, body, 2048, 64).part, s.part);
}

TEST(Subdomains, DefaultPartSizeGivesLargeIslandsAtLeastSixteenParts) {
  for (int num_bodies : {1000, 10000}) {
    SCOPED_TRACE(num_bodies);
    std::vector<int> body;
    const Pattern A = BodyPattern(num_bodies, 3, 3, &body);
    const int part_bodies = SchwarzPartBodies(256, num_bodies);
    const Subdomains s = Find(A, body, num_bodies, part_bodies);
    // Parts of about ⌈N/16⌉ bodies at most: at least N / ⌈N/16⌉ of them, 16 where 16 divides N.
    EXPECT_GE(s.count, (num_bodies + part_bodies - 1) / part_bodies);
    if (num_bodies % kMinSubdomains == 0) {
      EXPECT_GE(s.count, kMinSubdomains);
    }
    EXPECT_LE(part_bodies, 256);
    for (int d = 0; d < s.count; ++d)
      EXPECT_LE(std::count(s.part.begin(), s.part.end(), d), MaxPartBodies(num_bodies, s.count));
  }
}

/// Contact i touches the velocities `touched[i]` (every row of its Jn and Jt nonzero there).
kernels::ContactJacobian Touching(int nv, const std::vector<std::vector<int>>& touched) {
  const int nc = static_cast<int>(touched.size());
  std::vector<Eigen::Triplet<double, int>> n, t;
  for (int i = 0; i < nc; ++i)
    for (int j : touched[i]) {
      n.emplace_back(i, j, 1.0 + j);
      t.emplace_back(2 * i, j, 2.0 + j);
      t.emplace_back(2 * i + 1, j, 3.0 + j);
    }
  Pattern Jn(nc, nv), Jt(2 * nc, nv);
  Jn.setFromTriplets(n.begin(), n.end());
  Jt.setFromTriplets(t.begin(), t.end());
  return kernels::ContactJacobian(Jn, Jt);
}

std::vector<int> Range(int begin, int end) {
  std::vector<int> r(end - begin);
  std::iota(r.begin(), r.end(), begin);
  return r;
}

TEST(FindBodies, JoinsVelocitiesCoupledThroughMOrTouchedByTheSameContacts) {
  // Velocities 0–5, 6–11, 12–17: free bodies with a diagonal M; 18–20: a 3-joint arm whose M couples 18–19 and
  // 19–20. Contact 0: bodies 0 and 1; contact 1: body 1 and the ground; contact 2: the arm's last joint and body 1.
  // Body 2 touches nothing.
  const int nv = 21;
  std::vector<Eigen::Triplet<double, int>> m;
  for (int j = 0; j < nv; ++j) m.emplace_back(j, j, 1.0);
  for (int j : {18, 19}) {
    m.emplace_back(j, j + 1, 0.1);
    m.emplace_back(j + 1, j, 0.1);
  }
  Pattern M(nv, nv);
  M.setFromTriplets(m.begin(), m.end());
  std::vector<int> touched1 = Range(6, 12);
  touched1.push_back(20);
  std::vector<int> both = Range(0, 12);
  const kernels::ContactJacobian J = Touching(nv, {both, Range(6, 12), touched1});
  const Components bodies = FindBodies(nv, M.outerIndexPtr(), M.innerIndexPtr(), J);
  // Bodies 0 and 1 (one each), body 2's six untouched velocities (one each: nothing tells them apart), the arm.
  ASSERT_EQ(bodies.count, 2 + 6 + 1);
  for (int j = 0; j < 6; ++j) {
    EXPECT_EQ(bodies.of[j], 0) << j;
    EXPECT_EQ(bodies.of[6 + j], 1) << 6 + j;
    EXPECT_EQ(bodies.of[12 + j], 2 + j) << 12 + j;
  }
  for (int j = 18; j < nv; ++j) EXPECT_EQ(bodies.of[j], 8) << j;

  // Two bodies that touch only each other are touched by the same contacts: one body.
  const Components pair = FindBodies(nv, M.outerIndexPtr(), M.innerIndexPtr(), Touching(nv, {both}));
  for (int j = 0; j < 12; ++j) EXPECT_EQ(pair.of[j], 0) << j;
}

}  // namespace
}  // namespace tamsi::internal
