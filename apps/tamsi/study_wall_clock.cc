// Wall-clock time of TAMSI against implicit Euler on x = (q, v) with the geometry at every iterate
// (scenes::MujocoOdeSystem): Fig. 7 on the gripper (paper Sec. VI-A) and the Allegro hand comparison (Sec. VI-B).
#include <tamsi/integrators/implicit_euler.h>
#include <tamsi/scenes/mujoco_ode_system.h>
#include <tamsi/scenes/run.h>
#include <tamsi/scenes/run_settings.h>
#include <tamsi/scenes/scene_library.h>
#include <tamsi/scenes/simulator.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "study.h"

namespace tamsi::cli {
namespace {

// One integrator's run: simulated and wall-clock time (s) at the end of every step, and where the mug ended.
struct WallClock {
  std::string name;
  std::vector<double> sim_times, wall_times;
  Eigen::Vector3d mug{Eigen::Vector3d::Zero()};  // the mug's position at the end (world, m)
  std::string summary;
  double sim() const { return sim_times.empty() ? 0.0 : sim_times.back(); }
  double wall() const { return wall_times.empty() ? 0.0 : wall_times.back(); }
  void Record(double t, double wall, std::ofstream* out) {
    sim_times.push_back(t);
    wall_times.push_back(wall);
    *out << name << "," << t << "," << wall << "\n";
  }
  /// Wall time when the run first reached simulated time t (s).
  double WallAt(double t) const {
    const auto at = std::lower_bound(sim_times.begin(), sim_times.end(), t - 1e-9);
    return at == sim_times.end() ? wall() : wall_times[at - sim_times.begin()];
  }
};

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The position of the free body "mug" in a configuration q (nq).
Eigen::Vector3d MugPosition(const mjModel& model, const double* q) {
  const int body = mj_name2id(&model, mjOBJ_BODY, "mug");
  const int adr = model.jnt_qposadr[model.body_jntadr[body]];
  return Eigen::Vector3d(q[adr], q[adr + 1], q[adr + 2]);
}

WallClock RunTamsi(const std::string& scene, double h, double duration, std::ofstream* out) {
  const std::unique_ptr<scenes::Run> sim = SceneRun(scene, h);
  WallClock run;
  run.name = "TAMSI";
  const auto start = std::chrono::steady_clock::now();
  const long long steps = std::llround(duration / h);
  for (long long k = 0; k < steps; ++k) {
    sim->Step();
    run.Record(sim->time(), SecondsSince(start), out);
  }
  run.mug = MugPosition(sim->model(), sim->data().qpos);
  return run;
}

// Implicit Euler (paper eq. 9) on the scene, the tangent coordinates re-centred at each step's start
// (MujocoOdeSystem), the scene's controller run in every f evaluation.
WallClock RunImplicitEuler(const std::string& scene_name, const std::string& name,
                           const integrators::ImplicitEulerOptions& options, double duration, std::ofstream* out) {
  scenes::Scene scene = scenes::LoadScene(scene_name, scenes::SceneOptions{});
  scenes::MujocoOdeOptions ode;
  ode.contact = scene.contact;
  ode.stiction_tolerance = scene.stiction_tolerance;
  ode.time_step = options.time_step;
  const int keyframe = scenes::FindKeyframe(*scene.model, "");
  scenes::MujocoOdeSystem system(std::move(scene.model), ode, keyframe, scene.controller);
  integrators::ImplicitEuler ie(&system, options);
  WallClock run;
  run.name = name;
  double t = system.initial_time();
  Eigen::VectorXd x = system.initial_state();
  const double t_end = t + duration;
  const auto start = std::chrono::steady_clock::now();
  while (t < t_end - 1e-9) {
    system.BeginStep(&x);
    if (!ie.Step(t_end, &t, &x)) {
      std::cout << "study: " << name << " failed at t = " << t << " s\n";
      break;
    }
    run.Record(t, SecondsSince(start), out);
  }
  run.mug = MugPosition(system.model(), system.Configuration(x).data());
  const integrators::ImplicitEulerStatistics& s = ie.statistics();
  std::ostringstream summary;
  summary << s.steps << " steps (smallest " << s.smallest_step << " s), " << s.newton_iterations
          << " Newton iterations, " << s.jacobian_evaluations << " Jacobians, " << system.evaluations()
          << " f evaluations, " << s.convergence_failures << " convergence failures, " << s.error_rejections
          << " error rejections, " << s.tals_limited << " TALS-limited updates";
  run.summary = summary.str();
  return run;
}

void PrintRun(const char* figure, const WallClock& run, const WallClock& tamsi) {
  std::cout << figure << ": " << run.name << ": " << run.sim() << " s simulated in " << 1e3 * run.wall() << " ms ("
            << run.sim() / run.wall() << "x real time";
  if (&run != &tamsi) std::cout << ", " << run.wall() / tamsi.WallAt(run.sim()) << "x TAMSI's wall time";
  std::cout << "), mug at (" << run.mug.transpose() << ") m";
  if (!run.summary.empty()) std::cout << "; " << run.summary;
  std::cout << "\n";
}

}  // namespace

std::unique_ptr<scenes::Run> SceneRun(const std::string& name, double h) {
  scenes::RunRequest request;  // tamsi run's defaults: two-way TAMSI, one thread, the scene's contact and v_s
  request.scene = name;
  request.settings.time_step = h;
  return std::make_unique<scenes::Run>(scenes::LoadScene(name, request.scene_options), request);
}

void StudyFigure7(const StudySettings& settings) {
  const std::string scene = scenes::DefaultSceneName();
  // The paper runs 5 s of each; quick mode 0.3 s of TAMSI and 30 ms of IE.
  const double h = 3e-3, duration = settings.quick ? 0.3 : 5.0, ie_duration = settings.quick ? 0.03 : 5.0;
  std::ofstream out = OpenStudyCsv(settings, "fig7_wall_clock.csv");
  out << "integrator,sim_time,wall_time\n";
  const WallClock tamsi = RunTamsi(scene, h, duration, &out);
  PrintRun("fig7", tamsi, tamsi);
  // Fixed steps with convergence control, full Newton, as the paper's Fig. 7.
  integrators::ImplicitEulerOptions options;
  options.newton = integrators::NewtonUpdate::kFull;
  options.time_step = h;
  for (const bool tals : {true, false}) {
    options.tals = tals;
    PrintRun("fig7", RunImplicitEuler(scene, tals ? "IE + FN + TALS" : "IE + FN", options, ie_duration, &out), tamsi);
  }
}

void StudyAllegro(const StudySettings& settings) {
  const std::string scene = "allegro_mug";
  // 3.2 s: the grasp closes (0.6 s), then one twist each way (1.2 s to 3.2 s).
  const double h = 7e-4, duration = settings.quick ? 0.02 : 3.2;
  // Loaded once first: without the models folder (README, "Models") it throws before anything is written.
  scenes::LoadScene(scene);
  std::ofstream out = OpenStudyCsv(settings, "allegro_wall_clock.csv");
  out << "integrator,sim_time,wall_time\n";
  const WallClock tamsi = RunTamsi(scene, h, duration, &out);
  PrintRun("allegro", tamsi, tamsi);
  // Error-controlled IE with quasi-Newton at a = 0.01 (m/s, state units), the paper's Sec. VI-B, with and without
  // TALS (which the paper finds does not help here).
  integrators::ImplicitEulerOptions options;
  options.newton = integrators::NewtonUpdate::kQuasi;
  options.error_controlled = true;
  options.accuracy = 0.01;
  options.time_step = h;
  for (const bool tals : {true, false}) {
    options.tals = tals;
    const char* name = tals ? "IE + QN + TALS at a = 0.01" : "IE + QN at a = 0.01";
    PrintRun("allegro", RunImplicitEuler(scene, name, options, duration, &out), tamsi);
  }
}

}  // namespace tamsi::cli
