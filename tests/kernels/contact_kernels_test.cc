#include <gtest/gtest.h>
#include <tamsi/kernels/contact_kernels.h>
#include <tamsi/kernels/parallel.h>

#include <Eigen/Eigenvalues>
#include <cmath>

namespace tamsi::kernels {
namespace {

constexpr double kVs = 1e-4;
const double kThetaMax = M_PI / 3;

double Tals(Eigen::Vector2d v, Eigen::Vector2d dv) {
  return TalsAlpha(v, dv, kVs, std::cos(kThetaMax), std::tan(kThetaMax));
}

TEST(TalsAlpha, FromStictionAcceptsFullStep) { EXPECT_EQ(Tals({0.5 * kVs, 0.0}, {0.3, 0.2}), 1.0); }

TEST(TalsAlpha, SlidingToStictionAcceptsFullStep) { EXPECT_EQ(Tals({0.1, 0.0}, {-0.1 + 0.2 * kVs, 0.1 * kVs}), 1.0); }

TEST(TalsAlpha, CrossingTheStictionDiskStopsAtTheClosestPoint) {
  // Fig. 2 in 1-D: from +0.1 m/s to −0.2 m/s passes through the disk; α puts the iterate at 0.
  const Eigen::Vector2d v(0.1, 0.0), dv(-0.3, 0.0);
  const double alpha = Tals(v, dv);
  EXPECT_NEAR(alpha, 1.0 / 3.0, 1e-15);
  EXPECT_NEAR((v + alpha * dv).dot(dv), 0.0, 1e-15);  // v^{k+1} · Δv = 0 (Sec. III-A)
  // Off-centre crossing: the closest point is inside the disk, α < 1 and the new iterate is in stiction.
  const Eigen::Vector2d dv2(-0.2, 0.5 * kVs);
  const double alpha2 = Tals(v, dv2);
  EXPECT_LT(alpha2, 1.0);
  EXPECT_LT((v + alpha2 * dv2).norm(), kVs);
  EXPECT_NEAR((v + alpha2 * dv2).dot(dv2), 0.0, 1e-15);
}

TEST(TalsAlpha, LineMissingTheDiskIsLimitedByAngle) {
  // Sliding along +x, update turns the velocity by 90° without approaching the disk.
  const Eigen::Vector2d v(0.1, 0.0), dv(-0.1, 0.1);
  const double alpha = Tals(v, dv);
  const Eigen::Vector2d v1 = v + alpha * dv;
  EXPECT_LT(alpha, 1.0);
  EXPECT_NEAR(std::atan2(v1.y(), v1.x()), kThetaMax, 1e-12);
}

TEST(TalsAlpha, SmallAngleChangeIsAccepted) {
  EXPECT_EQ(Tals({0.1, 0.0}, {0.05, 0.05}), 1.0);  // 18° turn < 60°
}

TEST(TalsAlpha, ApproachingButNotReachingTheDiskIsAccepted) {
  // Heads for the origin but stops at 0.05 m/s, far outside the disk: no transition, no turn.
  EXPECT_EQ(Tals({0.1, 0.0}, {-0.05, 0.0}), 1.0);
}

TEST(HuntCrossleyForce, MatchesEquation5WithFirstOrderPenetration) {
  const double k = 1e4, d = 2.0, delta0 = 1e-3, h = 1e-3, vn = -0.1;
  const NormalForce f = HuntCrossleyForce(k, d, delta0, h, vn);
  const double delta = delta0 - h * vn;  // eq. 19
  EXPECT_DOUBLE_EQ(f.pi, k * (1 - d * vn) * delta);
  const double eps = 1e-7;
  const double fd =
      (HuntCrossleyForce(k, d, delta0, h, vn + eps).pi - HuntCrossleyForce(k, d, delta0, h, vn - eps).pi) / (2 * eps);
  EXPECT_NEAR(f.dpi_dvn, fd, 1e-6 * std::abs(fd));
  EXPECT_LT(f.dpi_dvn, 0.0);
}

TEST(HuntCrossleyForce, VanishesWhenSeparatedOrRebounding) {
  EXPECT_EQ(HuntCrossleyForce(1e4, 2.0, -1e-3, 1e-3, 0.0).pi, 0.0);  // gap
  EXPECT_EQ(HuntCrossleyForce(1e4, 2.0, 1e-3, 1e-3, 1.0).pi, 0.0);   // 1 − d vn < 0
  EXPECT_EQ(HuntCrossleyForce(1e4, 2.0, 1e-3, 1e-3, 2.0).dpi_dvn, 0.0);
}

class FrictionSlopeTest : public testing::TestWithParam<FrictionRegularization> {};

TEST_P(FrictionSlopeTest, GIsMuTildeOverSAndSdgItsDerivative) {
  const double mu = 0.7;
  auto mu_tilde = [&](double s) { return s * RegularizedFrictionSlope(mu, s, GetParam()).g; };
  for (double s : {0.1, 0.5, 0.9, 1.5, 3.0}) {
    const FrictionSlope slope = RegularizedFrictionSlope(mu, s, GetParam());
    const double eps = 1e-6;
    const double dg = (mu_tilde(s + eps) / (s + eps) - mu_tilde(s - eps) / (s - eps)) / (2 * eps);
    EXPECT_NEAR(slope.s_dg, s * dg, 1e-8) << "s = " << s;
  }
  EXPECT_DOUBLE_EQ(mu_tilde(2.0), mu);  // saturated: Coulomb
  EXPECT_NEAR(mu_tilde(1.0), mu, 1e-15);
  EXPECT_GE(mu_tilde(0.5), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Regularizations, FrictionSlopeTest,
                         testing::Values(FrictionRegularization::kLinear, FrictionRegularization::kSmooth));

TEST(FrictionSlope, LinearIsTheEquation7Ramp) {
  EXPECT_DOUBLE_EQ(0.4 * RegularizedFrictionSlope(0.8, 0.4, FrictionRegularization::kLinear).g, 0.8 * 0.4);
}

/// The two contacts of the sliding-block tests: approaching (vn = −0.01 m/s) with δ0 = 1 mm, k = 1e5 N/m,
/// d = 2 s/m, μ = 0.6; contact 0 in stiction, contact 1 sliding at 0.05 m/s.
struct TwoContacts {
  Eigen::VectorXd k = Eigen::VectorXd::Constant(2, 1e5), d = Eigen::VectorXd::Constant(2, 2.0);
  Eigen::VectorXd mu = Eigen::VectorXd::Constant(2, 0.6), delta0 = Eigen::VectorXd::Constant(2, 1e-3);
  Eigen::VectorXd frozen = Eigen::VectorXd::Zero(2), vn = Eigen::VectorXd::Constant(2, -0.01);
  Eigen::VectorXd vt = (Eigen::VectorXd(4) << 0.3 * kVs, -0.4 * kVs, 0.03, -0.04).finished();

  /// CalcContactForces on these contacts, one thread, two-way at h = 1 ms.
  void Calc(FrictionRegularization regularization, Eigen::VectorXd* pi, Eigen::VectorXd* ft, Eigen::VectorXd* blocks,
            const SlidingBlock* sliding_block = nullptr, const Eigen::VectorXd* dual = nullptr) const {
    const ContactModel model{1e-3, kVs, regularization, true};
    CalcContactForces(ThreadBudget(1), model, k, d, mu, delta0, frozen, vn, vt, pi, ft, blocks, sliding_block, dual);
  }
};

// A solution's forces alone (blocks = nullptr, TamsiSolver's last evaluation): bitwise those computed with the blocks,
// a Hunt–Crossley compression force (eq. 5) and a sliding contact's friction at μ π opposite its slip (eq. 6).
TEST(CalcContactForces, ForcesWithoutBlocksAreTheForcesWithThem) {
  const TwoContacts c;
  Eigen::VectorXd pi, ft, blocks, pi_alone, ft_alone;
  c.Calc(FrictionRegularization::kLinear, &pi, &ft, &blocks);
  c.Calc(FrictionRegularization::kLinear, &pi_alone, &ft_alone, nullptr);
  EXPECT_EQ(pi_alone, pi);
  EXPECT_EQ(ft_alone, ft);
  const double compression = 1e-3 + 1e-3 * 0.01;  // δ0 − h vn
  EXPECT_NEAR(pi_alone[1], 1e5 * compression * (1.0 + 2.0 * 0.01), 1e-12);
  EXPECT_NEAR(ft_alone.tail<2>().norm(), 0.6 * pi_alone[1], 1e-12);
  EXPECT_LT(ft_alone.tail<2>().dot(c.vt.tail<2>()), 0.0);
}

// Secant blocks (the solver's safeguard): a sliding contact's tangential block becomes (π μ̃(s)/‖vt‖) I, without the
// tangent's s g' v̂v̂ᵀ term; stiction blocks, the W_tn column and the forces are those of eq. 6, 16, 22.
TEST(CalcContactForces, SecantBlocksAreIsotropicForSlidingContactsOnly) {
  for (FrictionRegularization regularization : {FrictionRegularization::kLinear, FrictionRegularization::kSmooth}) {
    SCOPED_TRACE(static_cast<int>(regularization));
    const TwoContacts c;
    const Eigen::VectorXd& vt = c.vt;
    Eigen::VectorXd pi, ft, tangent, secant_blocks, pi_s, ft_s;
    c.Calc(regularization, &pi, &ft, &tangent);
    const SlidingBlock all[2] = {SlidingBlock::kSecant, SlidingBlock::kSecant};
    c.Calc(regularization, &pi_s, &ft_s, &secant_blocks, all);
    EXPECT_EQ(pi_s, pi);
    EXPECT_EQ(ft_s, ft);
    EXPECT_EQ(secant_blocks.head<9>(), tangent.head<9>());
    using Block = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>;
    const Block Bt(tangent.data() + 9), Bs(secant_blocks.data() + 9);
    EXPECT_EQ(Bs.col(0), Bt.col(0));
    const double expected = pi[1] * 0.6 / 0.05;  // π μ / ‖vt‖ (μ̃ = μ when sliding)
    EXPECT_NEAR(Bs(1, 1), expected, 1e-12 * expected);
    EXPECT_NEAR(Bs(2, 2), expected, 1e-12 * expected);
    EXPECT_EQ(Bs(1, 2), 0.0);
    // The tangent's stiffness along the slip v̂ is zero (linear) or reduced (smooth); across v̂ both are the secant.
    const Eigen::Vector2d slip = vt.tail<2>().normalized(), across(-slip.y(), slip.x());
    const Eigen::Matrix2d Tt = Bt.block<2, 2>(1, 1);
    EXPECT_LT(slip.dot(Tt * slip), 0.5 * expected);
    EXPECT_NEAR(across.dot(Tt * across), expected, 1e-9 * expected);
  }
}

// Primal–dual blocks: with the dual at its solution value w = v̂ they are the tangent's (eq. 16, 22) to round-off;
// with w = −v̂ (a slip about to reverse) the block along v̂ is 2 π μ/‖vt‖ where the tangent has none; stiction blocks
// and forces never depend on w; the block stays symmetric positive semidefinite for any ‖w‖ ≤ 1.
TEST(CalcContactForces, PrimalDualBlocksAreTheTangentAtTheSolutionAndStiffAlongAReversingSlip) {
  for (FrictionRegularization regularization : {FrictionRegularization::kLinear, FrictionRegularization::kSmooth}) {
    SCOPED_TRACE(static_cast<int>(regularization));
    const TwoContacts c;
    const Eigen::VectorXd& vt = c.vt;
    const Eigen::Vector2d slip = vt.tail<2>().normalized(), across(-slip.y(), slip.x());
    const SlidingBlock all[2] = {SlidingBlock::kPrimalDual, SlidingBlock::kPrimalDual};
    Eigen::VectorXd pi, ft, tangent;
    c.Calc(regularization, &pi, &ft, &tangent);
    using Block = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>;
    const Block Bt(tangent.data() + 9);
    const double secant = pi[1] * 0.6 / 0.05;  // π μ / ‖vt‖
    for (const Eigen::Vector2d& w : {Eigen::Vector2d(slip), Eigen::Vector2d(-slip), Eigen::Vector2d(0.6 * across)}) {
      Eigen::VectorXd dual(4), pi_d, ft_d, blocks;
      dual << 0.9, 0.1, w;  // contact 0's dual is ignored: it is in stiction
      c.Calc(regularization, &pi_d, &ft_d, &blocks, all, &dual);
      EXPECT_EQ(pi_d, pi);
      EXPECT_EQ(ft_d, ft);
      EXPECT_EQ(blocks.head<9>(), tangent.head<9>());
      const Block Bd(blocks.data() + 9);
      EXPECT_EQ(Bd(0, 0), Bt(0, 0));
      const Eigen::Matrix2d T = Bd.block<2, 2>(1, 1);
      EXPECT_EQ(T(0, 1), T(1, 0));
      EXPECT_GE(Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d>(T).eigenvalues().minCoeff(), -1e-12 * secant);
      // W_tn column: μ w dπ/dvn.
      const Eigen::Vector2d wtn = Bd.block<2, 1>(1, 0);
      EXPECT_LT((wtn - 0.6 * (-Bt(0, 0)) * w).norm(), 1e-12 * std::abs(0.6 * Bt(0, 0)));
    }
    // w = v̂: the tangent's blocks.
    Eigen::VectorXd dual(4), pi_d, ft_d, blocks;
    dual << 0.0, 0.0, slip;
    c.Calc(regularization, &pi_d, &ft_d, &blocks, all, &dual);
    EXPECT_LT((Block(blocks.data() + 9) - Bt).norm(), 1e-12 * secant);
    // w = −v̂: stiffness 2 π μ/‖vt‖ along the slip, π μ/‖vt‖ across it.
    dual.tail<2>() = -slip;
    c.Calc(regularization, &pi_d, &ft_d, &blocks, all, &dual);
    const Eigen::Matrix2d T = Block(blocks.data() + 9).block<2, 2>(1, 1);
    EXPECT_NEAR(slip.dot(T * slip), 2.0 * secant, 1e-12 * secant);
    EXPECT_NEAR(across.dot(T * across), secant, 1e-12 * secant);
  }
}

// The dual at a velocity: vt/v_s in stiction, the slip direction v̂ when sliding; the update's fixed point there.
TEST(PrimalDualAt, StictionScaledAndSlipDirection) {
  const Eigen::Vector2d stick(0.3 * kVs, -0.4 * kVs), slide(0.03, -0.04);
  EXPECT_LT((PrimalDualAt(stick, kVs) - Eigen::Vector2d(0.3, -0.4)).norm(), 1e-15);
  EXPECT_LT((PrimalDualAt(slide, kVs) - slide.normalized()).norm(), 1e-15);
  EXPECT_LT(
      (UpdatePrimalDual(slide, Eigen::Vector2d::Zero(), PrimalDualAt(slide, kVs), kVs) - slide.normalized()).norm(),
      1e-15);
}

// The dual update: a fixed point at the solution (w = v̂, Δvt = 0); from stiction w = (vt + Δvt)/v_s projected onto
// the unit disk; from sliding with w = v̂ the first-order change of the slip direction, (I − v̂v̂ᵀ)Δvt/‖vt‖.
TEST(UpdatePrimalDual, FixedPointProjectionAndLinearizedDirection) {
  const Eigen::Vector2d vt(0.03, -0.04), slip = vt.normalized();
  EXPECT_LT((UpdatePrimalDual(vt, Eigen::Vector2d::Zero(), slip, kVs) - slip).norm(), 1e-15);
  const Eigen::Vector2d stick(0.2 * kVs, 0.1 * kVs);
  const Eigen::Vector2d inside = UpdatePrimalDual(stick, Eigen::Vector2d(0.1 * kVs, 0.0), Eigen::Vector2d::Zero(), kVs);
  EXPECT_LT((inside - Eigen::Vector2d(0.3, 0.1)).norm(), 1e-12);
  const Eigen::Vector2d outside =
      UpdatePrimalDual(stick, Eigen::Vector2d(3 * kVs, 4 * kVs), Eigen::Vector2d::Zero(), kVs);
  EXPECT_NEAR(outside.norm(), 1.0, 1e-15);
  const Eigen::Vector2d dvt(1e-3, 2e-3);
  const Eigen::Vector2d turned = UpdatePrimalDual(vt, dvt, slip, kVs);
  const Eigen::Vector2d expected = slip + (dvt - slip * slip.dot(dvt)) / vt.norm();
  EXPECT_LT((turned - expected / std::max(1.0, expected.norm())).norm(), 1e-14);
}

}  // namespace
}  // namespace tamsi::kernels
