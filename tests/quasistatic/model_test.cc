// Tests of the planar geometry, the velocity and time-stepping LCPs (spec quasistatic.md §3, §4, §8) and the driver.
#include "tamsi/quasistatic/model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <stdexcept>

#include "tamsi/quasistatic/geometry.h"
#include "tamsi/quasistatic/simulator.h"

namespace tamsi::quasistatic {
namespace {

System DiskWithPointFingers(int fingers) {
  std::vector<Shape> shapes(fingers, PointShape{});
  std::vector<ContactPair> pairs;
  for (int k = 0; k < fingers; ++k) pairs.push_back({BodyId::Object(), BodyId::Manipulator(k), 1.0});
  return System(DiskShape{1.0}, std::make_shared<FreeFingers>(std::vector<bool>(fingers, false)), shapes, {}, pairs);
}

ModelParameters Unit(int nm, double epsilon) {
  ModelParameters p;
  p.gain = Eigen::MatrixXd::Identity(nm, nm);
  p.epsilon = epsilon;
  return p;
}

TEST(QuasistaticGeometryTest, GapsOfEachShapePair) {
  std::vector<ContactPoint> c;
  AppendContacts(DiskShape{1.0}, Eigen::Vector3d(0, 0, 0.3), PointShape{}, Eigen::Vector3d(0, 3, 0), &c);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_DOUBLE_EQ(c[0].phi, 2.0);
  EXPECT_NEAR(c[0].normal.y(), 1.0, 1e-15);
  EXPECT_NEAR(c[0].point_a.y(), 1.0, 1e-15);
  // Vertex inside a 2 × 2 square, 0.25 from the right edge: φ = −0.25 with the right edge's normal.
  c.clear();
  AppendContacts(PointShape{}, Eigen::Vector3d(0.75, 0.1, 0), Rectangle(-1, 1, -1, 1), Eigen::Vector3d::Zero(), &c);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_TRUE(c[0].swapped);
  EXPECT_NEAR(c[0].phi, -0.25, 1e-15);
  EXPECT_NEAR(c[0].normal.x(), 1.0, 1e-15);
  // The same square turned by 90°: counter-clockwise order is kept, so the gap is unchanged.
  c.clear();
  AppendContacts(Rectangle(-1, 1, -1, 1), Eigen::Vector3d(0, 0, M_PI / 2), PointShape{}, Eigen::Vector3d(0.75, 0.1, 0),
                 &c);
  EXPECT_NEAR(c[0].phi, -0.25, 1e-14);
  // Disk on a floor y = 0 at height 1.5: φ = 0.5; polygon–polygon gives n_a + n_b candidates.
  c.clear();
  AppendContacts(DiskShape{1.0}, Eigen::Vector3d(4, 1.5, 0), HalfPlaneShape{}, Eigen::Vector3d::Zero(), &c);
  EXPECT_NEAR(c[0].phi, 0.5, 1e-15);
  EXPECT_EQ(NumContactCandidates(Rectangle(-1, 1, -3, 3), PolygonShape{{{1, -1}, {1, 1}, {-1, 1}}}), 7);
}

TEST(QuasistaticGeometryTest, InvalidShapesThrow) {
  // The repository's mirrored slot block is clockwise (spec §7.3, defect 1): rejected with the field named.
  const PolygonShape clockwise{{{1.01, -10}, {1.01, 0}, {19.01, 0}, {19.01, -10}}};
  try {
    ValidateShape(clockwise);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("counter-clockwise"), std::string::npos);
  }
  EXPECT_THROW(ValidateShape(DiskShape{0.0}), std::invalid_argument);
  EXPECT_THROW(NumContactCandidates(PointShape{}, PointShape{}), std::invalid_argument);
}

TEST(QuasistaticModelTest, NormalJacobianIsTheGapDerivative) {
  // J_n v = φ̇ for vertex–polygon contacts between a rotating peg and a rotating triangle (central differences).
  auto kinematics = std::make_shared<FreeFingers>(std::vector<bool>{true});
  System system(Rectangle(-1, 1, -3, 3), kinematics, {PolygonShape{{{1, -1}, {1, 1}, {-1, 1}}}}, {},
                {{BodyId::Object(), BodyId::Manipulator(0), 1.0}});
  const Eigen::Vector3d q_o(0.2, -0.1, 0.4);
  const Eigen::Vector3d q_m(1.3, 2.2, 2.0);
  const Eigen::Matrix<double, 6, 1> v = (Eigen::Matrix<double, 6, 1>() << 0.3, -0.7, 0.5, -0.2, 0.9, -1.1).finished();
  const ContactSet c = system.EvaluateContacts(q_o, q_m);
  const double dt = 1e-6;
  const Eigen::VectorXd phi_plus = system.EvaluateGaps(q_o + dt * v.head<3>(), q_m + dt * v.tail<3>());
  const Eigen::VectorXd phi_minus = system.EvaluateGaps(q_o - dt * v.head<3>(), q_m - dt * v.tail<3>());
  const Eigen::VectorXd rate = (phi_plus - phi_minus) / (2 * dt);
  ASSERT_EQ(c.size(), 7);
  for (int i = 0; i < c.size(); ++i) EXPECT_NEAR((c.Jn.row(i) * v)(0), rate(i), 1e-7) << "contact " << i;
}

TEST(QuasistaticModelTest, CentralPushMatchesClosedForm) {
  // Spec §8.1: λ_n = 1/(1+ε), q̇_o = (0, −1/(1+ε), 0), q̇_m = (0, −1/(1+ε)), λ_t = 0.
  const System system = DiskWithPointFingers(1);
  for (double epsilon : {0.0, 0.01, 0.1, 1.0}) {
    const VelocitySolution s = SolveVelocityLcp(system, Unit(2, epsilon), Eigen::Vector3d::Zero(),
                                                Eigen::Vector2d(0, 1), Eigen::Vector2d(0, -1));
    ASSERT_EQ(s.lcp.status, LemkeStatus::kSolved);
    const double expected = 1.0 / (1.0 + epsilon);
    EXPECT_NEAR(s.lambda_n(0), expected, 1e-14);
    EXPECT_NEAR(s.object_velocity(1), -expected, 1e-14);
    EXPECT_NEAR(s.manipulator_velocity(1), -expected, 1e-14);
    EXPECT_NEAR(s.lambda_t.norm(), 0.0, 1e-14);
  }
}

TEST(QuasistaticModelTest, AntipodalSqueezeNeedsFiniteFeedback) {
  // Spec §8.2: fingers at (±1, 0) squeezing. ε = 0: no solution. ε > 0: λ_n = 1/ε, nothing moves; Λ_n = h/ε.
  const System system = DiskWithPointFingers(2);
  const Eigen::Vector4d q_m(1, 0, -1, 0), u(-1, 0, 1, 0);
  const VelocitySolution rigid = SolveVelocityLcp(system, Unit(4, 0.0), Eigen::Vector3d::Zero(), q_m, u);
  EXPECT_EQ(rigid.lcp.status, LemkeStatus::kRayTermination);
  for (double epsilon : {0.5, 1e-3, 1e-6}) {
    const VelocitySolution s = SolveVelocityLcp(system, Unit(4, epsilon), Eigen::Vector3d::Zero(), q_m, u);
    ASSERT_EQ(s.lcp.status, LemkeStatus::kSolved);
    EXPECT_NEAR(s.lambda_n(0), 1.0 / epsilon, 1e-9 / epsilon);
    EXPECT_NEAR(s.lambda_n(1), 1.0 / epsilon, 1e-9 / epsilon);
    EXPECT_NEAR(s.object_velocity.norm(), 0.0, 1e-9);
    EXPECT_NEAR(s.manipulator_velocity.norm(), 0.0, 1e-9);
    const ContactSet c = system.EvaluateContacts(Eigen::Vector3d::Zero(), q_m);
    const double h = 0.025;
    const ModelParameters p = Unit(4, epsilon);
    const ContactLcp lcp = BuildTimeSteppingLcp(c, p.WorldLimitSurface(0), p.Compliance(), u, h);
    const LemkeResult r = SolveLcp(lcp.M, lcp.q);
    ASSERT_EQ(r.status, LemkeStatus::kSolved);
    EXPECT_NEAR(r.z(0), h / epsilon, 1e-9 * h / epsilon);
  }
}

TEST(QuasistaticModelTest, ScalingAAndBTogetherScalesOnlyTheForces) {
  // Spec §2: A → sA, B → sB leaves the motion and scales λ by 1/s. Lopsided two-finger push with friction.
  const System system = DiskWithPointFingers(2);
  const Eigen::Vector3d q_o(0, 0, 0);
  const Eigen::Vector4d q_m(std::sin(0.5), std::cos(0.5), -std::sin(0.3), std::cos(0.3)), u(0.2, -2, 0, -1);
  ModelParameters p = Unit(4, 0.3);
  p.limit_surface = Eigen::Vector3d(1.0, 2.0, 0.7).asDiagonal();
  const VelocitySolution a = SolveVelocityLcp(system, p, q_o, q_m, u);
  const double s = 8.0;
  p.limit_surface *= s;
  p.epsilon *= s;
  const VelocitySolution b = SolveVelocityLcp(system, p, q_o, q_m, u);
  ASSERT_EQ(a.lcp.status, LemkeStatus::kSolved);
  ASSERT_EQ(b.lcp.status, LemkeStatus::kSolved);
  EXPECT_LT((a.object_velocity - b.object_velocity).norm(), 1e-12);
  EXPECT_LT((a.manipulator_velocity - b.manipulator_velocity).norm(), 1e-12);
  EXPECT_LT((a.lambda_n / s - b.lambda_n).norm(), 1e-12);
  EXPECT_GT(a.lambda_n.maxCoeff(), 0.1);
}

TEST(QuasistaticModelTest, RotatedSceneRotatesTheResult) {
  // Spec §8.7 with a non-isotropic A_b, which must turn with the object: rotate the whole scene by α.
  const System system = DiskWithPointFingers(2);
  ModelParameters p = Unit(4, 0.2);
  p.limit_surface << 1.0, 0.3, 0.1, 0.3, 0.5, 0.0, 0.1, 0.0, 0.8;
  const double alpha = 0.7;
  const Eigen::Matrix2d R = Rotation(alpha);
  const Eigen::Vector2d f1(std::sin(0.5), std::cos(0.5)), f2(-std::sin(0.3), std::cos(0.3));
  const Eigen::Vector2d u1(0.2, -2), u2(0, -1);
  const VelocitySolution a =
      SolveVelocityLcp(system, p, Eigen::Vector3d::Zero(), (Eigen::Vector4d() << f1, f2).finished(),
                       (Eigen::Vector4d() << u1, u2).finished());
  const VelocitySolution b =
      SolveVelocityLcp(system, p, Eigen::Vector3d(0, 0, alpha), (Eigen::Vector4d() << R * f1, R * f2).finished(),
                       (Eigen::Vector4d() << R * u1, R * u2).finished());
  ASSERT_EQ(a.lcp.status, LemkeStatus::kSolved);
  ASSERT_EQ(b.lcp.status, LemkeStatus::kSolved);
  EXPECT_LT((R * a.object_velocity.head<2>() - b.object_velocity.head<2>()).norm(), 1e-12);
  EXPECT_NEAR(a.object_velocity(2), b.object_velocity(2), 1e-12);
  EXPECT_GT(a.object_velocity.norm(), 0.1);
}

TEST(QuasistaticModelTest, TimeSteppingAgreesWithVelocityLcpForSmallSteps) {
  // Spec §8.8: with φ = 0, Λ/h → λ as h → 0 (here exactly, the LCP being homogeneous in h).
  const System system = DiskWithPointFingers(2);
  const Eigen::Vector4d q_m(std::sin(0.5), std::cos(0.5), -std::sin(0.3), std::cos(0.3)), u(0.2, -2, 0, -1);
  const ModelParameters p = Unit(4, 0.1);
  const VelocitySolution v = SolveVelocityLcp(system, p, Eigen::Vector3d::Zero(), q_m, u);
  const ContactSet c = system.EvaluateContacts(Eigen::Vector3d::Zero(), q_m);
  const double h = 1e-3;
  const ContactLcp lcp = BuildTimeSteppingLcp(c, p.WorldLimitSurface(0), p.Compliance(), u, h);
  const LemkeResult r = SolveLcp(lcp.M, lcp.q);
  ASSERT_EQ(r.status, LemkeStatus::kSolved);
  EXPECT_LT((r.z.head(2) / h - v.lambda_n).norm(), 1e-6);
}

TEST(QuasistaticModelTest, InvalidParametersThrowNamingTheField) {
  ModelParameters p = Unit(4, 0.1);
  p.gain(0, 0) = -1.0;
  try {
    p.Validate(4);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("gain"), std::string::npos);
  }
  EXPECT_THROW(Unit(4, -1.0).Validate(4), std::invalid_argument);
  EXPECT_THROW(Unit(3, 0.1).Validate(4), std::invalid_argument);
  SimulationOptions options;
  options.time_step = 0.0;
  std::string why;
  EXPECT_FALSE(options.IsValid(&why));
  EXPECT_NE(why.find("time_step"), std::string::npos);
}

TEST(QuasistaticSimulatorTest, SqueezeAtZeroEpsilonFreezesWithStatus) {
  // Spec §6.4: a failed LCP holds the state for the remaining steps and reports it; it never throws or aborts.
  const System system = DiskWithPointFingers(2);
  const Command squeeze = [](double, const Eigen::Vector3d&, const Eigen::VectorXd&) {
    return Eigen::Vector4d(-1, 0, 1, 0).eval();
  };
  SimulationOptions options;
  options.num_steps = 10;
  const SimulationResult rigid =
      Simulate(system, Unit(4, 0.0), squeeze, Eigen::Vector3d::Zero(), Eigen::Vector4d(1, 0, -1, 0), options);
  EXPECT_EQ(rigid.summary.status, SimulationStatus::kNoSolution);
  EXPECT_EQ(rigid.summary.failed_step, 0);
  EXPECT_EQ(rigid.trajectory.time.size(), 11u);
  EXPECT_EQ(rigid.trajectory.manipulator.back(), Eigen::VectorXd(Eigen::Vector4d(1, 0, -1, 0)));
  const SimulationResult soft =
      Simulate(system, Unit(4, 0.5), squeeze, Eigen::Vector3d::Zero(), Eigen::Vector4d(1, 0, -1, 0), options);
  EXPECT_EQ(soft.summary.status, SimulationStatus::kCompleted);
  EXPECT_NEAR(soft.trajectory.manipulator.back()(0), 1.0, 1e-12);  // the servo holds the fingers at the disk
  EXPECT_NEAR(soft.summary.max_normal_impulse, 0.025 / 0.5, 1e-12);
}

}  // namespace
}  // namespace tamsi::quasistatic
