// A run resumed from a checkpoint takes bitwise the same steps as the uninterrupted run, for every built-in scene
// (their controllers' and checks' state included) and both engines; mismatched and malformed checkpoints are named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <tamsi/scenes/checkpoint.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "third_party_models.h"

namespace tamsi::scenes {
namespace {

using ::testing::HasSubstr;

/// A scene wired into a simulator as `tamsi run` wires it.
struct SceneRun {
  Scene scene;
  std::unique_ptr<Simulator> sim;

  SceneRun(const std::string& name, Engine engine) {
    SceneOptions scene_options;
    scene_options.clutter_bodies = 30;
    scene = LoadScene(name, scene_options);
    SimulatorOptions options;
    options.engine = engine;
    options.contact = scene.contact;
    options.solver.stiction_tolerance = scene.stiction_tolerance;
    const int keyframe = FindKeyframe(*scene.model, "");
    sim = std::make_unique<Simulator>(std::move(scene.model), options, keyframe, scene.controller);
    if (scene.sensor) sim->set_step_observer(scene.sensor);
  }
  /// Steps until the time reaches t (s), observing the checks.
  void StepTo(double t) {
    while (sim->time() < t - 1e-9) {
      sim->Step();
      if (scene.checks) scene.checks->Observe(sim->model(), sim->data());
    }
  }
  std::vector<double> State() const {
    const mjData& d = sim->data();
    const mjModel& m = sim->model();
    std::vector<double> state(d.qpos, d.qpos + m.nq);
    state.insert(state.end(), d.qvel, d.qvel + m.nv);
    state.insert(state.end(), d.act, d.act + m.na);
    state.push_back(d.time);
    if (scene.checks)
      for (const CheckResult& check : scene.checks->Results()) state.push_back(check.value);
    return state;
  }
};

// A file of this process's running test: ctest runs the cases (and other builds' copies of them) in parallel.
std::string TempPath(const std::string& name) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string unique = std::string(test->test_suite_name()) + "." + test->name() + "." + std::to_string(getpid());
  for (char& c : unique)
    if (c == '/') c = '_';
  return (std::filesystem::temp_directory_path() / ("tamsi_checkpoint_test_" + unique + "_" + name)).string();
}

bool BitwiseEqual(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0;
}

struct ResumeCase {
  const char* scene;
  Engine engine;
  double checkpoint_time, end_time;  // s: each after the event that sets the scene's controller or checks state
  bool robot{false};                 // a robot scene, whose models are third-party (README, "Models")
};

class ResumeTest : public ::testing::TestWithParam<ResumeCase> {};

TEST_P(ResumeTest, ContinuesBitwiseAsTheUninterruptedRun) {
  const ResumeCase c = GetParam();
  if (c.robot) {
    TAMSI_SKIP_WITHOUT_THIRD_PARTY_MODELS();
  }
  const std::string path = TempPath(std::string(c.scene) + ".json");
  SceneRun uninterrupted(c.scene, c.engine);
  uninterrupted.StepTo(c.checkpoint_time);
  const long long step = std::llround(c.checkpoint_time / uninterrupted.sim->time_step());
  WriteCheckpoint(CaptureCheckpoint(*uninterrupted.sim, uninterrupted.scene, step), path);
  uninterrupted.StepTo(c.end_time);

  // The resumed run starts elsewhere (time, state, controller and checks), so a restore that missed any of it shows.
  SceneRun resumed(c.scene, c.engine);
  resumed.StepTo(0.5 * c.checkpoint_time);
  const Checkpoint checkpoint = ReadCheckpoint(path);
  EXPECT_EQ(checkpoint.step, step);
  RestoreCheckpoint(checkpoint, resumed.sim.get(), &resumed.scene);
  resumed.StepTo(c.end_time);
  EXPECT_TRUE(BitwiseEqual(resumed.State(), uninterrupted.State()));
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Scenes, ResumeTest,
                         ::testing::Values(ResumeCase{"box_stick_slip", Engine::kTamsi, 0.3, 0.5},
                                           ResumeCase{"gripper_mug_shake", Engine::kTamsi, 0.2, 0.4},
                                           ResumeCase{"gripper_mug_shake", Engine::kMujoco, 0.2, 0.4},
                                           ResumeCase{"clutter_bin", Engine::kTamsi, 0.1, 0.16},
                                           ResumeCase{"clutter_bin", Engine::kMujoco, 0.1, 0.16},
                                           ResumeCase{"robotiq_grasp", Engine::kTamsi, 0.65, 0.75, true},
                                           ResumeCase{"allegro_mug", Engine::kTamsi, 1.25, 1.35, true},
                                           ResumeCase{"iiwa_pick_shake_place", Engine::kTamsi, 2.1, 2.2, true}),
                         [](const ::testing::TestParamInfo<ResumeCase>& info) {
                           return std::string(info.param.scene) +
                                  (info.param.engine == Engine::kTamsi ? "_tamsi" : "_mujoco");
                         });

// The controller's state matters: resumed with mjData alone (the controller as a fresh scene starts it), the iiwa's
// references and grip integrator restart and the run departs from the uninterrupted one.
TEST(Checkpoint, WithoutTheControllerStateTheResumedRunDeparts) {
  TAMSI_SKIP_WITHOUT_THIRD_PARTY_MODELS();
  SceneRun uninterrupted("iiwa_pick_shake_place", Engine::kTamsi);
  uninterrupted.StepTo(2.1);
  Checkpoint checkpoint = CaptureCheckpoint(*uninterrupted.sim, uninterrupted.scene, 0);
  uninterrupted.StepTo(2.2);
  SceneRun resumed("iiwa_pick_shake_place", Engine::kTamsi);
  checkpoint.controller_state = resumed.scene.controller_state->SaveState();
  RestoreCheckpoint(checkpoint, resumed.sim.get(), &resumed.scene);
  resumed.StepTo(2.2);
  EXPECT_FALSE(BitwiseEqual(resumed.State(), uninterrupted.State()));
}

TEST(Checkpoint, AMismatchIsNamedAndLeavesTheStateAlone) {
  SceneRun box("box_stick_slip", Engine::kTamsi);
  box.StepTo(0.05);
  const Checkpoint checkpoint = CaptureCheckpoint(*box.sim, box.scene, 50);
  SceneRun other("gripper_mug_shake", Engine::kTamsi);
  const std::vector<double> before = other.State();
  auto expect_error = [&](Checkpoint c, SceneRun* run, const std::string& field) {
    try {
      RestoreCheckpoint(c, run->sim.get(), &run->scene);
      ADD_FAILURE() << "no error for " << field;
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr("checkpoint " + field)) << e.what();
    }
  };
  expect_error(checkpoint, &other, "scene");
  EXPECT_TRUE(BitwiseEqual(other.State(), before));
  Checkpoint renamed = checkpoint;
  renamed.scene = "gripper_mug_shake";
  renamed.time_step = other.sim->time_step();
  expect_error(renamed, &other, "model");  // the other scene's model, before its arrays' sizes
  EXPECT_TRUE(BitwiseEqual(other.State(), before));
  renamed.physics = PhysicsFingerprint(*other.sim);
  expect_error(renamed, &other, "qpos");
  EXPECT_TRUE(BitwiseEqual(other.State(), before));
  Checkpoint engine = checkpoint;
  engine.engine = "mujoco";
  expect_error(engine, &box, "engine");
  Checkpoint step = checkpoint;
  step.time_step *= 2;
  expect_error(step, &box, "time_step");
  Checkpoint stateful = checkpoint;
  stateful.controller_state = {1.0};
  expect_error(stateful, &box, "controller_state");
  const std::vector<double> box_before = box.State();
  Checkpoint changes = checkpoint;
  changes.velocity_changes.push_back(0.0);  // not 0, nv or 2 nv values
  expect_error(changes, &box, "velocity changes");
  EXPECT_TRUE(BitwiseEqual(box.State(), box_before));
}

// Resuming under other physics is refused by the name of what differs: a contact stiffness or a stiction tolerance
// given to the resumed run, another seed (another model), or the friction iteration.
TEST(Checkpoint, OtherPhysicsIsNamed) {
  SceneRun box("box_stick_slip", Engine::kTamsi);
  box.StepTo(0.01);
  const Checkpoint checkpoint = CaptureCheckpoint(*box.sim, box.scene, 10);
  auto expect_refused = [&](const SimulatorOptions& options, const std::string& field) {
    Scene scene = LoadScene("box_stick_slip");
    Simulator sim(std::move(scene.model), options, -1, scene.controller);
    try {
      RestoreCheckpoint(checkpoint, &sim, &scene);
      ADD_FAILURE() << "no error for " << field;
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr("checkpoint " + field + ": it was written for")) << e.what();
    }
  };
  SimulatorOptions stiffer = box.sim->options();
  stiffer.contact.stiffness *= 2;
  stiffer.contact.override_stiffness = true;
  expect_refused(stiffer, "contact.stiffness");
  SimulatorOptions looser = box.sim->options();
  looser.solver.stiction_tolerance *= 10;
  expect_refused(looser, "solver.stiction_tolerance");
  SimulatorOptions tangent = box.sim->options();
  tangent.solver.friction_newton = FrictionNewton::kTangent;
  expect_refused(tangent, "solver.friction_newton");
  // The thread count does not change results, so it may differ.
  SimulatorOptions threads = box.sim->options();
  threads.solver.num_threads = 2;
  Scene scene = LoadScene("box_stick_slip");
  Simulator sim(std::move(scene.model), threads, -1, scene.controller);
  EXPECT_NO_THROW(RestoreCheckpoint(checkpoint, &sim, &scene));
  // Another seed generates another clutter_bin model.
  SceneOptions seed1, seed2;
  seed1.clutter_bodies = seed2.clutter_bodies = 5;
  seed2.clutter_seed = 2;
  Scene bin1 = LoadScene("clutter_bin", seed1), bin2 = LoadScene("clutter_bin", seed2);
  Simulator sim1(std::move(bin1.model), SimulatorOptions(), -1), sim2(std::move(bin2.model), SimulatorOptions(), -1);
  EXPECT_NE(PhysicsFingerprint(sim1).at("model"), PhysicsFingerprint(sim2).at("model"));
}

TEST(Checkpoint, NonFiniteValuesRoundTripAndMalformedFilesAreNamed) {
  SceneRun box("box_stick_slip", Engine::kTamsi);
  Checkpoint c = CaptureCheckpoint(*box.sim, box.scene, 0);
  c.checks_state = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                    -std::numeric_limits<double>::infinity(), 0.1};
  const std::string path = TempPath("nonfinite.json");
  WriteCheckpoint(c, path);
  const Checkpoint read = ReadCheckpoint(path);
  EXPECT_TRUE(std::isnan(read.checks_state[0]));
  EXPECT_EQ(read.checks_state[1], std::numeric_limits<double>::infinity());
  EXPECT_EQ(read.checks_state[2], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(read.checks_state[3], 0.1);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  auto expect_format_error = [&](const std::string& text, const std::string& field) {
    std::ofstream(path) << text;
    try {
      ReadCheckpoint(path);
      ADD_FAILURE() << "no error for " << text;
    } catch (const CheckpointFormatError& e) {
      EXPECT_THAT(e.what(), HasSubstr(path)) << e.what();
      EXPECT_THAT(e.what(), HasSubstr(field)) << e.what();
    }
  };
  expect_format_error("", "parse");
  expect_format_error("{\"tamsi_checkpoint\": 1}", "tamsi_checkpoint");  // format 1 had no checksum nor physics
  expect_format_error("{\"tamsi_checkpoint\": 2}", "tamsi_checkpoint");  // format 2 had no friction duals
  expect_format_error("{\"tamsi_checkpoint\": 3}", "tamsi_checkpoint");  // format 3 had no velocity changes
  expect_format_error("{\"tamsi_checkpoint\": 4, \"scene\": \"box_stick_slip\"}", "engine");
  expect_format_error(
      "{\"tamsi_checkpoint\": 4, \"scene\": \"s\", \"engine\": \"tamsi\", \"time_step\": 0.001, \"step\": 1, "
      "\"time\": 0.001, \"data\": {\"qpos\": [1, \"x\"]}}",
      "data.qpos");
  // One changed digit of a written checkpoint (its step count, then a value of qpos) fails the checksum.
  WriteCheckpoint(c, path);
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  for (const std::string& field : {std::string("\"step\":0"), std::string("\"time\":0")}) {
    std::string edited = text.str();
    const auto at = edited.find(field);
    ASSERT_NE(at, std::string::npos) << field;
    edited[at + field.size() - 1] = '7';
    expect_format_error(edited, "checksum");
  }
  std::remove(path.c_str());
  EXPECT_THROW(ReadCheckpoint(path), CheckpointFormatError);
}

}  // namespace
}  // namespace tamsi::scenes
