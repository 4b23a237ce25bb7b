// The built-in scenes with Menagerie robots pass their success checks, and the checks see a failure; without the models
// folder they refuse to load with one line naming it (README, "Models").
#include <gtest/gtest.h>
#include <stdlib.h>
#include <tamsi/scenes/run.h>
#include <tamsi/scenes/scene_library.h>
#include <tamsi/scenes/simulator.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "third_party_models.h"

namespace tamsi::scenes {
namespace {

/// Runs `scene` for its duration with `engine`, wired as tamsi run wires it (Run), and returns its check results.
std::vector<CheckResult> RunChecks(Scene scene, Engine engine) {
  SimulatorOptions options;
  options.engine = engine;
  options.mujoco_solver = mjSOL_NEWTON;
  options.contact = scene.contact;
  options.solver.stiction_tolerance = scene.stiction_tolerance;
  Run run(std::move(scene), options, RunRequest{});
  while (run.time() < run.duration() - 1e-9) run.Step();
  return run.scene().checks->Results();
}

TEST(RobotiqGrasp, FrictionHoldsTheBoxUnderTamsiAndMujoco) {
  TAMSI_SKIP_WITHOUT_THIRD_PARTY_MODELS();
  for (Engine engine : {Engine::kTamsi, Engine::kMujoco}) {
    for (const CheckResult& check : RunChecks(LoadScene("robotiq_grasp"), engine)) {
      EXPECT_TRUE(check.passed) << check.name << " = " << check.value << " (bound " << check.bound << ")"
                                << (engine == Engine::kTamsi ? " tamsi" : " mujoco");
    }
  }
}

// Without friction the box slides out of the pads and the grasp fails its checks.
TEST(RobotiqGrasp, ChecksFailWithoutFriction) {
  TAMSI_SKIP_WITHOUT_THIRD_PARTY_MODELS();
  Scene scene = LoadScene("robotiq_grasp");
  for (int g = 0; g < scene.model->ngeom; ++g) scene.model->geom_friction[3 * g] = 0.0;
  bool any_failed = false;
  for (const CheckResult& check : RunChecks(std::move(scene), Engine::kTamsi)) any_failed |= !check.passed;
  EXPECT_TRUE(any_failed);
}

TEST(IiwaPickShakePlace, TheArmPicksShakesAndPlacesTheBottle) {
  TAMSI_SKIP_WITHOUT_THIRD_PARTY_MODELS();
  for (const CheckResult& check : RunChecks(LoadScene("iiwa_pick_shake_place"), Engine::kTamsi))
    EXPECT_TRUE(check.passed) << check.name << " = " << check.value << " (bound " << check.bound << ")";
}

// The grip is regulated on the simulated pad forces: with them fed back it settles below full closure once the
// pads press the bottle at the target force; with the feedback cut (the reading stays 0) it closes fully.
TEST(IiwaPickShakePlace, TheGripFollowsTheSimulatedContactForces) {
  TAMSI_SKIP_WITHOUT_THIRD_PARTY_MODELS();
  double grip[2];
  for (int fed_back = 0; fed_back < 2; ++fed_back) {
    Scene scene = LoadScene("iiwa_pick_shake_place");
    const int keyframe = FindKeyframe(*scene.model, "");
    SimulatorOptions options;
    options.contact = scene.contact;
    Simulator sim(std::move(scene.model), options, keyframe, scene.controller);
    if (fed_back) sim.set_step_observer(scene.sensor);
    while (sim.time() < 3.0) sim.Step();
    grip[fed_back] = sim.data().ctrl[sim.model().nu - 1];  // fingers_actuator, the last actuator
  }
  EXPECT_EQ(grip[0], 255.0);
  EXPECT_GT(grip[1], 10.0);
  EXPECT_LT(grip[1], 200.0);
}

TEST(AllegroMug, TheHandHoldsTheMugAndTwistsItBackAndForth) {
  TAMSI_SKIP_WITHOUT_THIRD_PARTY_MODELS();
  for (Engine engine : {Engine::kTamsi, Engine::kMujoco}) {
    for (const CheckResult& check : RunChecks(LoadScene("allegro_mug"), engine)) {
      EXPECT_TRUE(check.passed) << check.name << " = " << check.value << " (bound " << check.bound << ")"
                                << (engine == Engine::kTamsi ? " tamsi" : " mujoco");
    }
  }
}

// With the fingers' twist commands taken out (the hand holds q_c), the twist check sees no turn.
TEST(AllegroMug, TheTwistCheckSeesAHandThatDoesNotTwist) {
  TAMSI_SKIP_WITHOUT_THIRD_PARTY_MODELS();
  Scene scene = LoadScene("allegro_mug");
  Controller script = scene.controller;
  auto held = std::make_shared<std::vector<double>>();
  scene.controller = [script, held](const mjModel& model, mjData* data) {
    script(model, data);
    if (data->time < AllegroMugParameters::kTwistStart) return;
    if (held->empty()) held->assign(data->ctrl, data->ctrl + 16);
    std::copy(held->begin(), held->end(), data->ctrl);
  };
  const std::vector<CheckResult> results = RunChecks(std::move(scene), Engine::kTamsi);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].passed);   // held
  EXPECT_FALSE(results[1].passed);  // not twisted
}

// Without the models folder, or with one that lacks the robot, a robot scene refuses to load with one line naming
// the scene, the setting and the missing path; the project's own models folder does not follow the setting.
TEST(RobotScenes, WithoutTheModelsFolderTheyNameTheSetting) {
  auto load_error = [](const char* name) -> std::string {
    try {
      LoadScene(name);
    } catch (const ThirdPartyModelError& e) {
      return e.what();
    }
    return "loaded";
  };
  unsetenv("TAMSI_MODELS_DIR");
  for (const char* name : {"robotiq_grasp", "allegro_mug", "iiwa_pick_shake_place"}) {
    const std::string error = load_error(name);
    EXPECT_EQ(error.rfind(std::string(name) + " needs menagerie_current/", 0), 0u) << error;
    EXPECT_NE(error.find("under TAMSI_MODELS_DIR (unset): set it to a folder holding menagerie_current/ and ycb_sim/"),
              std::string::npos)
        << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
  const std::filesystem::path elsewhere = std::filesystem::temp_directory_path() / "tamsi_no_models_here";
  setenv("TAMSI_MODELS_DIR", elsewhere.c_str(), 1);
  EXPECT_NE(load_error("robotiq_grasp").find("which has no " + (elsewhere / "menagerie_current/robotiq_2f85").string()),
            std::string::npos)
      << load_error("robotiq_grasp");
  EXPECT_NE(ModelsDirectory(), elsewhere.string());
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(ModelsDirectory()) / "robotiq_grasp.xml"));
}

}  // namespace
}  // namespace tamsi::scenes
