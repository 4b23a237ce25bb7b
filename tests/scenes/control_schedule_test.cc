// Open-loop controls from a CSV file (ControlSchedule): interpolation, the motion they drive, and named errors.
#include <gtest/gtest.h>
#include <tamsi/scenes/control_schedule.h>
#include <tamsi/scenes/mujoco_model.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

namespace tamsi::scenes {
namespace {

// A 2 kg block on a frictionless slide pushed by a motor (force = ctrl, N) and a second, idle motor.
const char* kSlide = R"(
<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="block"><joint name="x" type="slide" axis="1 0 0"/><geom type="box" size="0.1 0.1 0.1" mass="2"/></body>
  </worldbody>
  <actuator><motor name="push" joint="x"/><motor name="idle" joint="x" gear="0"/></actuator>
</mujoco>)";

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(ControlSchedule, InterpolatesLinearlyAndHoldsTheEnds) {
  ModelPtr model = LoadModelFromString(kSlide, "slide");
  DataPtr data(mj_makeData(model.get()));
  const ControlSchedule schedule(*model, WriteFile("ramp.csv", "time, push\n0.5,1\n1.5,3\n2.5,-1\n"));
  data->ctrl[1] = 7.0;  // not in the file: left alone
  for (const auto& [t, expected] : {std::pair{0.0, 1.0}, {0.5, 1.0}, {1.0, 2.0}, {1.5, 3.0}, {2.0, 1.0}, {9.0, -1.0}}) {
    data->time = t;
    schedule.Apply(data.get());
    EXPECT_DOUBLE_EQ(data->ctrl[0], expected) << "t = " << t;
  }
  EXPECT_EQ(data->ctrl[1], 7.0);
}

// A force ramp from 0 to 2 N over 1 s gives the block an impulse of 1 N·s: v(1 s) = 0.5 m/s, x(1 s) = 1/6 m.
TEST(ControlSchedule, DrivesTheMotionThroughTheSimulator) {
  SimulatorOptions options;
  options.time_step = 1e-3;
  ModelPtr model = LoadModelFromString(kSlide, "slide");
  const ControlSchedule schedule(*model, WriteFile("force.csv", "time,push\n0,0\n1,2\n"));
  Simulator sim(std::move(model), options, -1, schedule.WithController({}));
  while (sim.time() < 1.0 - 1e-9) sim.Step();
  EXPECT_NEAR(sim.data().qvel[0], 0.5, 2e-3);
  EXPECT_NEAR(sim.data().qpos[0], 1.0 / 6.0, 2e-3);
}

// An actuator with first-order activation dynamics (filter, τ = 0.1 s) driven by ctrl = 1 from a control file: its
// activation follows the explicit Euler recursion act ← act + h (ctrl − act)/τ, as under MuJoCo's own integrator.
TEST(ControlSchedule, ActivationDynamicsAreIntegrated) {
  const char* xml = R"(
<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="block"><joint name="x" type="slide" axis="1 0 0"/><geom type="box" size="0.1 0.1 0.1" mass="2"/></body>
  </worldbody>
  <actuator><general name="lagged" joint="x" dyntype="filter" dynprm="0.1"/></actuator>
</mujoco>)";
  const double h = 1e-3, tau = 0.1;
  for (Engine engine : {Engine::kTamsi, Engine::kMujoco}) {
    SimulatorOptions options;
    options.time_step = h;
    options.engine = engine;
    ModelPtr model = LoadModelFromString(xml, "lagged");
    const ControlSchedule schedule(*model, WriteFile("step.csv", "time,lagged\n0,1\n"));
    Simulator sim(std::move(model), options, -1, schedule.WithController({}));
    for (int n = 0; n < 500; ++n) sim.Step();
    EXPECT_NEAR(sim.data().act[0], 1.0 - std::pow(1.0 - h / tau, 500), 1e-9)
        << (engine == Engine::kTamsi ? "tamsi" : "mujoco");
    EXPECT_GT(sim.data().qvel[0], 0.1);  // the force the activation makes moved the block
  }
}

// A file saved by a spreadsheet: a UTF-8 byte-order mark before the header and CRLF line ends.
TEST(ControlSchedule, ReadsASpreadsheetsByteOrderMarkAndCrlfLines) {
  ModelPtr model = LoadModelFromString(kSlide, "slide");
  DataPtr data(mj_makeData(model.get()));
  const ControlSchedule schedule(*model, WriteFile("excel.csv", "\xEF\xBB\xBFtime,push\r\n0,1\r\n1,3\r\n"));
  data->time = 0.5;
  schedule.Apply(data.get());
  EXPECT_DOUBLE_EQ(data->ctrl[0], 2.0);
}

TEST(ControlSchedule, BadFilesAreNamedWithWhatIsWrong) {
  ModelPtr model = LoadModelFromString(kSlide, "slide");
  auto expect_error = [&](const std::string& text, const std::string& message) {
    const std::string path = WriteFile("bad.csv", text);
    try {
      ControlSchedule(*model, path);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("control file '" + path + "': " + message), std::string::npos) << e.what();
    }
  };
  expect_error("t,push\n0,1\n", "the header must start with `time`");
  expect_error("time,pull\n0,1\n", "column 2: the model has no actuator 'pull' (it has: push, idle)");
  expect_error("time,push\n0,1\n1\n", "line 3: 1 columns, the header has 2");
  expect_error("time,push\n0,abc\n", "line 2, column 2: `abc` is not a finite number");
  expect_error("time,push\n0,1\n0,2\n", "line 3: times must increase");
  expect_error("time,push\n", "no rows after the header");
  expect_error("time,push,idle,push\n0,1,2,3\n", "column 4: actuator 'push' has column 2 already");
  expect_error("time,push\n0,nan\n", "line 2, column 2: `nan` is not a finite number");
  // MuJoCo would zero every control beyond 1e10 (mjWARN_BADCTRL): refused instead of running with no force.
  expect_error("time,push\n0,1e11\n", "line 2, column 2: `1e11` is beyond MuJoCo's largest control, 1e10");
  EXPECT_THROW(ControlSchedule(*model, ::testing::TempDir() + "/no_such.csv"), std::invalid_argument);
}

}  // namespace
}  // namespace tamsi::scenes
