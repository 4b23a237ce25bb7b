// The examples of spec quasistatic.md §7 against its reference numbers (authors' code run with Lemke).
#include "tamsi/quasistatic_examples/examples.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

namespace tamsi::quasistatic::scenes {
namespace {

Eigen::Vector3d FinalPose(const std::string& name, double epsilon) {
  const SimulationResult r = MakeExample(name, epsilon).Run();
  EXPECT_EQ(r.summary.status, SimulationStatus::kCompleted) << name << " eps " << epsilon;
  return r.trajectory.object.back();
}

TEST(QuasistaticDiskPushTest, ReferenceFinalPosesAtZeroEpsilon) {
  // Spec §7.1 table, ε = 0. The even push's θ depends on a tie in the first-contact LCP: only bound it.
  struct Case {
    const char* name;
    Eigen::Vector3d pose;
    Eigen::Vector4d fingers;
  };
  const Case cases[] = {
      {"even_push", {0.0, -5.866025404, 0.004452690665}, {0.5, -5, -0.5, -5}},
      {"lopsided_push", {-0.5393731257, -3.999224696, -0.8155562248}, {0.5, -12, -0.5, -3}},
      {"semicircle_push", {5.006750716, 1.692783863, 3.133796691}, {5.49994, 0.82283, 4.49995, 0.83068}},
  };
  for (const Case& c : cases) {
    const SimulationResult r = MakeExample(c.name, 0.0).Run();
    ASSERT_EQ(r.summary.status, SimulationStatus::kCompleted) << c.name;
    const Eigen::Vector3d& q = r.trajectory.object.back();
    EXPECT_NEAR(q(0), c.pose(0), 1e-9) << c.name;
    EXPECT_NEAR(q(1), c.pose(1), 1e-9) << c.name;
    if (std::string(c.name) == "even_push") {
      EXPECT_LE(std::abs(q(2)), 0.01);
    } else {
      EXPECT_NEAR(q(2), c.pose(2), 1e-9) << c.name;
    }
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(r.trajectory.manipulator.back()(i), c.fingers(i), 1e-5) << c.name;
    EXPECT_GE(r.summary.min_gap, -1e-9);
  }
}

TEST(QuasistaticDiskPushTest, ErrorsAgainstEpsilonMatchTheTable) {
  // Spec §7.1: e(ε) = ‖q_o^ε(T) − q_o^0(T)‖ at ε = 2^−4, 2^−8, 2^−12, 2^−20; even push by (x, y) only (§8.4).
  struct Case {
    const char* name;
    double e[4];
  };
  const Case cases[] = {{"even_push", {0.2687, 1.728e-2, 1.082e-3, 4.225e-6}},
                        {"lopsided_push", {1.543, 0.1109, 6.972e-3, 2.723e-5}},
                        {"semicircle_push", {6.867, 4.360e-2, 1.940e-3, 7.372e-6}}};
  const int exponents[] = {4, 8, 12, 20};
  for (const Case& c : cases) {
    const Eigen::Vector3d reference = FinalPose(c.name, 0.0);
    const bool xy_only = std::string(c.name) == "even_push";
    for (int k = 0; k < 4; ++k) {
      Eigen::Vector3d d = FinalPose(c.name, std::ldexp(1.0, -exponents[k])) - reference;
      if (xy_only) d(2) = 0.0;
      EXPECT_NEAR(d.norm(), c.e[k], 1e-3 * c.e[k]) << c.name << " eps 2^-" << exponents[k];
    }
  }
}

TEST(QuasistaticDiskPushTest, ErrorFallsLinearlyInEpsilon) {
  // Spec §8.4: slope 1.00 ± 0.02 over ε ∈ [2^−30, 2^−10]; the even push compares (x, y) only.
  for (const char* name : {"even_push", "lopsided_push", "semicircle_push"}) {
    EpsilonSweep sweep = RunEpsilonSweep(name, SweepEpsilons(14, 34));
    if (std::string(name) == "even_push") {
      for (size_t i = 0; i < sweep.epsilon.size(); ++i) {
        Eigen::Vector3d d = FinalPose(name, sweep.epsilon[i]) - sweep.reference;
        sweep.error[i] = d.head<2>().norm();
      }
    }
    EXPECT_NEAR(LogLogSlope(sweep, std::ldexp(1.0, -30), std::ldexp(1.0, -10)), 1.0, 0.02) << name;
  }
}

TEST(QuasistaticDiskPushTest, SemicircleLosesTheDiskAtLowGain) {
  // Spec §8.5: ε ≥ 2^−5 ends with both contacts open and e > 3; ε ≤ 2^−6 keeps the disk (e ≤ 0.32).
  const Eigen::Vector3d reference = FinalPose("semicircle_push", 0.0);
  for (int n : {2, 4, 6, 8, 9}) {  // ε = 2^(4−n) from 4 down to 2^−5
    const double epsilon = std::ldexp(1.0, 4 - n);
    const Example ex = MakeExample("semicircle_push", epsilon);
    const SimulationResult r = ex.Run();
    EXPECT_GT((r.trajectory.object.back() - reference).norm(), 3.0) << "eps " << epsilon;
    const Eigen::VectorXd phi = ex.system.EvaluateGaps(r.trajectory.object.back(), r.trajectory.manipulator.back());
    EXPECT_GT(phi.minCoeff(), 0.5) << "eps " << epsilon;
  }
  const Eigen::Vector3d held = FinalPose("semicircle_push", std::ldexp(1.0, -6));
  EXPECT_LT((held - reference).norm(), 0.33);
  const Eigen::Vector3d far = FinalPose("semicircle_push", 4.0);
  EXPECT_NEAR(far(0), -4.32, 0.01);
  EXPECT_NEAR(far(1), -1.33, 0.01);
  EXPECT_NEAR(far(2), -0.38, 0.01);
}

TEST(QuasistaticWallPushTest, JamsWithoutSolutionAtZeroEpsilon) {
  // Spec §7.2 / §8.6: the LCP of step 93 (t = 2.325 s) has no solution; the run freezes there.
  const SimulationResult r = MakeExample("wall_push", 0.0).Run();
  EXPECT_EQ(r.summary.status, SimulationStatus::kNoSolution);
  EXPECT_EQ(r.summary.failed_step, 93);
  EXPECT_NEAR(r.summary.failure_time, 2.325, 1e-12);
  const Eigen::Vector3d& q = r.trajectory.object.back();
  EXPECT_NEAR(q(0), -1.01356, 1e-5);
  EXPECT_NEAR(q(1), 1.01356, 1e-5);
  EXPECT_NEAR(q(2), 0.00666, 1e-5);
  EXPECT_NEAR(r.trajectory.manipulator.back()(0), -1.425, 1e-9);
  EXPECT_NEAR(r.trajectory.manipulator.back()(3), 1.425, 1e-9);
}

TEST(QuasistaticWallPushTest, RollsAlongTheFloorForEveryEpsilonFromTwoToTheMinus10To4) {
  // Spec §8.6 and the §7.2 table of final poses.
  const std::map<int, Eigen::Vector3d> table = {
      {2, {0.01891, 1, -1.02294}},  {1, {0.58018, 1, -1.58642}},  {0, {0.72468, 1, -1.73325}},
      {-1, {0.86372, 1, -1.87424}}, {-2, {0.91994, 1, -1.93133}}, {-4, {0.91312, 1, -1.92806}},
      {-6, {0.92340, 1, -1.93864}}, {-8, {0.92051, 1, -1.92953}}, {-10, {0.92417, 1, -1.93160}}};
  for (int e = 2; e >= -10; --e) {
    const SimulationResult r = MakeExample("wall_push", std::ldexp(1.0, e)).Run();
    ASSERT_EQ(r.summary.status, SimulationStatus::kCompleted) << "eps 2^" << e;
    EXPECT_EQ(r.summary.steps_solved, 400);
    EXPECT_GE(r.summary.min_gap, -1e-6) << "eps 2^" << e;
    const Eigen::Vector3d& q = r.trajectory.object.back();
    EXPECT_NEAR(q(1), 1.0, 1e-9) << "eps 2^" << e;
    EXPECT_LT(q(2), -1.0) << "eps 2^" << e;
    const auto it = table.find(e);
    if (it != table.end()) {
      EXPECT_LT((q - it->second).cwiseAbs().maxCoeff(), 1e-5) << "eps 2^" << e;
    }
  }
}

TEST(QuasistaticWallPushTest, JamImpulsesGrowLikeOneOverEpsilonWithBoundedDeflection) {
  // Spec §7.2: max Λ_n ≈ 3.9e3 at ε = 2^−16 and ≈ 4e6 at 2^−26; ε · max Λ_n (the finger deflection) stays bounded.
  double deflection[3];
  const int exponents[] = {-10, -16, -26};
  for (int k = 0; k < 3; ++k) {
    const double epsilon = std::ldexp(1.0, exponents[k]);
    const SimulationResult r = MakeExample("wall_push", epsilon).Run();
    ASSERT_EQ(r.summary.status, SimulationStatus::kCompleted) << "eps 2^" << exponents[k];
    deflection[k] = epsilon * r.summary.max_normal_impulse;
    if (exponents[k] == -16) {
      EXPECT_NEAR(r.summary.max_normal_impulse, 3.9e3, 0.05e3);
    } else if (exponents[k] == -26) {
      EXPECT_NEAR(r.summary.max_normal_impulse, 4.0e6, 0.05e6);
    }
  }
  for (double d : deflection) {
    EXPECT_GT(d, 0.05);
    EXPECT_LT(d, 0.07);
  }
  EXPECT_NEAR(deflection[2] / deflection[1], 1.0, 0.01);
}

TEST(QuasistaticPegInHoleTest, PegEndsInsertedInTheCorrectedSlot) {
  // Spec §7.3: with the second block counter-clockwise, the peg ends in the slot (reference (0.0100, −2.9434, 0);
  // which wall it rests against depends on ties in non-unique LCPs).
  const Example ex = MakeExample("peg_in_hole", 0.01);
  const SimulationResult r = ex.Run();
  ASSERT_EQ(r.summary.status, SimulationStatus::kCompleted);
  ASSERT_EQ(r.trajectory.time.size(), 241u);
  // t = 3.5 s (step 70): lowered onto the block top, (−1.978, 3.0, 0) in the reference.
  EXPECT_NEAR(r.trajectory.object[70](0), -1.978, 0.01);
  EXPECT_NEAR(r.trajectory.object[70](1), 3.0, 1e-6);
  EXPECT_NEAR(r.trajectory.object[70](2), 0.0, 1e-6);
  // t = 9 s (step 180): held over the slot, reference (0, 2.2773, 0).
  EXPECT_NEAR(r.trajectory.object[180](0), 0.0, 1e-3);
  EXPECT_NEAR(r.trajectory.object[180](1), 2.2773, 0.01);
  const Eigen::Vector3d& q = r.trajectory.object.back();
  EXPECT_NEAR(std::abs(q(0)), 0.0100, 1e-6);  // resting against one slot wall
  EXPECT_LT(q(1), -2.9);                      // inserted: the top (y + 3) is within 0.1 of the slot's mouth
  EXPECT_GT(q(1), -3.0);
  EXPECT_NEAR(q(2), 0.0, 1e-6);
  const Eigen::VectorXd phi = ex.system.EvaluateGaps(q, r.trajectory.manipulator.back());
  EXPECT_GT(phi.minCoeff(), -1e-6);
}

TEST(QuasistaticFourArmPinchTest, FiniteGainsHoldTheSqueezeAndCarryTheSquare) {
  // Our §6.3 example: the squeeze has no solution at ε = 0; at ε = 0.01 the square follows the grasp frame
  // (commanded (0.5, 0.25) and π/12) with extra turn from the unequal gains, every tip staying in contact.
  const SimulationResult rigid = MakeExample("four_arm_pinch", 0.0).Run();
  EXPECT_EQ(rigid.summary.status, SimulationStatus::kNoSolution);
  const Example ex = MakeExample("four_arm_pinch", 0.01);
  const SimulationResult r = ex.Run();
  ASSERT_EQ(r.summary.status, SimulationStatus::kCompleted);
  const Eigen::Vector3d& q = r.trajectory.object.back();
  EXPECT_NEAR(q(0), 0.5303, 1e-3);
  EXPECT_NEAR(q(1), 0.2353, 1e-3);
  EXPECT_NEAR(q(2), 0.4265, 1e-3);
  const Eigen::VectorXd phi = ex.system.EvaluateGaps(q, r.trajectory.manipulator.back());
  EXPECT_LT(phi.cwiseAbs().maxCoeff(), 1e-6);  // all four tips touching
  // Invariance (spec §2): doubling K and ε leaves B = ε K⁻¹ and the motion unchanged.
  Example doubled = MakeExample("four_arm_pinch", 0.02);
  doubled.parameters.gain *= 2.0;
  EXPECT_LT((doubled.Run().trajectory.object.back() - q).norm(), 1e-9);
}

TEST(QuasistaticExamplesTest, UnknownNameAndCsvHeader) {
  try {
    MakeExample("no_such_example", 0.0);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("wall_push"), std::string::npos);
  }
  EXPECT_THROW(MakeExample("even_push", -1.0), std::invalid_argument);
  const Example ex = MakeExample("even_push", 0.0);
  const SimulationResult r = ex.Run();
  std::ostringstream csv;
  WriteTrajectoryCsv(ex, r.trajectory, csv);
  std::istringstream lines(csv.str());
  std::string header, first;
  std::getline(lines, header);
  std::getline(lines, first);
  EXPECT_EQ(header,
            "time,object_x,object_y,object_theta,finger1_x,finger1_y,finger2_x,finger2_y,min_gap,max_normal_impulse,"
            "num_contacts");
  EXPECT_EQ(first, "0,0,3,0,0.5,5,-0.5,5,1.06155281281,0,0");
}

}  // namespace
}  // namespace tamsi::quasistatic::scenes
