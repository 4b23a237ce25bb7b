#include <gtest/gtest.h>
#include <tamsi/kernels/contact_kernels.h>

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

}  // namespace
}  // namespace tamsi::kernels
