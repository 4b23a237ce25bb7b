#include <gtest/gtest.h>
#include <tamsi/integrators/implicit_euler.h>
#include <tamsi/scenes/mujoco_ode_system.h>
#include <tamsi/scenes/simulator.h>

#include <cmath>
#include <string>

namespace tamsi::scenes {
namespace {

// A 1 kg sphere of radius 5 cm (I = 2/5 m r²) on a plane, g = 9.81 m/s², μ = 0.5; per-geom k = 2e4 N/m and d = 5 s/m
// combine to k = 1e4 N/m, d = 5 s/m per contact.
constexpr double kRadius = 0.05, kMass = 1.0, kGravity = 9.81, kFriction = 0.5, kStiffness = 1e4, kDissipation = 5.0;
constexpr double kInertia = 0.4 * kMass * kRadius * kRadius;

std::string SphereOnPlane(double z, const std::string& qvel) {
  return R"(<mujoco><size nuser_geom="2"/><option gravity="0 0 -9.81"/>
    <default><geom friction="0.5 0 0" user="2e4 5"/></default>
    <worldbody><geom type="plane" size="1 1 0.1"/>
      <body name="ball"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="0.001 0.001 0.001"/>
        <geom type="sphere" size="0.05"/></body></worldbody>
    <keyframe><key qpos="0 0 )" +
         std::to_string(z) + R"( 1 0 0 0" qvel=")" + qvel + R"("/></keyframe></mujoco>)";
}

MujocoOdeSystem SphereSystem(double z, const std::string& qvel) {
  MujocoOdeOptions options;
  options.stiction_tolerance = 1e-4;
  return MujocoOdeSystem(LoadModelFromString(SphereOnPlane(z, qvel), "sphere"), options, 0);
}

TEST(MujocoOdeSystem, FreeFlightFallsAtGAndPositionsMoveWithV) {
  MujocoOdeSystem system = SphereSystem(1.0, "0.3 0 -1 0.2 0.1 0");
  const Eigen::VectorXd x = system.initial_state();
  Eigen::VectorXd xdot;
  system.EvalTimeDerivative(0.0, x, &xdot);
  ASSERT_EQ(xdot.size(), 12);
  Eigen::VectorXd expected(12);
  expected << 0.3, 0, -1, 0.2, 0.1, 0, 0, 0, -kGravity, 0, 0, 0;  // isotropic inertia: no gyroscopic torque
  EXPECT_LT((xdot - expected).lpNorm<Eigen::Infinity>(), 1e-12);
  EXPECT_EQ(system.evaluations(), 1);
}

TEST(MujocoOdeSystem, PenetratingSlidingSphereFeelsHuntCrossleyAndCoulomb) {
  // δ = 1 mm, approaching at 2 cm/s (vn = −0.02 m/s), sliding at 0.4 m/s along x without spin:
  // π = k δ (1 − d vn) = 11 N (eq. 5), friction −μπ along x (eq. 6–7, far beyond v_s), applied at the contact point
  // midway through the overlap, r − δ/2 below the centre.
  const double delta = 1e-3, vz = -0.02;
  MujocoOdeSystem system = SphereSystem(kRadius - delta, "0.4 0 " + std::to_string(vz) + " 0 0 0");
  Eigen::VectorXd xdot;
  system.EvalTimeDerivative(0.0, system.initial_state(), &xdot);
  const double pi = kStiffness * delta * (1.0 - kDissipation * vz);
  ASSERT_NEAR(pi, 11.0, 1e-12);
  EXPECT_NEAR(system.normal_forces()[0], pi, 1e-9);
  EXPECT_NEAR(xdot[6], -kFriction * pi / kMass, 1e-9);
  EXPECT_NEAR(xdot[7], 0.0, 1e-12);
  EXPECT_NEAR(xdot[8], -kGravity + pi / kMass, 1e-9);
  EXPECT_NEAR(xdot[10], (kRadius - delta / 2) * kFriction * pi / kInertia, 1e-6);
  EXPECT_NEAR(xdot[9], 0.0, 1e-12);
  EXPECT_NEAR(xdot[11], 0.0, 1e-12);
}

TEST(MujocoOdeSystem, TangentCoordinatesFollowTheBodyAngularVelocity) {
  // At a turned displacement Δθ, moving x's Δq along its rate Δq̇ must move q(x) as mj_integratePos moves q with the
  // body velocity v: the rate is J_r(Δθ)⁻¹ ω, not ω (which differs here by ½ Δθ × ω ≈ 0.4 rad/s).
  MujocoOdeSystem system = SphereSystem(1.0, "0 0 0 0 0 0");
  Eigen::VectorXd x(12);
  x << 0.1, -0.2, 0.3, 0.6, -0.4, 1.0, 0.5, 0.2, -0.3, 1.5, 0.7, -2.0;
  const Eigen::VectorXd v = x.tail(6);
  const Eigen::VectorXd rate = system.TangentRate(x.head(6), v);
  EXPECT_GT((rate - v).norm(), 0.3);
  const double eps = 1e-6;
  Eigen::VectorXd plus = x, minus = x;
  plus.head(6) += eps * rate;
  minus.head(6) -= eps * rate;
  const Eigen::VectorXd dq_dt = (system.Configuration(plus) - system.Configuration(minus)) / (2 * eps);
  Eigen::VectorXd q_plus = system.Configuration(x), q_minus = q_plus;
  mj_integratePos(&system.model(), q_plus.data(), v.data(), eps);
  mj_integratePos(&system.model(), q_minus.data(), v.data(), -eps);
  const Eigen::VectorXd expected = (q_plus - q_minus) / (2 * eps);
  EXPECT_LT((dq_dt - expected).lpNorm<Eigen::Infinity>(), 1e-7);
}

TEST(MujocoOdeSystem, TalsPairsOnlyContactsPresentAtBothEnds) {
  // x: 1 mm above the plane (no contact); x_next: 1 mm into it, sliding at (0.3, 0.1) m/s. A contact made between
  // the two has no partner; between two penetrating states the sphere's one contact pairs with itself, its slip at
  // x_next expressed in x's tangent basis.
  MujocoOdeSystem system = SphereSystem(kRadius + 1e-3, "0 0 0 0 0 0");
  Eigen::VectorXd x = system.initial_state(), x_next = x, vt, vt_next;
  x_next[2] = -2e-3;
  x_next.segment<2>(6) << 0.3, 0.1;
  system.CalcPairedTangentialVelocities(0.0, x, x_next, &vt, &vt_next);
  EXPECT_EQ(vt.size(), 0);
  EXPECT_EQ(vt_next.size(), 0);
  x[2] = -1.5e-3;
  system.CalcPairedTangentialVelocities(0.0, x, x_next, &vt, &vt_next);
  ASSERT_EQ(vt.size(), 2);
  ASSERT_EQ(vt_next.size(), 2);
  EXPECT_LT(vt.norm(), 1e-15);
  EXPECT_NEAR(vt_next.norm(), std::hypot(0.3, 0.1), 1e-12);
  EXPECT_EQ(system.evaluations(), 0);  // TALS's velocities are not f evaluations
}

TEST(MujocoOdeSystem, ImplicitEulerAgreesWithTamsiOnASlidingSphereThatStartsRolling) {
  // Thrown at 0.5 m/s without spin onto the plane at its rest penetration δ = mg/k: friction μmg slows it and spins it
  // up until the contact point, ρ = r − δ/2 below the centre, sticks (t ≈ 2 v0/(7 μ g) = 29 ms). Momentum about the
  // contact point gives the rolling velocity v = v0/(1 + I/(m ρ²)). A sphere's penetration of a plane is linear in q,
  // so IE on x = (q, v) (geometry at the iterate) and TAMSI (geometry linearized at q0, eq. 19) solve the same
  // equations here: they agree to Newton's tolerance, and both roll at v within the stiction tolerance's slip.
  const double v0 = 0.5, h = 5e-4, t_end = 0.06;
  const double delta = kMass * kGravity / kStiffness, z = kRadius - delta, rho = kRadius - delta / 2;
  const std::string qvel = std::to_string(v0) + " 0 0 0 0 0";
  MujocoOdeSystem system = SphereSystem(z, qvel);
  integrators::ImplicitEulerOptions options;
  options.newton = integrators::NewtonUpdate::kFull;
  options.time_step = h;
  options.newton_tolerance = 1e-8;
  integrators::ImplicitEuler ie(&system, options);
  double t = system.initial_time();
  Eigen::VectorXd x = system.initial_state();
  while (t < t_end - 1e-12) {
    system.BeginStep(&x);
    ASSERT_TRUE(ie.Step(t_end, &t, &x)) << "at t = " << t;
  }
  SimulatorOptions sim_options;
  sim_options.time_step = h;
  sim_options.solver.stiction_tolerance = 1e-4;
  Simulator sim(LoadModelFromString(SphereOnPlane(z, qvel), "sphere"), sim_options, 0);
  while (sim.time() < t_end - 1e-12) sim.Step();
  const Eigen::Map<const Eigen::VectorXd> v_tamsi(sim.data().qvel, 6);
  const Eigen::VectorXd v_ie = x.tail(6);
  const double rolling = v0 / (1.0 + kInertia / (kMass * rho * rho));
  EXPECT_NEAR(v_ie[0], rolling, 2e-4);
  EXPECT_NEAR(v_ie[4] * rho, v_ie[0], 2e-4);  // the contact point sticks: v = ω ρ
  EXPECT_LT((v_ie - v_tamsi).lpNorm<Eigen::Infinity>(), 1e-6);
  const Eigen::VectorXd q_ie = system.Configuration(x);
  const Eigen::Map<const Eigen::VectorXd> q_tamsi(sim.data().qpos, 7);
  EXPECT_LT((q_ie - q_tamsi).lpNorm<Eigen::Infinity>(), 1e-8);
}

}  // namespace
}  // namespace tamsi::scenes
