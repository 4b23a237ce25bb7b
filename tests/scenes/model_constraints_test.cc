// MuJoCo's joint and tendon limits and equality constraints in the TAMSI step (scenes/src/constraint_rows.cc):
// Jacobians against finite differences of the constraint values, closed-form pendulums and deflections, couplings,
// and the unmodified Menagerie Robotiq 2F-85 keeping its linkages.
#include <gtest/gtest.h>
#include <tamsi/newton_system.h>
#include <tamsi/scenes/model_support.h>
#include <tamsi/scenes/mujoco_frontend.h>
#include <tamsi/scenes/mujoco_model.h>
#include <tamsi/scenes/scene_library.h>
#include <tamsi/scenes/simulator.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "third_party_models.h"

namespace tamsi::scenes {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kGravity = 9.81;

std::unique_ptr<Simulator> MakeSimulator(const std::string& xml, double h, Engine engine = Engine::kTamsi) {
  SimulatorOptions options;
  options.engine = engine;
  options.time_step = h;
  options.mujoco_solver = mjSOL_NEWTON;
  return std::make_unique<Simulator>(LoadModelFromString(xml, "test"), options);
}

/// MuJoCo's default soft constraint as K/m (1/s²) at zero violation: k d/(1 − d), k = 1/(dmax² τ² ζ²).
double DefaultStiffnessPerMass() {
  const double dmin = 0.9, dmax = 0.95, timeconst = 0.02;
  return dmin / (1 - dmin) / (dmax * dmax * timeconst * timeconst);
}

// A model with every kind of row: hinge, slide and ball limits (all violated or near; margins wide enough that every
// side is a row), a limited tendon, connect, weld (with an anchor and torque scale), joint and tendon couplings.
const char* kAllConstraints = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0" limited="true" range="-0.3 0.2" margin="1"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" mass="1"/>
      <body name="slider" pos="0.4 0 0">
        <joint name="slide" type="slide" axis="1 0 0" limited="true" range="-0.05 0.02" margin="1"/>
        <geom type="box" size="0.05 0.03 0.03" mass="0.5"/>
        <body name="ball" pos="0.1 0 0">
          <joint name="ball" type="ball" limited="true" range="0 0.4" margin="1"/>
          <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02" mass="0.3"/>
        </body>
      </body>
    </body>
    <body name="free" pos="0.5 0.5 1">
      <freejoint/>
      <geom type="box" size="0.05 0.05 0.05" mass="0.4"/>
    </body>
    <body name="second" pos="-0.5 0 1">
      <joint name="h2" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="pair" limited="true" range="-0.1 0.1" margin="1">
      <joint joint="hinge" coef="1"/>
      <joint joint="h2" coef="-0.5"/>
    </fixed>
    <fixed name="single"><joint joint="slide" coef="2"/></fixed>
    <fixed name="other"><joint joint="h2" coef="1"/></fixed>
  </tendon>
  <equality>
    <connect body1="free" body2="ball" anchor="0.05 0 0"/>
    <weld body1="free" body2="second" anchor="0.1 0.05 0" torquescale="2"/>
    <joint joint1="h2" joint2="hinge" polycoef="0.1 0.5 0.3 0 0"/>
    <tendon tendon1="single" tendon2="other" polycoef="0 1 0.2 0 0"/>
  </equality>
</mujoco>)";

struct Rows {
  Eigen::VectorXd values;  // limits: distances (−δ0); equalities: g0
  SparseMatrix J;
};

/// The limit rows (Jn rows after the geom contacts) and the equality rows of a Build at the state in `data`.
Rows BuildRows(const mjModel& model, mjData* data, int* num_limits = nullptr) {
  ContactProblemBuilder builder(model, ContactDefaults());
  ContactProblem p;
  EXPECT_TRUE(builder.Build(model, data, 1e-3, &p));
  const int ncon = data->ncon;
  const int nlimits = p.num_contacts() - ncon;
  if (num_limits) *num_limits = nlimits;
  Rows rows;
  rows.values.resize(nlimits + p.num_constraints());
  rows.values << -p.delta0.tail(nlimits), p.g0;
  SparseMatrix Jn_limits = p.Jn.bottomRows(nlimits);
  rows.J.resize(nlimits + p.num_constraints(), model.nv);
  std::vector<Eigen::Triplet<double>> triplets;
  for (int j = 0; j < Jn_limits.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(Jn_limits, j); it; ++it) triplets.emplace_back(it.row(), j, it.value());
  for (int j = 0; j < p.Jb.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(p.Jb, j); it; ++it) triplets.emplace_back(nlimits + it.row(), j, it.value());
  rows.J.setFromTriplets(triplets.begin(), triplets.end());
  return rows;
}

// ġ = J v: moving the configuration along v by ε (mj_integratePos) changes every row's value by ε J v.
TEST(ModelConstraints, JacobiansAreTheDerivativesOfTheConstraintValues) {
  ModelPtr model = LoadModelFromString(kAllConstraints, "all_constraints");
  DataPtr data(mj_makeData(model.get()));
  const mjModel& m = *model;
  // A configuration away from qpos0, each joint moved.
  for (int i = 0; i < m.nv; ++i) data->qvel[i] = 0.3 * std::sin(1.7 * i + 0.4);
  mj_integratePos(&m, data->qpos, data->qvel, 1.0);
  int num_limits = 0;
  const Rows rows = BuildRows(m, data.get(), &num_limits);
  EXPECT_EQ(num_limits, 2 + 2 + 1 + 2);  // hinge, slide, ball (rotated), tendon
  EXPECT_EQ(rows.values.size() - num_limits, 3 + 6 + 1 + 1);
  std::vector<double> q0(data->qpos, data->qpos + m.nq);
  Eigen::VectorXd v(m.nv);
  for (int i = 0; i < m.nv; ++i) v[i] = std::cos(0.9 * i + 0.2);
  const double eps = 1e-6;
  auto values_at = [&](double step) {
    std::copy(q0.begin(), q0.end(), data->qpos);
    mj_integratePos(&m, data->qpos, v.data(), step);
    return BuildRows(m, data.get()).values;
  };
  const Eigen::VectorXd derivative = (values_at(eps) - values_at(-eps)) / (2 * eps);
  const Eigen::VectorXd predicted = rows.J * v;
  for (int r = 0; r < predicted.size(); ++r)
    EXPECT_NEAR(derivative[r], predicted[r], 1e-6 * (1 + std::abs(predicted[r]))) << "row " << r;
}

// At qpos0 the compiler's anchors and relative poses satisfy every equality: g0 = 0.
TEST(ModelConstraints, EqualitiesAreSatisfiedAtTheModelsReferenceConfiguration) {
  ModelPtr model = LoadModelFromString(kAllConstraints, "all_constraints");
  DataPtr data(mj_makeData(model.get()));
  int num_limits = 0;
  const Rows rows = BuildRows(*model, data.get(), &num_limits);
  Eigen::VectorXd g0 = rows.values.tail(rows.values.size() - num_limits);
  // The joint coupling's constant term 0.1 is the one row not zero at qpos0.
  EXPECT_NEAR(g0[9], -0.1, 1e-12);
  g0[9] = 0.0;
  EXPECT_LT(g0.lpNorm<Eigen::Infinity>(), 1e-12) << g0.transpose();
}

// A horizontal arm on a hinge limited at −30°..30° falls onto its lower limit under gravity and rests there, deflected
// by the static torque over the row's stiffness K = I k d/(1 − d).
TEST(ModelConstraints, LimitedPendulumComesToRestAtItsLimit) {
  const char* xml = R"(
<mujoco>
  <worldbody>
    <body name="arm">
      <joint name="hinge" type="hinge" axis="0 -1 0" limited="true" range="-30 30"/>
      <geom type="sphere" pos="0.5 0 0" size="0.02" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";
  auto sim = MakeSimulator(xml, 1e-3);
  for (int i = 0; i < 3000; ++i) sim->Step();
  const mjModel& m = sim->model();
  const double inertia = 1.0 * (0.25 + 0.4 * 0.02 * 0.02);  // m (L² + 2/5 r²)
  const double lower = -30 * kPi / 180;
  const double torque = 1.0 * kGravity * 0.5 * std::cos(lower);
  const double deflection = torque / (inertia * DefaultStiffnessPerMass());
  EXPECT_NEAR(sim->data().qpos[0], lower - deflection, 0.02 * deflection);
  EXPECT_LT(std::abs(sim->data().qvel[0]), 1e-4);
  EXPECT_EQ(sim->builder().constraint_counts().joint_limits, 1);  // at rest on the lower side, 60° from the upper
  EXPECT_EQ(m.njnt, 1);
}

/// K(k), the complete elliptic integral of the first kind, by the arithmetic–geometric mean.
double EllipticK(double k) {
  double a = 1.0, b = std::sqrt(1 - k * k);
  for (int i = 0; i < 30; ++i) {
    const double next = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = next;
  }
  return kPi / (2 * a);
}

// A ball on a free joint hangs from the world by a `connect` 0.5 m above it, released at 60°: it swings as a
// physical pendulum, T = 4 √(I_pivot/(m g L)) K(sin(θ0/2)), and its anchor drifts no more than the largest load
// (gravity and the centripetal force, ≤ 3 m g at this amplitude) over the connect's stiffness.
TEST(ModelConstraints, ConnectPendulumSwingsWithTheLargeAmplitudePeriod) {
  const double L = 0.5, r = 0.02, mass = 1.0, theta0 = 60 * kPi / 180;
  const std::string xml = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <body name="bob" pos=")" +
                          std::to_string(L * std::sin(theta0)) + " 0 " + std::to_string(-L * std::cos(theta0)) +
                          R"(">
      <freejoint/>
      <geom type="sphere" size="0.02" mass="1"/>
    </body>
  </worldbody>
  <equality><connect body1="bob" body2="world" anchor=")" +
                          std::to_string(-L * std::sin(theta0)) + " 0 " + std::to_string(L * std::cos(theta0)) +
                          R"("/></equality>
</mujoco>)";
  const double h = 2e-4;
  auto sim = MakeSimulator(xml, h);
  const double inertia = mass * (L * L + 0.4 * r * r);
  const double period = 4 * std::sqrt(inertia / (mass * kGravity * L)) * EllipticK(std::sin(theta0 / 2));
  // x of the bob crosses zero at T/4 (going negative) and 3T/4 (going positive).
  std::vector<double> crossings;
  double x_prev = sim->data().qpos[0], max_drift = 0.0;
  while (sim->time() < 1.2 * period) {
    sim->Step();
    const double x = sim->data().qpos[0], z = sim->data().qpos[2];
    if ((x_prev > 0) != (x > 0)) crossings.push_back(sim->time() - h * x / (x - x_prev));
    x_prev = x;
    max_drift = std::max(max_drift, std::abs(std::hypot(x, z) - L));
  }
  ASSERT_GE(crossings.size(), 2u);
  EXPECT_NEAR(crossings[1] - crossings[0], period / 2, 0.01 * period);
  const double stiffness = mass * DefaultStiffnessPerMass();  // translational rows of a free body at its com
  EXPECT_LT(max_drift, 3 * mass * kGravity / stiffness);
  EXPECT_GT(max_drift, 0.1 * mass * kGravity / stiffness);  // it is compliant, not rigid
}

// A box welded to the world at its centre sags under gravity by g (1 − d)/(d k), MuJoCo's own static deflection at
// impedance d, whatever its mass (the weld's translational rows have the box's mass as effective mass).
TEST(ModelConstraints, WeldHoldsABodyWithTheStaticDeflectionItsStiffnessPredicts) {
  const char* xml = R"(
<mujoco>
  <worldbody>
    <body name="box" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.05 0.02" mass="3"/>
    </body>
  </worldbody>
  <equality><weld body1="world" body2="box"/></equality>
</mujoco>)";
  auto sim = MakeSimulator(xml, 1e-3);
  for (int i = 0; i < 2000; ++i) sim->Step();
  const double sag = kGravity / DefaultStiffnessPerMass();
  EXPECT_NEAR(1.0 - sim->data().qpos[2], sag, 1e-3 * sag);
  EXPECT_NEAR(sim->data().qpos[0], 0.0, 1e-9);
  EXPECT_NEAR(sim->data().qpos[3], 1.0, 1e-9);  // no rotation
  EXPECT_EQ(sim->builder().constraint_counts().equality_rows, 6);
}

// A joint coupling q1 = 2 q2 + 0.1: the driven joint follows as joint 2 swings under gravity.
TEST(ModelConstraints, JointEqualityCouplesTwoJoints) {
  const char* xml = R"(
<mujoco>
  <worldbody>
    <body name="a"><joint name="j1" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="0.2"/></body>
    <body name="b" pos="1 0 0"><joint name="j2" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.02" mass="1"/></body>
  </worldbody>
  <equality><joint joint1="j1" joint2="j2" polycoef="0.1 2 0 0 0"/></equality>
</mujoco>)";
  auto sim = MakeSimulator(xml, 1e-3);
  double max_error = 0.0, max_swing = 0.0;
  for (int i = 0; i < 1500; ++i) {
    sim->Step();
    if (i < 300) continue;  // the first steps pull j1 from 0 to 0.1
    const double q1 = sim->data().qpos[0], q2 = sim->data().qpos[1];
    max_error = std::max(max_error, std::abs(q1 - 2 * q2 - 0.1));
    max_swing = std::max(max_swing, std::abs(q2));
  }
  EXPECT_GT(max_swing, 0.5);
  EXPECT_LT(max_error, 0.02 * max_swing);
}

// A slide pushed by 5 N against its tendon's upper limit (length = 2 q ≤ 0.1) stops there.
// A limit side is a row only when the step may reach it: violated, within the solimp width (1 mm by default) or the
// margin, or nearer than twice the distance covered in a step. A slide driven into its limit moves as it does with
// every side a row (a margin wider than its range): the sides left out would have carried no force.
TEST(ModelConstraints, ALimitSideIsARowOnlyWhereTheStepMayReachIt) {
  auto slide = [](const char* margin) {
    return std::string(R"(<mujoco><option gravity="0 0 0"/><worldbody><body name="block">
      <joint name="s" type="slide" axis="1 0 0" limited="true" range="-0.1 0.1" margin=")") +
           margin + R"("/><geom type="box" size="0.05 0.05 0.05" mass="1"/></body></worldbody></mujoco>)";
  };
  ModelPtr model = LoadModelFromString(slide("0"), "slide");
  DataPtr data(mj_makeData(model.get()));
  auto rows_at = [&](double q, double v) {  // h = 1 ms
    data->qpos[0] = q;
    data->qvel[0] = v;
    int num_limits = 0;
    BuildRows(*model, data.get(), &num_limits);
    return num_limits;
  };
  EXPECT_EQ(rows_at(0.0, 0.0), 0);
  EXPECT_EQ(rows_at(0.0, 45.0), 0);    // 2 h |v| = 0.09 m < 0.1 m to either side
  EXPECT_EQ(rows_at(0.0, -55.0), 2);   // 0.11 m
  EXPECT_EQ(rows_at(0.0995, 0.0), 1);  // within the solimp width of the upper side
  EXPECT_EQ(rows_at(0.105, 0.0), 1);   // violated
  EXPECT_EQ(rows_at(0.09, 6.0), 1);    // 0.012 m covered in two steps, 0.01 m to go
  EXPECT_EQ(rows_at(0.09, 4.0), 0);

  auto near = MakeSimulator(slide("0"), 1e-3), every = MakeSimulator(slide("1"), 1e-3);
  near->data().qvel[0] = every->data().qvel[0] = 1.0;
  double largest_difference = 0.0, furthest = 0.0;
  int fewest_rows = 2;
  for (int i = 0; i < 300; ++i) {
    near->Step();
    every->Step();
    largest_difference = std::max(largest_difference, std::abs(near->data().qpos[0] - every->data().qpos[0]));
    furthest = std::max(furthest, near->data().qpos[0]);
    fewest_rows = std::min(fewest_rows, near->builder().constraint_counts().joint_limits);
    EXPECT_EQ(every->builder().constraint_counts().joint_limits, 2);
  }
  EXPECT_EQ(fewest_rows, 0);            // rows were left out on the way
  EXPECT_GT(furthest, 0.1);             // it reached the limit
  EXPECT_LT(furthest, 0.11);            // and was stopped there
  EXPECT_LT(largest_difference, 1e-6);  // as with every side a row
}

TEST(ModelConstraints, TendonLimitHolds) {
  const char* xml = R"(
<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="block"><joint name="s" type="slide" axis="1 0 0"/><geom type="box" size="0.05 0.05 0.05" mass="1"/></body>
  </worldbody>
  <tendon><fixed name="t" limited="true" range="-1 0.1"><joint joint="s" coef="2"/></fixed></tendon>
</mujoco>)";
  auto sim = MakeSimulator(xml, 1e-3);
  for (int i = 0; i < 2000; ++i) {
    sim->data().qfrc_applied[0] = 5.0;
    sim->Step();
  }
  // Row: length 2q, effective mass 1/(2² / 1 kg) = 0.25 kg; the 5 N force is 2.5 N along the tendon.
  const double deflection = 2.5 / (0.25 * DefaultStiffnessPerMass());
  EXPECT_NEAR(2 * sim->data().qpos[0], 0.1 + deflection, 0.05 * deflection);
  EXPECT_EQ(sim->builder().constraint_counts().tendon_limits, 1);  // at rest on the upper side, 1.1 from the lower
}

/// max over the model's connect equalities of the distance between their two anchors (m).
double MaxConnectGap(const mjModel& m, const mjData& d) {
  double gap = 0.0;
  for (int e = 0; e < m.neq; ++e) {
    if (m.eq_type[e] != mjEQ_CONNECT) continue;
    double p[2][3];
    for (int k = 0; k < 2; ++k) {
      const int body = k == 0 ? m.eq_obj1id[e] : m.eq_obj2id[e];
      mju_mulMatVec3(p[k], d.xmat + 9 * body, m.eq_data + mjNEQDATA * e + 3 * k);
      mju_addTo3(p[k], d.xpos + 3 * body);
    }
    gap = std::max(gap, std::hypot(p[0][0] - p[1][0], p[0][1] - p[1][1], p[0][2] - p[1][2]));
  }
  return gap;
}

/// max over limited hinge and slide joints of how far they are beyond their range.
double MaxLimitViolation(const mjModel& m, const mjData& d) {
  double violation = 0.0;
  for (int j = 0; j < m.njnt; ++j) {
    if (!m.jnt_limited[j] || (m.jnt_type[j] != mjJNT_HINGE && m.jnt_type[j] != mjJNT_SLIDE)) continue;
    const double q = d.qpos[m.jnt_qposadr[j]];
    violation = std::max({violation, m.jnt_range[2 * j] - q, q - m.jnt_range[2 * j + 1]});
  }
  return violation;
}

// The unmodified Menagerie Robotiq 2F-85 closing fully (ctrl 255) for 1 s: its four-bar linkages stay closed (they
// pulled apart by 122 mm before its equalities entered the step) and its joints stay within their limits.
TEST(ModelConstraints, Robotiq2F85KeepsItsLinkagesAndLimits) {
  TAMSI_SKIP_WITHOUT_THIRD_PARTY_MODELS();
  const std::string gripper = ThirdPartyModel("menagerie_current/robotiq_2f85/2f85.xml", "ModelConstraints").string();
  for (Engine engine : {Engine::kTamsi, Engine::kMujoco}) {
    SimulatorOptions options;
    options.engine = engine;
    options.mujoco_solver = mjSOL_NEWTON;
    Simulator sim(LoadModelFromFile(gripper), options);
    double gap = 0.0, violation = 0.0;
    while (sim.time() < 1.0) {
      sim.data().ctrl[0] = sim.time() < 0.5 ? 255.0 : 0.0;
      sim.Step();
      mj_kinematics(&sim.model(), &sim.data());
      gap = std::max(gap, MaxConnectGap(sim.model(), sim.data()));
      violation = std::max(violation, MaxLimitViolation(sim.model(), sim.data()));
    }
    const char* name = engine == Engine::kTamsi ? "tamsi" : "mujoco";
    EXPECT_LT(gap, 1e-3) << name;
    EXPECT_LT(violation, 0.02) << name;
    RecordProperty(std::string(name) + "_max_connect_gap_m", std::to_string(gap));
    RecordProperty(std::string(name) + "_max_limit_violation", std::to_string(violation));
  }
}

// Every Menagerie model here, its actuators driven to the ends of their control ranges and back (pushing joints
// into their limits): TAMSI keeps limits and linkages about as well as MuJoCo's own solver on the same model
// (measured from t = 0.3 s to 1 s).
TEST(ModelConstraints, MenagerieModelsKeepLimitsAndLinkagesAsMujocoDoes) {
  TAMSI_SKIP_WITHOUT_THIRD_PARTY_MODELS();
  for (const char* file : {"robotiq_2f85/scene.xml", "wonik_allegro/scene_right.xml", "kuka_iiwa_14/scene.xml"}) {
    const std::string path = ThirdPartyModel(std::string("menagerie_current/") + file, "ModelConstraints").string();
    double gap[2] = {0, 0}, violation[2] = {0, 0};
    for (int engine = 0; engine < 2; ++engine) {
      SimulatorOptions options;
      options.engine = engine == 0 ? Engine::kTamsi : Engine::kMujoco;
      options.mujoco_solver = mjSOL_NEWTON;
      Simulator sim(LoadModelFromFile(path), options);
      const mjModel& m = sim.model();
      while (sim.time() < 1.0) {
        const bool high = std::sin(2 * kPi * sim.time()) > 0;
        for (int a = 0; a < m.nu; ++a)
          sim.data().ctrl[a] = m.actuator_ctrllimited[a] ? m.actuator_ctrlrange[2 * a + (high ? 1 : 0)] : 0.0;
        sim.Step();
        if (sim.time() < 0.3) continue;  // the Allegro's qpos0 is outside its thumb's range: let it come back
        mj_kinematics(&m, &sim.data());
        gap[engine] = std::max(gap[engine], MaxConnectGap(m, sim.data()));
        violation[engine] = std::max(violation[engine], MaxLimitViolation(m, sim.data()));
      }
    }
    EXPECT_LE(violation[0], std::max(2 * violation[1], 0.01)) << file << ": MuJoCo " << violation[1];
    EXPECT_LE(gap[0], std::max(2 * gap[1], 1e-3)) << file << ": MuJoCo " << gap[1];
    RecordProperty(std::string(file) + " limit violation tamsi/mujoco",
                   std::to_string(violation[0]) + " / " + std::to_string(violation[1]));
    RecordProperty(std::string(file) + " connect gap tamsi/mujoco",
                   std::to_string(gap[0]) + " / " + std::to_string(gap[1]));
  }
}

TEST(ModelConstraints, UnsupportedFeaturesAreNamed) {
  const char* xml = R"(
<mujoco>
  <worldbody>
    <body name="b"><joint name="rough" axis="0 1 0" frictionloss="0.1"/><geom name="pad" type="sphere" size="0.1" condim="6"/></body>
    <body name="c"><geom name="soft" type="sphere" size="0.1" solref="0.05 1"/></body>
    <body name="d"><geom type="sphere" size="0.1" solref="0.05 1"/><geom name="e" type="sphere" size="0.1" solref="0.05 1"/></body>
    <body name="f"><geom name="g" type="sphere" size="0.1" solref="0.05 1"/></body>
  </worldbody>
</mujoco>)";
  ModelPtr model = LoadModelFromString(xml, "unsupported");
  const std::vector<UnsupportedFeature> features = UnsupportedFeatures(*model);
  ASSERT_EQ(features.size(), 3u);
  EXPECT_EQ(features[0].Describe(), "frictionloss of 1 joint ('rough')");
  EXPECT_EQ(features[1].Describe(), "torsional and rolling friction (condim 6) of 1 geom ('pad')");
  // One line for the four soft geoms, the first three named.
  EXPECT_EQ(features[2].Describe(),
            "contact solref/solimp of 4 geoms ('soft', #2, 'e', …): TAMSI's contacts take k and d from user data or "
            "the scene's defaults");
  EXPECT_TRUE(UnsupportedFeatures(*LoadModelFromString(kAllConstraints, "all")).empty());
}

TEST(ModelConstraints, BadConstraintParametersNameTheElement) {
  const char* xml = R"(
<mujoco>
  <worldbody>
    <body name="b"><joint name="stiff" axis="0 1 0" limited="true" range="-1 1" solreflimit="0.02 0"/><geom type="sphere" size="0.1"/></body>
  </worldbody>
</mujoco>)";
  ModelPtr model = LoadModelFromString(xml, "bad");
  try {
    ContactProblemBuilder builder(*model, ContactDefaults());  // checked when made: the joint is far from its limits
    ADD_FAILURE() << "accepted a zero damping ratio";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("joint 'stiff' solreflimit"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tamsi::scenes
