// The built-in scenes with Menagerie robots pass their success checks, and the checks see a failure.
#include <gtest/gtest.h>
#include <tamsi/scenes/scene_library.h>
#include <tamsi/scenes/simulator.h>

#include <string>

namespace tamsi::scenes {
namespace {

/// Runs `scene` for its duration with `engine` and returns its check results.
std::vector<CheckResult> RunChecks(Scene scene, Engine engine) {
  SimulatorOptions options;
  options.engine = engine;
  options.mujoco_solver = mjSOL_NEWTON;
  options.contact = scene.contact;
  options.solver.stiction_tolerance = scene.stiction_tolerance;
  Simulator sim(std::move(scene.model), options, -1, scene.controller);
  while (sim.time() < scene.duration - 1e-9) {
    sim.Step();
    scene.checks->Observe(sim.model(), sim.data());
  }
  return scene.checks->Results();
}

TEST(RobotiqGrasp, FrictionHoldsTheBoxUnderTamsiAndMujoco) {
  for (Engine engine : {Engine::kTamsi, Engine::kMujoco}) {
    for (const CheckResult& check : RunChecks(LoadScene("robotiq_grasp"), engine)) {
      EXPECT_TRUE(check.passed) << check.name << " = " << check.value << " (bound " << check.bound << ")"
                                << (engine == Engine::kTamsi ? " tamsi" : " mujoco");
    }
  }
}

// Without its equality constraints the 2F-85's four-bar linkages come apart and the grasp fails its checks.
TEST(RobotiqGrasp, ChecksFailWhenTheLinkagesAreLeftOut) {
  Scene scene = LoadScene("robotiq_grasp");
  scene.model->opt.disableflags |= mjDSBL_EQUALITY;
  bool any_failed = false;
  for (const CheckResult& check : RunChecks(std::move(scene), Engine::kTamsi)) any_failed |= !check.passed;
  EXPECT_TRUE(any_failed);
}

}  // namespace
}  // namespace tamsi::scenes
