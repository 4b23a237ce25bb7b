// scenes::Run: the wiring of a scene (checks, observers, checkpoints) and its stepping calls.
#include <gtest/gtest.h>
#include <tamsi/scenes/run.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tamsi::scenes {
namespace {

/// Records what Run tells it: the step count at each OnStep, and whether the run finished.
class Recorder : public RunObserver {
 public:
  explicit Recorder(std::vector<long long>* steps) : steps_(steps) {}
  void OnStep(const Run& run) override { steps_->push_back(run.step()); }
  void OnFinish(const Run& run) override { steps_->push_back(-run.step()); }

 private:
  std::vector<long long>* steps_;
};

Run BoxRun(double h) {
  RunRequest request;
  request.scene = "box_stick_slip";
  request.settings.time_step = h;
  return Run(LoadScene(request.scene), request);
}

TEST(Run, ObserversSeeEveryStepInOrderThenTheEnd) {
  scenes::Run run = BoxRun(1e-3);
  std::vector<long long> seen;
  run.AddObserver(std::make_unique<Recorder>(&seen));
  run.StepUntil(3);
  run.StepUntil(2);  // already there: no step
  run.Finish();
  EXPECT_EQ(seen, (std::vector<long long>{1, 2, 3, -3}));
  EXPECT_EQ(run.simulator().statistics().steps, 3);
}

TEST(Run, AdvanceTakesAtLeastOneStepAndEndsWithinHalfAStep) {
  scenes::Run run = BoxRun(1e-3);
  run.Advance(1e-5);
  EXPECT_EQ(run.step(), 1);
  run.Advance(0.0104);
  EXPECT_EQ(run.step(), 11);
  EXPECT_NEAR(run.time(), 0.011, 1e-12);
  for (double bad : {0.0, -1.0, std::numeric_limits<double>::infinity(), std::nan(""), 1e300})  // 1e300: 1e303 steps
    EXPECT_THROW(run.Advance(bad), std::invalid_argument);
  EXPECT_EQ(run.step(), 11);  // refused before any step
}

TEST(Run, StepsForRoundsAndBoundsTheCount) {
  const scenes::Run run = BoxRun(1e-3);
  EXPECT_EQ(run.StepsFor(0.0104), 10);
  EXPECT_EQ(run.StepsFor(1e-9), 1);
  EXPECT_THROW(run.StepsFor(1e300), std::out_of_range);
}

/// Counts the steps it observes.
class CountingChecks : public SceneChecks {
 public:
  void Observe(const mjModel&, const mjData&) override { ++observed_; }
  std::vector<CheckResult> Results() const override { return {{"steps observed", observed_, 0.0, true}}; }
  std::vector<double> SaveState() const override { return {observed_}; }
  void RestoreState(const std::vector<double>& state) override { observed_ = state.at(0); }

 private:
  double observed_{0};
};

TEST(Run, TheScenesChecksSeeEveryStepButNotTheSettling) {
  RunRequest request;
  request.scene = "box_stick_slip";
  Scene scene = LoadScene(request.scene);
  scene.checks = std::make_shared<CountingChecks>();
  scenes::Run run(std::move(scene), request);
  long long settling = 0;
  run.Settle(&settling);
  EXPECT_GT(settling, 0);
  EXPECT_EQ(run.simulator().statistics().steps, 0);
  run.StepUntil(5);
  EXPECT_EQ(run.scene().checks->Results()[0].value, 5.0);
}

TEST(Run, ResetStartsAfreshAndItsStepsEqualANewRunsBitwise) {
  RunRequest request;
  request.scene = "box_stick_slip";
  request.settings.time_step = 1e-3;
  Scene scene = LoadScene(request.scene);
  scene.checks = std::make_shared<CountingChecks>();
  scenes::Run run(std::move(scene), request);
  run.StepUntil(30);
  run.simulator().data().qfrc_applied[0] = 1.0;
  run.Reset();
  EXPECT_EQ(run.step(), 0);
  EXPECT_EQ(run.time(), 0.0);
  EXPECT_EQ(run.data().qfrc_applied[0], 0.0);
  EXPECT_EQ(run.simulator().statistics().steps, 0);
  EXPECT_EQ(run.simulator().last_problem().num_contacts(), 0);
  EXPECT_EQ(run.scene().checks->Results()[0].value, 0.0);
  run.StepUntil(20);
  scenes::Run fresh = BoxRun(1e-3);
  fresh.StepUntil(20);
  const mjModel& m = run.model();
  EXPECT_EQ(std::memcmp(run.data().qpos, fresh.data().qpos, sizeof(double) * m.nq), 0);
  EXPECT_EQ(std::memcmp(run.data().qvel, fresh.data().qvel, sizeof(double) * m.nv), 0);
  EXPECT_EQ(run.scene().checks->Results()[0].value, 20.0);
  EXPECT_THROW(run.Reset("no_such_key"), std::invalid_argument);
}

TEST(Run, ResumeContinuesAtTheCheckpointsStep) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("tamsi_run_test_" + std::to_string(getpid()) + ".json")).string();
  scenes::Run first = BoxRun(1e-3);
  first.StepUntil(20);
  WriteCheckpoint(CaptureCheckpoint(first.simulator(), first.scene(), first.step()), path);
  first.StepUntil(30);
  scenes::Run resumed = BoxRun(1e-3);
  EXPECT_EQ(resumed.Resume(path).step, 20);
  EXPECT_EQ(resumed.step(), 20);
  ASSERT_NE(resumed.resumed(), nullptr);
  resumed.StepUntil(30);
  EXPECT_EQ(resumed.time(), first.time());
  EXPECT_EQ(resumed.data().qpos[0], first.data().qpos[0]);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tamsi::scenes
