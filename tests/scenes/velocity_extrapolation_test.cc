// The Newton iteration's start extrapolated from the last step's velocity change (SimulatorOptions::
// extrapolate_velocities): a box sliding to rest under Coulomb friction decelerates at μg, so each step's velocity
// change repeats the last one; extrapolated, the step starts near its solution and converges in fewer iterations to
// the same velocities. The changes go with the state (a changed state or a reset forgets them) and through
// Save/RestoreVelocityChanges, and changes that disagree are not extrapolated.
#include <gtest/gtest.h>
#include <tamsi/scenes/mujoco_model.h>
#include <tamsi/scenes/simulator.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "copy_state.h"

namespace tamsi::scenes {
namespace {

constexpr double kMu = 0.5, kGravity = 9.81, kH = 1e-3, kSpeed = 1.0;  // μ, g (m/s²), h (s), initial speed (m/s)

/// A 10 cm box on a plane, sliding along x at 1 m/s: it stops after v/(μg) = 0.204 s.
std::unique_ptr<Simulator> SlidingBox(bool extrapolate, bool carry_duals = true) {
  const char* xml = R"(<mujoco>
  <option timestep="0.001" gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1" friction="0.5"/>
    <body name="box" pos="0 0 0.05">
      <freejoint/>
      <geom type="box" size="0.05 0.05 0.05" mass="1" friction="0.5"/>
    </body>
  </worldbody>
</mujoco>)";
  SimulatorOptions options;
  options.extrapolate_velocities = extrapolate;
  options.carry_friction_duals = carry_duals;
  auto sim = std::make_unique<Simulator>(LoadModelFromString(xml, "sliding_box"), options);
  sim->data().qvel[0] = kSpeed;
  return sim;
}

TEST(VelocityExtrapolation, ASlidingBoxReachesTheSameVelocitiesInFewerIterations) {
  // Neither carries friction duals (the cold one could not: its state is set from outside before every step).
  std::unique_ptr<Simulator> warm = SlidingBox(true, false), cold = SlidingBox(false, false);
  for (int n = 0; n < 20; ++n) warm->Step();  // the landing's transient
  int warm_iterations = 0, cold_iterations = 0;
  double largest_difference = 0.0;
  for (int n = 0; n < 100; ++n) {
    CopyState(*warm, cold.get());
    warm_iterations += warm->Step().iterations;
    cold_iterations += cold->Step().iterations;
    const Eigen::Map<const Eigen::VectorXd> a(warm->data().qvel, 6), b(cold->data().qvel, 6);
    largest_difference = std::max(largest_difference, (a - b).lpNorm<Eigen::Infinity>());
  }
  // Both within the Newton tolerance (ε_r v_s = 1e-6 m/s per update) of the same step, and on Coulomb's line.
  EXPECT_LT(largest_difference, 1e-5);
  EXPECT_NEAR(warm->data().qvel[0], kSpeed - kMu * kGravity * warm->data().time, 1e-3);
  EXPECT_LT(warm_iterations, cold_iterations) << "extrapolated " << warm_iterations << ", cold " << cold_iterations;
}

TEST(VelocityExtrapolation, TheChangesGoWithTheStateAndThroughSaveAndRestore) {
  std::unique_ptr<Simulator> sim = SlidingBox(true);
  EXPECT_TRUE(sim->SaveVelocityChanges().empty());
  sim->Step();
  EXPECT_EQ(sim->SaveVelocityChanges().size(), 6u);
  for (int n = 0; n < 100; ++n) sim->Step();
  const std::vector<double> changes = sim->SaveVelocityChanges();
  ASSERT_EQ(changes.size(), 12u);
  EXPECT_NEAR(changes[0], -kMu * kGravity * kH, 1e-5);  // Δv₁ along x: −μ g h, the landing's transient over
  sim->data().qvel[0] += 1e-3;
  EXPECT_TRUE(sim->SaveVelocityChanges().empty());
  sim->data().qvel[0] -= 1e-3;
  EXPECT_EQ(sim->SaveVelocityChanges(), changes);

  // A fresh simulator put at the same state with the same record takes bitwise the same step.
  std::unique_ptr<Simulator> resumed = SlidingBox(true);
  CopyState(*sim, resumed.get());
  resumed->RestoreFrictionDuals(sim->SaveFrictionDuals());
  resumed->RestoreVelocityChanges(changes);
  sim->Step();
  resumed->Step();
  EXPECT_TRUE(std::equal(sim->data().qvel, sim->data().qvel + 6, resumed->data().qvel));
  EXPECT_THROW(resumed->RestoreVelocityChanges(std::vector<double>(7, 0.0)), std::invalid_argument);
  // Duals restored for a state put in from outside: the changes carried for the former state are forgotten.
  sim->data().qvel[0] += 1e-3;
  sim->RestoreFrictionDuals({});
  EXPECT_TRUE(sim->SaveVelocityChanges().empty());
  sim->Step();
  sim->Step();
  EXPECT_EQ(sim->SaveVelocityChanges().size(), 12u);
  sim->Reset(-1);
  EXPECT_TRUE(sim->SaveVelocityChanges().empty());
}

TEST(VelocityExtrapolation, ChangesThatDisagreeAreNotExtrapolated) {
  std::unique_ptr<Simulator> sim = SlidingBox(true);
  for (int n = 0; n < 30; ++n) sim->Step();
  const std::vector<double> duals = sim->SaveFrictionDuals();
  std::vector<double> agreeing = sim->SaveVelocityChanges(), opposite = agreeing;
  for (int k = 6; k < 12; ++k) opposite[k] = -opposite[k - 6];  // Δv₂ = −Δv₁: ‖Δv₁ − Δv₂‖ = 2‖Δv₁‖
  auto step_from = [&](bool extrapolate, const std::vector<double>& changes) {
    std::unique_ptr<Simulator> s = SlidingBox(extrapolate);
    CopyState(*sim, s.get());
    s->RestoreFrictionDuals(duals);
    s->RestoreVelocityChanges(changes);
    s->Step();
    return std::vector<double>(s->data().qvel, s->data().qvel + 6);
  };
  const std::vector<double> cold = step_from(false, agreeing);
  EXPECT_EQ(step_from(true, opposite), cold);  // started at v0, as without extrapolation: bitwise
  EXPECT_NE(step_from(true, agreeing), cold);  // started elsewhere: the same solution, other last bits
}

}  // namespace
}  // namespace tamsi::scenes
