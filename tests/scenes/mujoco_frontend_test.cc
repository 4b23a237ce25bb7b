#include <gtest/gtest.h>
#include <tamsi/scenes/mujoco_frontend.h>
#include <tamsi/scenes/mujoco_model.h>
#include <tamsi/scenes/simulator.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace tamsi::scenes {
namespace {

// A tree with hinge, slide, ball and free joints whose geoms touch each other and the ground, so the Jacobians
// involve shared ancestors; geom "arm_tip" sets its own contact parameters in user data.
constexpr char kTreeXml[] = R"(
<mujoco model="tree">
  <option timestep="0.002"/>
  <size nuser_geom="2"/>
  <worldbody>
    <geom name="ground" type="plane" size="2 2 0.1" friction="0.6 0.005 0.0001"/>
    <body name="base" pos="0 0 0.048">
      <joint name="slide" type="slide" axis="0 0 1"/>
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <geom type="box" size="0.05 0.05 0.05" mass="1"/>
      <body name="arm" pos="0.1 0 0" euler="0 0.15 0">
        <joint name="ball" type="ball"/>
        <geom name="arm_geom" type="capsule" fromto="0 0 0 0.2 0 0" size="0.03" mass="0.4"/>
        <body name="tip" pos="0.2 0 0">
          <joint name="tip_hinge" type="hinge" axis="1 0 0"/>
          <geom name="arm_tip" type="sphere" size="0.03" mass="0.2" friction="0.9 0.005 0.0001"
                user="3000 2"/>
        </body>
      </body>
    </body>
    <body name="ball" pos="0.37 0 0.045">
      <freejoint/>
      <geom name="ball_geom" type="sphere" size="0.05" mass="0.3"/>
    </body>
  </worldbody>
</mujoco>)";

class FrontEndTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = LoadModelFromString(kTreeXml, "tree");
    ConfigureModelForTamsi(model_.get(), 0);
    data_.reset(mj_makeData(model_.get()));
    // Move and spin everything so that bias forces and contact rows are generic.
    for (int i = 0; i < model_->nv; ++i) data_->qvel[i] = 0.3 * std::sin(1.0 + i);
  }
  ModelPtr model_;
  DataPtr data_;
};

TEST_F(FrontEndTest, MassMatrixMatchesMujocoDenseMatrix) {
  ContactProblemBuilder builder(*model_, ContactDefaults());
  ContactProblem problem;
  ASSERT_TRUE(builder.Build(*model_, data_.get(), 0.002, &problem));
  const int nv = model_->nv;
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> dense(nv, nv);
  mj_fullM(model_.get(), data_.get(), dense.data());
  EXPECT_EQ(problem.M.rows(), nv);
  EXPECT_LT((Eigen::MatrixXd(problem.M) - Eigen::MatrixXd(dense)).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_GT(dense.norm(), 0.1);
}

TEST_F(FrontEndTest, ContactJacobiansMatchMjJacAndSignConventions) {
  ContactProblemBuilder builder(*model_, ContactDefaults());
  ContactProblem problem;
  ASSERT_TRUE(builder.Build(*model_, data_.get(), 0.002, &problem));
  const int nv = model_->nv, nc = problem.num_contacts();
  ASSERT_GE(nc, 6) << "the tree is built so that arm, tip, ball and ground touch";
  EXPECT_EQ(problem.Jn.rows(), nc);
  EXPECT_EQ(problem.Jt.rows(), 2 * nc);
  problem.Validate();
  Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor> jac1(3, nv), jac2(3, nv);
  const Eigen::MatrixXd Jn = problem.Jn, Jt = problem.Jt;
  for (int i = 0; i < nc; ++i) {
    const mjContact& con = data_->contact[i];
    mj_jac(model_.get(), data_.get(), jac1.data(), nullptr, con.pos, model_->geom_bodyid[con.geom1]);
    mj_jac(model_.get(), data_.get(), jac2.data(), nullptr, con.pos, model_->geom_bodyid[con.geom2]);
    const Eigen::MatrixXd relative = jac2 - jac1;  // velocity of geom2's point relative to geom1's
    Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> frame(con.frame);
    const Eigen::MatrixXd expected = frame * relative;
    EXPECT_LT((Jn.row(i) - expected.row(0)).cwiseAbs().maxCoeff(), 1e-12) << "contact " << i;
    EXPECT_LT((Jt.row(2 * i) - expected.row(1)).cwiseAbs().maxCoeff(), 1e-12) << "contact " << i;
    EXPECT_LT((Jt.row(2 * i + 1) - expected.row(2)).cwiseAbs().maxCoeff(), 1e-12) << "contact " << i;
    EXPECT_DOUBLE_EQ(problem.delta0[i], -con.dist);
  }
  // Only the dofs of the two bodies' chains appear: the ball–ground row never touches the tree's dofs.
  const int ball = mj_name2id(model_.get(), mjOBJ_BODY, "ball");
  int ball_ground = 0;
  for (int i = 0; i < nc; ++i) {
    const int b1 = model_->geom_bodyid[data_->contact[i].geom1], b2 = model_->geom_bodyid[data_->contact[i].geom2];
    if ((b1 == ball && b2 == 0) || (b1 == 0 && b2 == ball)) {
      ++ball_ground;
      EXPECT_EQ(Jn.row(i).head(nv - 6).cwiseAbs().maxCoeff(), 0.0);
    }
  }
  EXPECT_EQ(ball_ground, 1);
}

TEST_F(FrontEndTest, RowsWrittenInPlaceEqualAFreshBuildsBitForBit) {
  // The slide joint at its lower limit: a limit row besides the geom contacts.
  const int slide = mj_name2id(model_.get(), mjOBJ_JOINT, "slide");
  model_->jnt_limited[slide] = 1;
  model_->jnt_range[2 * slide] = 0.0;
  model_->jnt_range[2 * slide + 1] = 0.5;
  ContactProblemBuilder builder(*model_, ContactDefaults());
  ContactProblem problem;
  ASSERT_TRUE(builder.Build(*model_, data_.get(), 0.002, &problem));
  const int pairs = data_->ncon;
  ASSERT_GT(problem.num_contacts(), pairs) << "no limit row: no test of the limits' values in place";
  // Move every dof a little (the same body pairs touch): the second Build writes into the first's patterns.
  for (int step = 1; step <= 3; ++step) {
    for (int i = 0; i < model_->nq; ++i) data_->qpos[i] += 1e-5 * std::cos(step + i);
    ASSERT_TRUE(builder.Build(*model_, data_.get(), 0.002, &problem));
    ASSERT_EQ(data_->ncon, pairs);
    ASSERT_GT(problem.num_contacts(), pairs) << "the limit row is gone";
    EXPECT_TRUE(builder.last_build_in_place()) << "step " << step;
    ContactProblemBuilder fresh_builder(*model_, ContactDefaults());
    ContactProblem fresh;
    ASSERT_TRUE(fresh_builder.Build(*model_, data_.get(), 0.002, &fresh));
    for (const auto& [name, a, b] : {std::tuple{"Jn", &problem.Jn, &fresh.Jn}, {"Jt", &problem.Jt, &fresh.Jt}}) {
      SCOPED_TRACE(name);
      ASSERT_EQ(a->nonZeros(), b->nonZeros());
      EXPECT_TRUE(std::equal(a->outerIndexPtr(), a->outerIndexPtr() + a->cols() + 1, b->outerIndexPtr()));
      EXPECT_TRUE(std::equal(a->innerIndexPtr(), a->innerIndexPtr() + a->nonZeros(), b->innerIndexPtr()));
      EXPECT_EQ(std::memcmp(a->valuePtr(), b->valuePtr(), sizeof(double) * a->nonZeros()), 0) << "step " << step;
    }
  }
  // A different set of pairs (the ball lifted off the ground) is built afresh.
  const int ball = mj_name2id(model_.get(), mjOBJ_BODY, "ball");
  data_->qpos[model_->jnt_qposadr[model_->body_jntadr[ball]] + 2] += 0.5;
  ASSERT_TRUE(builder.Build(*model_, data_.get(), 0.002, &problem));
  ASSERT_LT(data_->ncon, pairs);
  EXPECT_FALSE(builder.last_build_in_place());
  ContactProblemBuilder fresh_builder(*model_, ContactDefaults());
  ContactProblem fresh;
  ASSERT_TRUE(fresh_builder.Build(*model_, data_.get(), 0.002, &fresh));
  EXPECT_TRUE(Eigen::MatrixXd(problem.Jn).cwiseEqual(Eigen::MatrixXd(fresh.Jn)).all());
  EXPECT_TRUE(Eigen::MatrixXd(problem.Jt).cwiseEqual(Eigen::MatrixXd(fresh.Jt)).all());
}

TEST_F(FrontEndTest, FreeMotionMomentumUsesBiasPassiveAndActuation) {
  ContactProblemBuilder builder(*model_, ContactDefaults());
  ContactProblem problem;
  const double h = 0.002;
  ASSERT_TRUE(builder.Build(*model_, data_.get(), h, &problem));
  // Oracle: MuJoCo's own smooth acceleration, M qacc_smooth = qfrc_smooth = passive + actuator + applied − bias.
  mj_factorM(model_.get(), data_.get());
  mj_fwdAcceleration(model_.get(), data_.get());
  const int nv = model_->nv;
  Eigen::VectorXd Ma(nv);
  mj_mulM(model_.get(), data_.get(), Ma.data(), data_->qacc_smooth);
  Eigen::Map<const Eigen::VectorXd> v0(data_->qvel, nv);
  const Eigen::VectorXd expected = problem.M * v0 + h * Ma;
  EXPECT_LT((problem.p_star - expected).cwiseAbs().maxCoeff(), 1e-12);
  ASSERT_TRUE(problem.v0.has_value());
  EXPECT_EQ(*problem.v0, v0);
}

TEST_F(FrontEndTest, ContactParametersCombineInSeriesAndFrictionIsTheMaximum) {
  ContactDefaults defaults;
  defaults.stiffness = 1000.0;
  defaults.dissipation = 5.0;
  ContactProblemBuilder builder(*model_, defaults);
  ContactProblem problem;
  ASSERT_TRUE(builder.Build(*model_, data_.get(), 0.002, &problem));
  const int tip = mj_name2id(model_.get(), mjOBJ_GEOM, "arm_tip");
  EXPECT_EQ(builder.geom_stiffness()[tip], 3000.0);
  EXPECT_EQ(builder.geom_dissipation()[tip], 2.0);
  bool saw_tip = false;
  for (int i = 0; i < problem.num_contacts(); ++i) {
    const mjContact& con = data_->contact[i];
    const double mu1 = model_->geom_friction[3 * con.geom1], mu2 = model_->geom_friction[3 * con.geom2];
    EXPECT_DOUBLE_EQ(problem.friction[i], std::max(mu1, mu2));
    if (con.geom1 == tip || con.geom2 == tip) {
      saw_tip = true;
      EXPECT_DOUBLE_EQ(problem.stiffness[i], 3000.0 * 1000.0 / 4000.0);
      EXPECT_DOUBLE_EQ(problem.dissipation[i], (1000.0 * 2.0 + 3000.0 * 5.0) / 4000.0);
    } else {
      EXPECT_DOUBLE_EQ(problem.stiffness[i], 500.0);
      EXPECT_DOUBLE_EQ(problem.dissipation[i], 5.0);
    }
  }
  EXPECT_TRUE(saw_tip);

  defaults.override_stiffness = true;
  ContactProblemBuilder overridden(*model_, defaults);
  EXPECT_EQ(overridden.geom_stiffness()[tip], 1000.0);
  EXPECT_EQ(overridden.geom_dissipation()[tip], 2.0);
}

TEST_F(FrontEndTest, FullContactListIsReportedNotTruncated) {
  ContactProblemBuilder builder(*model_, ContactDefaults());
  ContactProblem problem;
  ASSERT_TRUE(builder.Build(*model_, data_.get(), 0.002, &problem));
  ASSERT_GT(data_->ncon, 1);
  // An arena with the collision's stack and room for one contact.
  model_->narena = data_->maxuse_stack + static_cast<mjtSize>(sizeof(mjContact)) + 64;
  DataPtr small(mj_makeData(model_.get()));
  EXPECT_FALSE(builder.Build(*model_, small.get(), 0.002, &problem));
  // GrowArena doubles it until the list fits.
  while (!builder.Build(*model_, small.get(), 0.002, &problem)) GrowArena(model_.get(), &small);
  EXPECT_EQ(small->ncon, data_->ncon);
}

// A cylinder (radius 4 cm, half-height 5 cm) with its axis along world x, and a free 1 cm sphere placed around it.
constexpr char kSphereCylinderXml[] = R"(
<mujoco>
  <worldbody>
    <geom name="cylinder" type="cylinder" size="0.04 0.05" euler="0 90 0"/>
    <body name="ball"><freejoint/><geom name="ball" type="sphere" size="0.01" mass="0.1"/></body>
  </worldbody>
</mujoco>)";

struct SphereCylinderCase {
  const char* where;
  double center[3];
  double dist, normal[3], pos[3];  // expected: normal from the sphere toward the cylinder, pos midway
};

// MuJoCo's own sphere–cylinder collider (the gripper's pads on its mug) is the exact signed distance on the side, cap
// and rim and inside (MuJoCo 2.2.2's MPR was off by 2e-5 m at the rim and up to 0.7 in the normal inside).
TEST(NarrowPhase, MujocosSphereCylinderIsExactOnSideCapRimAndInside) {
  ModelPtr model = LoadModelFromString(kSphereCylinderXml, "sphere_cylinder");
  ConfigureModelForTamsi(model.get(), 0);
  DataPtr data(mj_makeData(model.get()));
  const double rim = std::sqrt(0.005 * 0.005 + 0.006 * 0.006);  // centre 5 mm beyond the cap, 6 mm beyond the side
  const SphereCylinderCase cases[] = {
      {"side", {0.01, 0, 0.045}, -0.005, {0, 0, -1}, {0.01, 0, 0.0375}},
      {"cap", {0.055, 0.01, 0}, -0.005, {-1, 0, 0}, {0.0475, 0.01, 0}},
      {"rim",
       {0.055, 0, 0.046},
       rim - 0.01,
       {-0.005 / rim, 0, -0.006 / rim},
       {0.055 - 0.0025 * (rim + 0.01) / rim, 0, 0.046 - 0.003 * (rim + 0.01) / rim}},
      {"inside, nearer the side", {0, 0.035, 0}, -0.015, {0, -1, 0}, {0, 0.0325, 0}},
      {"inside, nearer a cap", {-0.048, 0, 0.01}, -0.012, {1, 0, 0}, {-0.044, 0, 0.01}},
  };
  for (const SphereCylinderCase& c : cases) {
    for (int k = 0; k < 3; ++k) data->qpos[k] = c.center[k];
    mj_kinematics(model.get(), data.get());
    Collide(*model, data.get(), NarrowPhase::kAnalytic);
    ASSERT_EQ(data->ncon, 1) << c.where;
    const mjContact& contact = data->contact[0];
    EXPECT_EQ(model->geom_type[contact.geom[0]], mjGEOM_SPHERE);
    EXPECT_NEAR(contact.dist, c.dist, 1e-15) << c.where;
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(contact.frame[k], c.normal[k], 1e-12) << c.where;
      EXPECT_NEAR(contact.pos[k], c.pos[k], 1e-15) << c.where;
    }
  }
}

// A regular octagonal prism (circumradius 5 cm) of convex mesh standing 1 mm deep in the floor, tilted so that its
// bottom face's corners stand 1 mm ± 0.3 mm deep.
constexpr char kOctagonXml[] = R"(
<mujoco>
  <asset>
    <mesh name="octagon" vertex="0.05 0 0  0.03536 0.03536 0  0 0.05 0  -0.03536 0.03536 0  -0.05 0 0
                                 -0.03536 -0.03536 0  0 -0.05 0  0.03536 -0.03536 0
                                 0.05 0 0.04  0.03536 0.03536 0.04  0 0.05 0.04  -0.03536 0.03536 0.04  -0.05 0 0.04
                                 -0.03536 -0.03536 0.04  0 -0.05 0.04  0.03536 -0.03536 0.04"/>
  </asset>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="prism" pos="0 0 -0.001" euler="0.3438 0 0"><freejoint/><geom type="mesh" mesh="octagon"/></body>
  </worldbody>
</mujoco>)";

// The support collider holds the prism at all eight corners of its bottom face, each at its own depth, though
// MuJoCo's collision function contract leaves the pair room for four; MuJoCo's own convex collider gives at most four.
// The choice holds inside Collide only: mj_collision outside it (MuJoCo's own engine) keeps MuJoCo's collider.
TEST(NarrowPhase, SupportPlaneMeshHoldsEveryCornerOfAFaceInCollideOnly) {
  ModelPtr model = LoadModelFromString(kOctagonXml, "octagon");
  ConfigureModelForTamsi(model.get(), 0);
  DataPtr data(mj_makeData(model.get()));
  mj_kinematics(model.get(), data.get());
  Collide(*model, data.get(), NarrowPhase::kAnalytic);
  ASSERT_EQ(data->ncon, 8);
  const double tilt = 0.3438 * mjPI / 180.0;
  for (int c = 0; c < data->ncon; ++c) {
    const mjContact& contact = data->contact[c];
    const double corner_y = contact.pos[1] / std::cos(tilt);  // the corner's y in the prism's frame
    EXPECT_NEAR(contact.dist, -0.001 + corner_y * std::sin(tilt), 1e-6) << c;
    EXPECT_NEAR(contact.pos[2], 0.5 * contact.dist, 1e-12) << c;  // midway between the corner and the floor
    EXPECT_NEAR(contact.frame[2], 1.0, 1e-15) << c;
  }
  Collide(*model, data.get(), NarrowPhase::kMujoco);
  const int mujoco_contacts = data->ncon;
  EXPECT_GE(mujoco_contacts, 1);
  EXPECT_LE(mujoco_contacts, 4);
  mj_collision(model.get(), data.get());
  EXPECT_EQ(data->ncon, mujoco_contacts);
}

// A capsule against a box, the two poses taken from the settled N = 500 pile, where MuJoCo 4.0's capsule–box collider
// writes the one contact point twice.
constexpr char kRepeatedPointXml[] = R"(
<mujoco>
  <worldbody>
    <body pos="0.10791473 -0.194414045 0.0130183082"
          quat="0.004187142180078851 0.8908629110167764 -0.454234857008554 -0.004054169890076347">
      <geom type="box" size="0.0235 0.0187 0.0139"/>
    </body>
    <body pos="0.15200386 -0.216959802 0.0269524185"
          quat="0.12196236699193436 0.834297665944826 0.20083652098671823 0.4987356789670175">
      <freejoint/><geom type="capsule" size="0.0156 0.0132"/>
    </body>
  </worldbody>
</mujoco>)";

// Collide keeps a point reported twice once, whichever narrow phase; MuJoCo's own mj_collision keeps both copies.
TEST(NarrowPhase, APointReportedTwiceIsOneContact) {
  ModelPtr model = LoadModelFromString(kRepeatedPointXml, "repeated_point");
  DataPtr data(mj_makeData(model.get()));
  mj_kinematics(model.get(), data.get());
  mj_collision(model.get(), data.get());
  ASSERT_EQ(data->ncon, 2) << "MuJoCo no longer repeats this point: the test has lost its case";
  const mjContact first = data->contact[0];
  ASSERT_EQ(first.dist, data->contact[1].dist);
  ASSERT_LT(first.dist, 0.0);
  for (const NarrowPhase narrow_phase : {NarrowPhase::kAnalytic, NarrowPhase::kMujoco}) {
    Collide(*model, data.get(), narrow_phase);
    ASSERT_EQ(data->ncon, 1);
    EXPECT_EQ(data->contact[0].dist, first.dist);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(data->contact[0].pos[k], first.pos[k]);
  }
}

TEST(FrontEnd, PenetrationAllowanceHeuristicMatchesThePaperEraGripper) {
  // Drake's simple gripper: m_max = 0.988882 kg, allowance 1 cm: k = 970.09 N/m and d = 3.1928 s/m per contact.
  ModelPtr model = LoadModelFromString(
      R"(<mujoco><worldbody><body><freejoint/><geom type="sphere" size="0.1" mass="0.988882"/></body>
         </worldbody></mujoco>)",
      "one");
  const ContactDefaults defaults = PenetrationAllowanceDefaults(*model, 1e-2);
  EXPECT_NEAR(defaults.stiffness / 2, 970.09, 0.01);
  EXPECT_NEAR(defaults.dissipation, 3.1928, 1e-4);
}

// A box pressed into a box (the floor) in random orientations: δ0 is the true overlap, the depth of its lowest corner
// below the floor's top face (MuJoCo 2.2.2's box–box collider reported half of it).
TEST(FrontEnd, BoxBoxPenetrationIsTheTrueOverlap) {
  ModelPtr model = LoadModelFromString(R"(
<mujoco><worldbody>
  <geom name="floor" type="box" size="0.5 0.5 0.05" pos="0 0 -0.05"/>
  <body name="b"><freejoint/><geom type="box" size="0.05 0.03 0.02"/></body>
</worldbody></mujoco>)",
                                       "box_on_box");
  const mjModel& m = *model;
  DataPtr data(mj_makeData(model.get()));
  ContactProblemBuilder builder(m, ContactDefaults());
  std::mt19937 rng(3);
  std::normal_distribution<double> normal;
  const double half[3] = {0.05, 0.03, 0.02};
  for (int trial = 0; trial < 12; ++trial) {
    double* q = data->qpos + 3;
    for (int k = 0; k < 4; ++k) q[k] = normal(rng);
    mju_normalize4(q);
    data->qpos[2] = 0.0;
    mj_kinematics(&m, data.get());
    double lowest = 1e9;
    for (int c = 0; c < 8; ++c) {
      double z = data->geom_xpos[3 * 1 + 2];
      for (int k = 0; k < 3; ++k) z += data->geom_xmat[9 * 1 + 6 + k] * ((c >> k) & 1 ? 1 : -1) * half[k];
      lowest = std::min(lowest, z);
    }
    const double depth = 0.004 * (1 + trial % 3);
    data->qpos[2] = -lowest - depth;
    ContactProblem problem;
    ASSERT_TRUE(builder.Build(m, data.get(), 1e-3, &problem));
    ASSERT_GT(problem.num_contacts(), 0);
    EXPECT_NEAR(problem.delta0.maxCoeff(), depth, 1e-9) << "trial " << trial;
  }
}

TEST(FrontEnd, LoadErrorsNameTheProblem) {
  try {
    LoadModelFromFile("/nonexistent/model.xml");
    FAIL() << "expected ModelLoadError";
  } catch (const ModelLoadError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/model.xml"), std::string::npos);
  }
  EXPECT_THROW(LoadModelFromString("<mujoco><worldbody><body><geom type='sphere'/></body>", "broken"), ModelLoadError);
  EXPECT_THROW(LoadModelFromString("<mujoco><worldbody><geom type='nosuchtype' size='1'/></worldbody></mujoco>", "bad"),
               ModelLoadError);
  // Numbers MuJoCo's compiler takes but the step cannot use (a negative friction would run frictionless), by element.
  for (const auto& [xml, message] : std::vector<std::pair<std::string, std::string>>{
           {"<mujoco><worldbody><geom name='floor' type='plane' size='1 1 .1' friction='-1'/></worldbody></mujoco>",
            "geom 'floor': friction[0] must be finite and >= 0"},
           {"<mujoco><worldbody><geom name='g' type='sphere' size='.1' friction='1 nan .1'/></worldbody></mujoco>",
            "geom 'g': friction[1] must be finite and >= 0"},
           {"<mujoco><option gravity='0 0 nan'/><worldbody/></mujoco>", "option gravity must be finite"}}) {
    try {
      LoadModelFromString(xml, "numbers");
      ADD_FAILURE() << "expected ModelLoadError for " << xml;
    } catch (const ModelLoadError& e) {
      EXPECT_NE(std::string(e.what()).find("cannot load model 'numbers': " + message), std::string::npos) << e.what();
    }
  }
  // One line each, naming the model: MuJoCo's two-line XML errors and an empty file.
  try {
    LoadModelFromString("<mujoco><worldbody><body><geom type='sphere' size='x'/></body></worldbody></mujoco>", "attr");
    FAIL() << "expected ModelLoadError";
  } catch (const ModelLoadError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot load model 'attr': XML Error"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("; Element 'geom', line 1"), std::string::npos) << e.what();
  }
  const std::string empty = ::testing::TempDir() + "/empty_model.xml";
  std::ofstream(empty).close();
  try {
    LoadModelFromFile(empty);
    FAIL() << "expected ModelLoadError";
  } catch (const ModelLoadError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot load model '" + empty + "': the file is empty");
  }
}

// A binary model (.mjb) holds the compiled model whole: read back, it is the same model byte for byte, and TAMSI steps
// it to bitwise the same states as the MJCF it came from.
TEST(FrontEnd, BinaryModelsLoadAsTheCompiledMjcfAndStepTheSame) {
  const std::string xml = R"(<mujoco><option timestep="0.002"/><worldbody>
      <geom name="floor" type="plane" size="1 1 .1" user="1e5 5"/>
      <body pos="0 0 0.1"><freejoint/><geom type="box" size=".05 .04 .03" mass=".3" user="2e5 10"/></body>
      <body pos="0.02 0 0.25" euler="10 20 30"><freejoint/><geom type="sphere" size=".04" mass=".2"/></body>
      </worldbody></mujoco>)";
  ModelPtr compiled = LoadModelFromString(xml, "drop");
  const std::vector<char> bytes = ModelBinary(*compiled);
  ASSERT_EQ(bytes.size(), static_cast<size_t>(mj_sizeModel(compiled.get())));
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tamsi_binary_model_test";
  std::filesystem::create_directories(dir);
  for (const char* file : {"drop.mjb", "DROP.MJB"}) {
    std::ofstream(dir / file, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  ModelPtr loaded = LoadModelFromFile((dir / "DROP.MJB").string());
  EXPECT_EQ(ModelBinary(*loaded), bytes);

  SimulatorOptions options;
  options.solver.num_threads = 1;
  Simulator from_mjcf(LoadModelFromString(xml, "drop"), options);
  Simulator from_binary(LoadModelFromFile((dir / "drop.mjb").string()), options);
  std::filesystem::remove_all(dir);
  for (int step = 0; step < 100; ++step) {
    from_mjcf.Step();
    from_binary.Step();
  }
  const int nq = compiled->nq;
  EXPECT_EQ(std::memcmp(from_mjcf.data().qpos, from_binary.data().qpos, nq * sizeof(mjtNum)), 0);
  EXPECT_EQ(std::memcmp(from_mjcf.data().qvel, from_binary.data().qvel, compiled->nv * sizeof(mjtNum)), 0);
  EXPECT_LT(from_binary.data().qpos[2], 0.1);  // it fell onto the floor, in both
}

TEST(FrontEnd, BinaryModelErrorsNameTheFileAndTheReason) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tamsi_binary_model_errors_test";
  std::filesystem::create_directories(dir);
  auto expect_error = [&](const std::string& file, const std::vector<char>& bytes, const std::string& message) {
    const std::string path = (dir / file).string();
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    try {
      LoadModelFromFile(path);
      ADD_FAILURE() << "expected ModelLoadError for " << file;
    } catch (const ModelLoadError& e) {
      EXPECT_NE(std::string(e.what()).find("cannot load model '" + path + "': " + message), std::string::npos)
          << e.what();
    }
  };
  ModelPtr model = LoadModelFromString(
      "<mujoco><worldbody><geom name='g' type='sphere' size='.1' friction='1 .1 .1'/></worldbody></mujoco>", "g");
  std::vector<char> bytes = ModelBinary(*model);
  expect_error("empty.mjb", {}, "the file is empty");
  expect_error("truncated.mjb", std::vector<char>(bytes.begin(), bytes.begin() + bytes.size() / 2),
               std::string("not a binary model (.mjb) of MuJoCo ") + mj_versionString() + " (");
  expect_error("text.mjb", std::vector<char>(4096, 'x'), "not a binary model (.mjb) of MuJoCo");
  // The numbers MuJoCo's compiler takes but the step cannot use are refused in a binary model too.
  model->geom_friction[0] = -1;
  expect_error("friction.mjb", ModelBinary(*model), "geom 'g': friction[0] must be finite and >= 0");
  std::filesystem::remove_all(dir);
}

TEST(FrontEnd, TamsiSizingKeepsALargerArenaOfTheModelsOwn) {
  ModelPtr own = LoadModelFromString(
      R"(<mujoco><size memory="512M"/><worldbody><geom type="plane" size="1 1 1"/></worldbody></mujoco>)", "own");
  EXPECT_EQ(own->narena, mjtSize{512} << 20);
  ConfigureModelForTamsi(own.get(), 0);
  EXPECT_EQ(own->narena, mjtSize{512} << 20);
  // A small model's arena grows to the contacts the front end asks room for.
  ModelPtr small = LoadModelFromString(
      R"(<mujoco><size memory="1K"/><worldbody><geom type="plane" size="1 1 1"/></worldbody></mujoco>)", "small");
  ConfigureModelForTamsi(small.get(), 100000);
  EXPECT_GE(small->narena, static_cast<mjtSize>(100000 * sizeof(mjContact)));
}

TEST(FrontEnd, FilesResolveIncludesRelativeToTheirDirectory) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tamsi_frontend_include_test";
  std::filesystem::create_directories(dir / "parts");
  std::ofstream(dir / "parts" / "ball.xml")
      << R"(<mujoco><worldbody><body name="ball"><freejoint/><geom type="sphere" size="0.1"/></body></worldbody>
            </mujoco>)";
  std::ofstream(dir / "scene.xml") << R"(<mujoco><include file="parts/ball.xml"/></mujoco>)";
  ModelPtr model = LoadModelFromFile((dir / "scene.xml").string());
  std::filesystem::remove_all(dir);
  EXPECT_EQ(model->nv, 6);
  EXPECT_EQ(model->nbody, 2);
}

TEST(FrontEnd, LoadsModelsBeyondMuJocosDefaultArena) {
  // 3,600 free spheres, nv = 21,600: MuJoCo's compiler would take a default arena of 40 (500 + nv)² bytes (20 GB)
  // and fail to allocate it; the loader caps it.
  std::ostringstream xml;
  xml << "<mujoco><worldbody>";
  for (int i = 0; i < 3600; ++i) {
    xml << "<body pos='" << (i % 60) * 0.3 << ' ' << (i / 60) * 0.3
        << " 1'><freejoint/><geom type='sphere' size='0.1'/></body>";
  }
  xml << "</worldbody></mujoco>";
  ModelPtr model = LoadModelFromString(xml.str(), "many");
  EXPECT_EQ(model->nv, 21600);
  EXPECT_EQ(model->narena, mjtSize{256} << 20);
  ConfigureModelForTamsi(model.get(), 0);
  DataPtr data(mj_makeData(model.get()));
  mj_forward(model.get(), data.get());
  EXPECT_EQ(data->ncon, 0);
}

TEST(FrontEnd, NegativeUserStiffnessIsRejectedWithTheGeomName) {
  ModelPtr model = LoadModelFromString(
      R"(<mujoco><size nuser_geom="2"/><worldbody><geom name="floor" type="plane" size="1 1 1" user="-5 1"/>
         </worldbody></mujoco>)",
      "neg");
  try {
    ContactProblemBuilder builder(*model, ContactDefaults());
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("floor"), std::string::npos) << e.what();
  }
}

// An infinite stiffness is named as not finite (it was rejected as "must be >= 0", which it is).
TEST(FrontEnd, InfiniteUserStiffnessIsNamedAsNotFinite) {
  ModelPtr model = LoadModelFromString(
      R"(<mujoco><size nuser_geom="2"/><worldbody><geom name="floor" type="plane" size="1 1 1" user="inf 1"/>
         </worldbody></mujoco>)",
      "inf");
  try {
    ContactProblemBuilder builder(*model, ContactDefaults());
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("geom 'floor': user[0] (stiffness, N/m) must be finite and >= 0, got inf"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tamsi::scenes
