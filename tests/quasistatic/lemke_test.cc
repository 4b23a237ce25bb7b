// Tests of the lexicographic Lemke solver (spec quasistatic.md §9) against closed forms, complementary-basis
// enumeration on small random problems, and Siconos Numerics' lexicographic Lemke as an oracle (§10).
#include "tamsi/quasistatic/lemke.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <stdexcept>

#include "tamsi/quasistatic/model.h"

extern "C" {
#include <LCP_Solvers.h>
#include <LinearComplementarityProblem.h>
#include <NonSmoothDrivers.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <lcp_cst.h>
}

namespace tamsi::quasistatic {
namespace {

// Siconos SICONOS_LCP_LEMKE on (M, q). Returns the driver's info (0 = success) and writes z.
int SiconosLemke(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, Eigen::VectorXd* z) {
  const int n = static_cast<int>(q.size());
  LinearComplementarityProblem* problem = newLCP();
  problem->size = n;
  auto* data = static_cast<double*>(std::malloc(sizeof(double) * n * n));  // adopted by the NumericsMatrix
  Eigen::Map<Eigen::MatrixXd>(data, n, n) = M;                             // column-major
  problem->M = NM_create_from_data(NM_DENSE, n, n, data);
  problem->q = static_cast<double*>(std::malloc(sizeof(double) * n));
  Eigen::Map<Eigen::VectorXd>(problem->q, n) = q;
  SolverOptions* options = solver_options_create(SICONOS_LCP_LEMKE);
  options->iparam[SICONOS_IPARAM_MAX_ITER] = 10000;
  options->dparam[SICONOS_DPARAM_TOL] = 1e-12;
  z->setZero(n);
  Eigen::VectorXd w(n);
  const int info = linearComplementarity_driver(problem, z->data(), w.data(), options);
  solver_options_delete(options);
  freeLinearComplementarityProblem(problem);
  return info;
}

// All solutions' existence by enumeration of the 2^n complementary bases: returns true and one solution if any
// basis gives z ≥ 0, w ≥ 0 (within 1e-10, residual-checked).
bool EnumerateLcp(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, Eigen::VectorXd* z_out) {
  const int n = static_cast<int>(q.size());
  for (int mask = 0; mask < (1 << n); ++mask) {
    std::vector<int> basic;
    for (int i = 0; i < n; ++i) {
      if (mask & (1 << i)) basic.push_back(i);
    }
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
    if (!basic.empty()) {
      const int k = static_cast<int>(basic.size());
      Eigen::MatrixXd Mbb(k, k);
      Eigen::VectorXd qb(k);
      for (int r = 0; r < k; ++r) {
        qb(r) = q(basic[r]);
        for (int c = 0; c < k; ++c) Mbb(r, c) = M(basic[r], basic[c]);
      }
      Eigen::FullPivLU<Eigen::MatrixXd> lu(Mbb);
      if (!lu.isInvertible()) continue;
      const Eigen::VectorXd zb = lu.solve(-qb);
      for (int r = 0; r < k; ++r) z(basic[r]) = zb(r);
    }
    if (LcpResidual(M, q, z) < 1e-10) {
      *z_out = z;
      return true;
    }
  }
  return false;
}

// A random friction LCP of the model (spec §3) with m contacts, nm manipulator coordinates: copositive.
void RandomContactLcp(std::mt19937* rng, int m, int nm, double epsilon, Eigen::MatrixXd* M, Eigen::VectorXd* q) {
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  ContactSet c;
  const int nv = 3 + nm;
  c.phi = Eigen::VectorXd::Zero(m);
  c.mu.resize(m);
  c.Jn.resize(m, nv);
  c.Jt.resize(2 * m, nv);
  for (int i = 0; i < m; ++i) {
    c.mu(i) = unit(*rng);
    for (int j = 0; j < nv; ++j) {
      c.Jn(i, j) = g(*rng);
      c.Jt(2 * i, j) = g(*rng);
    }
    c.Jt.row(2 * i + 1) = -c.Jt.row(2 * i);
  }
  Eigen::Matrix3d R = Eigen::Matrix3d::NullaryExpr([&]() { return g(*rng); });
  const Eigen::Matrix3d A = R * R.transpose() + 0.1 * Eigen::Matrix3d::Identity();
  const Eigen::MatrixXd B = epsilon * Eigen::MatrixXd::Identity(nm, nm);
  Eigen::VectorXd u(nm);
  for (int j = 0; j < nm; ++j) u(j) = g(*rng);
  const ContactLcp lcp = BuildVelocityLcp(c, A, B, u);
  *M = lcp.M;
  *q = lcp.q;
}

TEST(QuasistaticLemkeTest, SolvesSpdProblemFromSpec) {
  Eigen::MatrixXd M(3, 3);
  M << 4, 1, 0, 1, 4, 1, 0, 1, 4;
  const LemkeResult r = SolveLcp(M, Eigen::Vector3d(-1, 2, -3));
  ASSERT_EQ(r.status, LemkeStatus::kSolved);
  EXPECT_NEAR(r.z(0), 0.25, 1e-14);
  EXPECT_NEAR(r.z(1), 0.0, 1e-14);
  EXPECT_NEAR(r.z(2), 0.75, 1e-14);
  EXPECT_NEAR(r.w(1), 3.0, 1e-14);  // w = M z + q = (0, 0.25 + 0.75 + 2, 0)
  EXPECT_LT(r.residual, 1e-15);
}

TEST(QuasistaticLemkeTest, NonNegativeQGivesZeroWithoutPivots) {
  const LemkeResult r = SolveLcp(-Eigen::MatrixXd::Identity(2, 2), Eigen::Vector2d(0.0, 3.0));
  EXPECT_EQ(r.status, LemkeStatus::kSolved);
  EXPECT_EQ(r.iterations, 0);
  EXPECT_EQ(r.z.norm(), 0.0);
}

TEST(QuasistaticLemkeTest, InfeasibleProblemEndsOnRay) {
  // Spec §10: M = [[−1, 0], [0, 1]], q = (−1, 1) has no solution (w_1 = −z_1 − 1 < 0).
  Eigen::MatrixXd M(2, 2);
  M << -1, 0, 0, 1;
  const LemkeResult r = SolveLcp(M, Eigen::Vector2d(-1, 1));
  EXPECT_EQ(r.status, LemkeStatus::kRayTermination);
  Eigen::VectorXd z;
  EXPECT_FALSE(EnumerateLcp(M, Eigen::Vector2d(-1, 1), &z));
  EXPECT_NE(SiconosLemke(M, Eigen::Vector2d(-1, 1), &z), 0);
}

TEST(QuasistaticLemkeTest, ZeroMatrixWithNegativeQIsInfeasible) {
  const LemkeResult r = SolveLcp(Eigen::MatrixXd::Zero(3, 3), Eigen::Vector3d(1, -1, 0));
  EXPECT_EQ(r.status, LemkeStatus::kRayTermination);
}

TEST(QuasistaticLemkeTest, DegenerateTiesAreResolved) {
  // Rank-one M with tied entries of q: solutions are z ≥ 0 with z1 + z2 + z3 = 1 (a whole face).
  const Eigen::MatrixXd M = Eigen::MatrixXd::Ones(3, 3);
  const LemkeResult r = SolveLcp(M, Eigen::Vector3d(-1, -1, -1));
  ASSERT_EQ(r.status, LemkeStatus::kSolved);
  EXPECT_NEAR(r.z.sum(), 1.0, 1e-14);
  EXPECT_GE(r.z.minCoeff(), 0.0);
  EXPECT_LT(r.residual, 1e-14);
  // A degenerate q with zeros: z = 0 is not a solution because of the −1, and the zero rows tie at every pivot.
  Eigen::MatrixXd M2(4, 4);
  M2 << 1, 2, 0, 0, 2, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1;
  const LemkeResult r2 = SolveLcp(M2, Eigen::Vector4d(-1, 0, 0, -1));
  ASSERT_EQ(r2.status, LemkeStatus::kSolved);
  EXPECT_LT(r2.residual, 1e-14);
}

TEST(QuasistaticLemkeTest, IterationCapIsReported) {
  Eigen::MatrixXd M(3, 3);
  M << 4, 1, 0, 1, 4, 1, 0, 1, 4;
  LemkeOptions options;
  options.max_iterations = 1;
  EXPECT_EQ(SolveLcp(M, Eigen::Vector3d(-1, 2, -3), options).status, LemkeStatus::kMaxIterations);
}

TEST(QuasistaticLemkeTest, InvalidInputThrowsNamingTheField) {
  try {
    SolveLcp(Eigen::MatrixXd::Zero(2, 3), Eigen::Vector2d::Zero());
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("M must be square"), std::string::npos);
  }
  EXPECT_THROW(SolveLcp(Eigen::MatrixXd::Identity(2, 2), Eigen::Vector3d::Zero()), std::invalid_argument);
  EXPECT_THROW(SolveLcp(Eigen::MatrixXd::Identity(2, 2), Eigen::Vector2d(NAN, 0)), std::invalid_argument);
  LemkeOptions bad;
  bad.residual_tolerance = 0.0;
  std::string why;
  EXPECT_FALSE(bad.IsValid(&why));
  EXPECT_NE(why.find("residual_tolerance"), std::string::npos);
}

TEST(QuasistaticLemkeTest, RandomPMatricesMatchEnumerationAndSiconos) {
  std::mt19937 rng(7);
  std::normal_distribution<double> g;
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 2 + trial % 9;
    // M = R Rᵀ + 0.1 I + S (S skew): positive definite, so a P-matrix and the solution is unique.
    const Eigen::MatrixXd R = Eigen::MatrixXd::NullaryExpr(n, n, [&]() { return g(rng); });
    const Eigen::MatrixXd S = Eigen::MatrixXd::NullaryExpr(n, n, [&]() { return g(rng); });
    const Eigen::MatrixXd M = R * R.transpose() + 0.1 * Eigen::MatrixXd::Identity(n, n) + (S - S.transpose());
    const Eigen::VectorXd q = Eigen::VectorXd::NullaryExpr(n, [&]() { return g(rng); });
    const LemkeResult r = SolveLcp(M, q);
    ASSERT_EQ(r.status, LemkeStatus::kSolved) << "trial " << trial;
    Eigen::VectorXd z_enum, z_siconos;
    ASSERT_TRUE(EnumerateLcp(M, q, &z_enum));
    EXPECT_LT((r.z - z_enum).cwiseAbs().maxCoeff(), 1e-9 * std::max(1.0, z_enum.norm())) << "trial " << trial;
    ASSERT_EQ(SiconosLemke(M, q, &z_siconos), 0);
    EXPECT_LT((r.z - z_siconos).cwiseAbs().maxCoeff(), 1e-9 * std::max(1.0, z_enum.norm())) << "trial " << trial;
  }
}

TEST(QuasistaticLemkeTest, RandomCopositiveContactLcpsAgreeWithEnumerationAndSiconos) {
  // Model LCPs (copositive, degenerate: zero γ block, paired ±t̂ rows). With ε > 0 a solution always exists
  // (spec §5.3); with ε = 0 it may not. Lemke must solve whenever enumeration finds a solution, and report a
  // ray exactly when none exists. Solutions need not be unique: compare the object velocity A J_oᵀλ via w.
  std::mt19937 rng(11);
  int solved = 0, infeasible = 0, oracle_solved = 0;
  for (int trial = 0; trial < 80; ++trial) {
    const int m = 1 + trial % 3;         // LCP size 4, 8, 12
    const int nm = 1 + (trial / 3) % 3;  // fewer manipulator coordinates than contacts → squeezes at ε = 0
    const double epsilon = trial % 2 == 0 ? 0.0 : 0.05;
    Eigen::MatrixXd M;
    Eigen::VectorXd q;
    RandomContactLcp(&rng, m, nm, epsilon, &M, &q);
    Eigen::VectorXd z_enum, z_siconos;
    const bool exists = EnumerateLcp(M, q, &z_enum);
    const LemkeResult r = SolveLcp(M, q);
    if (epsilon > 0.0) {
      EXPECT_TRUE(exists) << "trial " << trial;
    }
    if (exists) {
      ASSERT_EQ(r.status, LemkeStatus::kSolved) << "trial " << trial;
      EXPECT_LT(r.residual, 1e-10);
      ++solved;
      // The oracle can itself stop early on these degenerate problems; count where it succeeds.
      if (SiconosLemke(M, q, &z_siconos) == 0 && LcpResidual(M, q, z_siconos) < 1e-9) ++oracle_solved;
    } else {
      EXPECT_EQ(r.status, LemkeStatus::kRayTermination) << "trial " << trial;
      EXPECT_NE(SiconosLemke(M, q, &z_siconos), 0) << "trial " << trial;
      ++infeasible;
    }
  }
  EXPECT_GT(solved, 40);
  EXPECT_GT(infeasible, 0);  // the sample contains ε = 0 squeezes
  EXPECT_GE(oracle_solved, solved - 3) << "Siconos solved " << oracle_solved << " of " << solved;
}

}  // namespace
}  // namespace tamsi::quasistatic
