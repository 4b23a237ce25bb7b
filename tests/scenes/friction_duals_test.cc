// Friction duals carried from step to step (FrictionDualCarry, SimulatorOptions::carry_friction_duals): a persisting
// contact's dual turned into its new tangent frame, the nearest contact of the same geom pair chosen, the others
// started at the first iterate; in a simulator they cut Newton iterations without moving the solution, and a state
// changed from outside is never given a stale dual.
#include <gtest/gtest.h>
#include <tamsi/scenes/friction_duals.h>
#include <tamsi/scenes/scene_library.h>
#include <tamsi/scenes/simulator.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "copy_state.h"

namespace tamsi::scenes {
namespace {

constexpr double kVs = 1e-4;  // v_s (m/s)

ContactInfo GeomContact(int geom1, int geom2, const Eigen::Vector3d& position, const Eigen::Vector3d& t1,
                        const Eigen::Vector3d& t2) {
  ContactInfo c;
  c.geom1 = geom1;
  c.geom2 = geom2;
  c.position = position;
  c.normal = t1.cross(t2);
  c.tangent1 = t1;
  c.tangent2 = t2;
  return c;
}

TEST(FrictionDualCarry, TurnsThePersistingContactsDualIntoItsNewFrame) {
  const Eigen::Vector3d x = Eigen::Vector3d::UnitX(), y = Eigen::Vector3d::UnitY();
  // Step 1: two contacts of geoms (1, 2), one sliding along t1 = x at 3 v_s, one sticking at (0.5 v_s, 0) 5 cm away.
  std::vector<ContactInfo> before{GeomContact(1, 2, Eigen::Vector3d(0, 0, 0), x, y),
                                  GeomContact(1, 2, Eigen::Vector3d(0.05, 0, 0), x, y)};
  Eigen::VectorXd vt(4);
  vt << 3 * kVs, 0, 0.5 * kVs, 0;
  FrictionDualCarry carry;
  carry.Remember(before, vt);

  // Step 2: the first contact 1 mm on, its frame turned a quarter about the normal (t1 = y, t2 = −x); a new pair;
  // a joint limit.
  ContactInfo limit;
  limit.kind = ContactInfo::Kind::kJointLimit;
  limit.object = 0;
  const std::vector<ContactInfo> after{GeomContact(1, 2, Eigen::Vector3d(0.001, 0, 0), y, -x),
                                       GeomContact(3, 4, Eigen::Vector3d(0, 0, 0), x, y), limit};
  Eigen::VectorXd vt_guess(6);
  vt_guess << 9, 9, 0, -0.25 * kVs, 7 * kVs, 0;
  int guesses = 0;
  auto guess = [&]() -> const Eigen::VectorXd& {
    ++guesses;
    return vt_guess;
  };
  Eigen::VectorXd w;
  carry.Carry(after, guess, kVs, &w);
  EXPECT_EQ(guesses, 1);
  ASSERT_EQ(w.size(), 6);
  // The sliding dual (1, 0) in the frame (x, y) is the world vector x: (t1·x, t2·x) = (0, −1) in the turned frame.
  EXPECT_NEAR(w[0], 0.0, 1e-15);
  EXPECT_NEAR(w[1], -1.0, 1e-15);
  // No match: vt_guess / max(v_s, ‖vt_guess‖).
  EXPECT_DOUBLE_EQ(w[2], 0.0);
  EXPECT_DOUBLE_EQ(w[3], -0.25);
  EXPECT_DOUBLE_EQ(w[4], 1.0);
  EXPECT_DOUBLE_EQ(w[5], 0.0);

  // The nearer of the two remembered contacts decides: 4 cm from the first, 1 cm from the sticking one.
  const std::vector<ContactInfo> near_second{GeomContact(1, 2, Eigen::Vector3d(0.04, 0, 0), x, y)};
  carry.Carry(near_second, guess, kVs, &w);
  EXPECT_EQ(guesses, 1) << "every contact had a match: no first-iterate guess is needed";
  EXPECT_DOUBLE_EQ(w[0], 0.5);
  EXPECT_DOUBLE_EQ(w[1], 0.0);

  // Save and Load keep all of it; a record of the wrong length is refused.
  FrictionDualCarry loaded;
  loaded.Load(carry.Save());
  Eigen::VectorXd w_loaded;
  loaded.Carry(after, guess, kVs, &w_loaded);
  carry.Carry(after, guess, kVs, &w);
  EXPECT_EQ(w_loaded, w);
  std::vector<double> cut = carry.Save();
  cut.pop_back();
  EXPECT_THROW(loaded.Load(cut), std::invalid_argument);
}

/// A 40-body bin after 0.1 s of falling, stepped by a simulator carrying duals or not.
std::unique_ptr<Simulator> Bin(bool carry) {
  SceneOptions scene_options;
  scene_options.clutter_bodies = 40;
  Scene scene = LoadScene("clutter_bin", scene_options);
  SimulatorOptions options;
  options.contact = scene.contact;
  options.solver.stiction_tolerance = scene.stiction_tolerance;
  options.carry_friction_duals = carry;
  return std::make_unique<Simulator>(std::move(scene.model), options);
}

// From the same states, one step with the carried duals and one started cold reach the same velocities (each within
// the solver's tolerance of the exact step), the carried ones in fewer Newton iterations over 20 steps of a pile
// coming to rest.
TEST(FrictionDualCarry, SimulatorStepsReachTheSameVelocitiesInFewerIterations) {
  std::unique_ptr<Simulator> warm = Bin(true), cold = Bin(false);
  while (warm->time() < 0.3) warm->Step();
  int warm_iterations = 0, cold_iterations = 0;
  double largest_difference = 0;
  for (int n = 0; n < 20; ++n) {
    CopyState(*warm, cold.get());
    ASSERT_FALSE(warm->SaveFrictionDuals().empty());
    warm_iterations += warm->Step().iterations;
    cold_iterations += cold->Step().iterations;
    const Eigen::Map<const Eigen::VectorXd> a(warm->data().qvel, warm->model().nv),
        b(cold->data().qvel, warm->model().nv);
    largest_difference = std::max(largest_difference, (a - b).lpNorm<Eigen::Infinity>());
  }
  EXPECT_LT(largest_difference, 1e-5);
  EXPECT_LT(warm_iterations, cold_iterations);
}

// A state edited between steps, or reset, starts its next step from the first iterate, as a new simulator would.
TEST(FrictionDualCarry, AChangedStateCarriesNothing) {
  std::unique_ptr<Simulator> sim = Bin(true);
  for (int n = 0; n < 30; ++n) sim->Step();
  EXPECT_FALSE(sim->SaveFrictionDuals().empty());
  sim->data().qvel[0] += 1e-3;
  EXPECT_TRUE(sim->SaveFrictionDuals().empty());
  sim->data().qvel[0] -= 1e-3;
  EXPECT_FALSE(sim->SaveFrictionDuals().empty());
  sim->Reset(-1);
  EXPECT_TRUE(sim->SaveFrictionDuals().empty());
  // Without carrying, a stepped simulator has nothing to save either.
  std::unique_ptr<Simulator> cold = Bin(false);
  for (int n = 0; n < 30; ++n) cold->Step();
  EXPECT_TRUE(cold->SaveFrictionDuals().empty());
}

}  // namespace
}  // namespace tamsi::scenes
