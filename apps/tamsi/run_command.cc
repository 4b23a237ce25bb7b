#include <tamsi/problem_io.h>
#include <tamsi/scenes/checkpoint.h>
#include <tamsi/scenes/control_schedule.h>
#include <tamsi/scenes/mujoco_frontend.h>
#include <tamsi/scenes/run_settings.h>
#include <tamsi/scenes/scene_library.h>
#include <tamsi/scenes/simulator.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "html_replay.h"
#include "run_outputs.h"
#include "run_plots.h"
#include "video_recorder.h"
#include "view_options.h"

namespace tamsi::cli {
namespace {

struct RunArgs {
  std::string scene;
  std::optional<double> duration;
  scenes::RunSettings settings;  // --solver, --dt, --threads, the iteration's flags, ...
  std::string keyframe;
  std::string output_path;
  std::string contacts_path;
  std::string control_path;
  bool strict{false};
  std::string dump_dir;
  std::string failures_dir;
  bool quiet{false};
  int bodies{200};
  std::uint32_t seed{1};
  double drop_speed{0.0};
  bool settle{false};
  std::string checkpoint_path, resume_path;
  long long checkpoint_every{100};
  ViewOptions views;
};

/// A problem sink that writes each problem to DIR/step_NNNNNN.json (step_NNNNNN_subKKofMM.json for substeps).
scenes::Simulator::ProblemSink ProblemWriter(const std::string& dir) {
  return [dir](const ContactProblem& problem, long long step, int substep, int substeps) {
    char name[96];
    if (substeps == 1) {
      std::snprintf(name, sizeof(name), "step_%06lld.json", step);
    } else {
      std::snprintf(name, sizeof(name), "step_%06lld_sub%02dof%02d.json", step, substep + 1, substeps);
    }
    WriteProblem(problem, (std::filesystem::path(dir) / name).string());
  };
}

/// --resume: the checkpoint, read and put back into `sim` and `scene`. Exit status 2 when it cannot be.
scenes::Checkpoint Resume(const std::string& path, scenes::Simulator* sim, scenes::Scene* scene) {
  try {
    scenes::Checkpoint checkpoint = scenes::ReadCheckpoint(path);
    scenes::RestoreCheckpoint(checkpoint, sim, scene);
    return checkpoint;
  } catch (const std::exception& e) {  // CheckpointFormatError, or a checkpoint of another scene, engine or h
    throw CLI::RuntimeError(std::string("--resume: ") + e.what(), 2);
  }
}

/// The length at which a resumed run continues the output file `key` (-1: start it afresh, when not resuming).
long long ResumeBytes(const std::optional<scenes::Checkpoint>& resumed, const std::string& key, const char* flag) {
  if (!resumed) return -1;
  const auto it = resumed->output_bytes.find(key);
  if (it == resumed->output_bytes.end()) {
    throw CLI::RuntimeError(
        std::string(flag) + ": the checkpointed run wrote no such file; resume without " + flag + " or start afresh",
        2);
  }
  return it->second;
}

std::string Format(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

void RunScene(const RunArgs& args) {
  const std::string scene_name = args.scene.empty() ? scenes::DefaultSceneName() : args.scene;
  scenes::SceneOptions scene_options;
  scene_options.clutter_bodies = args.bodies;
  scene_options.clutter_seed = args.seed;
  scene_options.clutter_drop_speed = args.drop_speed;
  scenes::Scene scene;
  try {
    scene = scenes::LoadScene(scene_name, scene_options);
  } catch (const std::exception& e) {  // unknown scene, missing or malformed model, invalid scene option
    throw CLI::RuntimeError(e.what(), 2);
  }

  scenes::SimulatorOptions options;
  try {
    options = scenes::MakeSimulatorOptions(args.settings, scene);
  } catch (const std::invalid_argument& e) {
    throw CLI::RuntimeError(e.what(), 2);
  }

  std::unique_ptr<scenes::Simulator> simulator;
  try {
    const int keyframe = scenes::FindKeyframe(*scene.model, args.keyframe);
    scenes::Controller controller = scene.controller;
    if (!args.control_path.empty())
      controller = scenes::ControlSchedule(*scene.model, args.control_path).WithController(std::move(controller));
    simulator = std::make_unique<scenes::Simulator>(std::move(scene.model), options, keyframe, std::move(controller));
  } catch (const std::invalid_argument& e) {
    throw CLI::RuntimeError(e.what(), 2);
  }
  scenes::Simulator& sim = *simulator;
  if (scene.sensor) sim.set_step_observer(scene.sensor);
  const mjModel& model = sim.model();
  const double h = sim.time_step();
  const double duration = args.duration.value_or(scene.duration);
  // The step count is bounded before it is rounded (duration / h can exceed what a long long holds).
  constexpr double kMaxSteps = 1e12;
  if (!(duration / h <= kMaxSteps)) {
    throw CLI::RuntimeError("--duration " + Format("%g", duration) + " s at h = " + Format("%g", h) +
                                " s is more than " + Format("%g", kMaxSteps) + " steps",
                            2);
  }
  const long long num_steps = std::max(1LL, std::llround(duration / h));
  const std::string engine =
      args.settings.solver == "mujoco"
          ? "mujoco" + (args.settings.mujoco_solver.empty() ? "" : " (" + args.settings.mujoco_solver + ")")
          : args.settings.solver;
  if (!args.quiet) {
    std::cout << "scene " << scene.name << ": nq = " << model.nq << ", nv = " << model.nv
              << ", bodies = " << model.nbody - 1 << ", geoms = " << model.ngeom << "; solver " << engine
              << ", h = " << h << " s, " << num_steps << " steps";
    if (options.engine == scenes::Engine::kTamsi)
      std::cout << ", v_s = " << options.solver.stiction_tolerance << " m/s";
    std::cout << "\n";
  }
  if (options.engine == scenes::Engine::kTamsi) {
    const std::vector<std::string> unsupported = scenes::UnsupportedFeatures(model);
    for (const std::string& feature : unsupported)
      std::cerr << "warning: the TAMSI step leaves out the " << feature << "\n";
    if (args.strict && !unsupported.empty()) {
      throw CLI::RuntimeError("--strict: the TAMSI step leaves out " + std::to_string(unsupported.size()) +
                                  " part(s) of the model (warnings above)",
                              2);
    }
  }
  if (!args.contacts_path.empty() && options.engine != scenes::Engine::kTamsi)
    throw CLI::RuntimeError("--contacts needs --solver tamsi or tamsi-oneway", 2);

  std::optional<scenes::Checkpoint> resumed;
  if (!args.resume_path.empty()) {
    resumed = Resume(args.resume_path, &sim, &scene);
    if (!args.quiet)
      std::cout << "resumed at step " << resumed->step << ", t = " << sim.time() << " s, from " << args.resume_path
                << "\n";
  }
  if (args.settle && !resumed) {  // a checkpoint holds the settled state
    const bool settled = scenes::Settle(&sim, 1e-2, 10.0);
    if (!args.quiet) {
      std::cout << (settled ? "settled" : "not settled (all speeds below 1e-2 not reached)") << " after "
                << sim.statistics().steps << " steps, t = " << sim.time() << " s\n";
    }
    sim.ResetStatistics();
  }

  std::unique_ptr<ContactWriter> contacts;
  if (!args.contacts_path.empty())
    contacts = std::make_unique<ContactWriter>(args.contacts_path, ResumeBytes(resumed, "contacts", "--contacts"));
  std::unique_ptr<TrajectoryWriter> trajectory;
  if (!args.output_path.empty()) {
    trajectory =
        std::make_unique<TrajectoryWriter>(args.output_path, model, ResumeBytes(resumed, "trajectory", "--output"));
    if (!resumed) {
      sim.UpdateKinematics();
      trajectory->Write(model, sim.data());
    }
  }
  for (const auto& [flag, dir] :
       {std::pair{"--dump-problems", args.dump_dir}, {"--dump-failures", args.failures_dir}}) {
    if (dir.empty()) continue;
    if (options.engine != scenes::Engine::kTamsi) {
      throw CLI::RuntimeError(std::string(flag) + " needs --solver tamsi or tamsi-oneway", 2);
    }
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir)) throw CLI::RuntimeError("cannot create directory '" + dir + "'", 2);
  }
  // Views of the run read the state after each step and never write to it.
  std::unique_ptr<VideoRecorder> video;
  if (!args.views.video.empty()) {
    video = std::make_unique<VideoRecorder>(model, args.views, sim.time(), sim.time() + num_steps * h, h, !args.quiet);
    video->Observe(sim.data(), {});
  }
  std::unique_ptr<HtmlReplay> html;
  if (!args.views.html.empty()) {
    html = std::make_unique<HtmlReplay>(model, args.views, scene.name, sim.time(), h);
    if (html->Due(sim.time())) html->AddFrame(sim.data(), {});
  }
  std::unique_ptr<RunPlots> plots;
  if (!args.views.plots.empty()) plots = std::make_unique<RunPlots>(args.views.plots);
  const bool draw_contacts = html || (video && (args.views.contact_points || args.views.contact_forces));
  if (!args.dump_dir.empty()) sim.set_problem_sink(ProblemWriter(args.dump_dir));
  if (!args.failures_dir.empty()) sim.set_failure_sink(ProblemWriter(args.failures_dir));

  const auto start = std::chrono::steady_clock::now();
  auto last_report = start;
  for (long long k = resumed ? resumed->step : 0; k < num_steps; ++k) {
    scenes::StepInfo step;
    try {
      step = sim.Step();
      if (step.fast_bodies > 0 && sim.statistics().tunnelling_steps == 1)
        std::cerr << "warning: " << sim.statistics().first_tunnelling << "\n";
    } catch (const scenes::StepFailedError& e) {
      if (trajectory) trajectory->Flush();
      if (contacts) contacts->Flush();
      std::cout << sim.statistics().Report();
      throw CLI::RuntimeError(
          std::string("run stopped: ") + e.what() + (trajectory ? " (the trajectory holds every step up to it)" : ""),
          1);
    } catch (const ProblemFormatError& e) {
      throw CLI::RuntimeError(std::string("--dump-problems / --dump-failures: ") + e.what(), 1);
    }
    if (trajectory) {
      sim.UpdateKinematics();
      trajectory->Write(model, sim.data());
    }
    if (contacts) contacts->Write(k, sim);
    const std::vector<scenes::ContactMarker> markers =
        draw_contacts ? ContactMarkers(sim) : std::vector<scenes::ContactMarker>{};
    if (video) video->Observe(sim.data(), markers);
    if (html) {
      html->Step(sim.time(), step);
      if (html->Due(sim.time())) html->AddFrame(sim.data(), markers);
    }
    if (scene.checks) scene.checks->Observe(model, sim.data());
    if (plots) plots->Observe(sim.time(), step, scene.checks.get());
    if (!args.checkpoint_path.empty() && (k + 1) % args.checkpoint_every == 0) {
      scenes::Checkpoint checkpoint = scenes::CaptureCheckpoint(sim, scene, k + 1);
      if (trajectory) checkpoint.output_bytes["trajectory"] = trajectory->FlushedBytes();
      if (contacts) checkpoint.output_bytes["contacts"] = contacts->FlushedBytes();
      try {
        scenes::WriteCheckpoint(checkpoint, args.checkpoint_path);
      } catch (const std::runtime_error& e) {
        throw CLI::RuntimeError(std::string("--checkpoint: ") + e.what(), 1);
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (!args.quiet && std::chrono::duration<double>(now - last_report).count() > 1.0) {
      last_report = now;
      const auto& stats = sim.statistics();
      std::cerr << "  t = " << Format("%.3f", sim.time()) << " s of " << Format("%.3g", duration)
                << " s, real-time rate " << Format("%.3g", stats.real_time_rate()) << "x, contacts "
                << sim.builder().contacts().size() << "\n";
    }
  }
  if (trajectory) trajectory->Close();
  if (contacts) contacts->Close();
  std::cout << sim.statistics().Report();
  if (video) video->Finish();
  if (html) html->Finish();
  if (plots) plots->Finish(sim.statistics(), scene.checks.get());
  if (!scene.checks) return;
  int failed = 0;
  for (const scenes::CheckResult& check : scene.checks->Results()) {
    std::cout << "check            " << (check.passed ? "PASS " : "FAIL ") << check.name << " "
              << Format("%.3g", check.value) << " (bound " << Format("%.3g", check.bound) << ")\n";
    failed += !check.passed;
  }
  if (failed > 0) throw CLI::RuntimeError(std::to_string(failed) + " of the scene's checks failed", 1);
}

}  // namespace

void AddRunCommand(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Simulate a built-in scene or an MJCF model and print a summary");
  cmd->add_option("scene", args->scene,
                  std::string("Built-in scene name (tamsi list) or MJCF file; default ") + scenes::DefaultSceneName());
  cmd->add_option("--dt", args->settings.time_step, "Time step h (s); default: the model's timestep")
      ->check(Positive());
  cmd->add_option("--duration", args->duration, "Simulated time (s); default: the scene's")->check(Positive());
  cmd->add_option("--solver", args->settings.solver, "tamsi (two-way), tamsi-oneway, or mujoco (MuJoCo's own solver)")
      ->check(CLI::IsMember({"tamsi", "tamsi-oneway", "mujoco"}));
  cmd->add_option("--mujoco-solver", args->settings.mujoco_solver,
                  "With --solver mujoco: newton, cg or pgs (default: model's)")
      ->check(CLI::IsMember({"newton", "cg", "pgs"}));
  cmd->add_option("--narrow-phase", args->settings.narrow_phase,
                  "Sphere-cylinder and plane-mesh contacts of the TAMSI front end: analytic (closed form; every hull "
                  "vertex at a plane; default) or mujoco (MuJoCo's own colliders)")
      ->check(CLI::IsMember({"analytic", "mujoco"}));
  cmd->add_option("--threads", args->settings.threads, "Solver threads (0: all hardware threads)")
      ->check(NonNegative());
  AddIterationOptions(cmd, &args->settings.iteration);
  cmd->add_option("--max-iterations", args->settings.max_iterations, "Newton iteration cap per solve (default 100)")
      ->check(Positive());
  cmd->add_option("--stiffness", args->settings.stiffness,
                  "Per-geom contact stiffness (N/m, at most 1e12), overrides MJCF user data")
      ->check(Positive())
      ->check(AtMost(scenes::kMaxStiffness));
  cmd->add_option("--dissipation", args->settings.dissipation,
                  "Per-geom Hunt-Crossley dissipation (s/m, at most 1e6), overrides MJCF user data")
      ->check(NonNegative())
      ->check(AtMost(scenes::kMaxDissipation));
  cmd->add_option("--stiction-tolerance", args->settings.stiction_tolerance,
                  "Stiction tolerance v_s (m/s); default 1e-4")
      ->check(Positive());
  cmd->add_option("--keyframe", args->keyframe, "Initial state: keyframe name (default: the model's first)");
  cmd->add_option("--output", args->output_path,
                  "Trajectory CSV: time, each moving body's pose and velocity, each joint's position and velocity, "
                  "each actuator's force");
  cmd->add_option("--contacts", args->contacts_path,
                  "Contacts CSV: every contact and limit of every step (objects, point, normal, penetration, fn, ft)");
  cmd->add_option("--control", args->control_path,
                  "Actuator controls CSV: time, then one column per actuator name, linearly interpolated");
  cmd->add_flag("--strict", args->strict,
                "Exit with status 2 when the TAMSI step would leave out part of the model (see the warnings)");
  cmd->add_option("--dump-problems", args->dump_dir, "Write each step's problem as JSON into this directory");
  cmd->add_option("--dump-failures", args->failures_dir,
                  "Write the problem of every failed solve (before its substep retry) as JSON into this directory");
  cmd->add_flag("--quiet", args->quiet, "No header and no progress lines (the summary is still printed)");
  cmd->add_option("--bodies", args->bodies, "clutter_bin: number of bodies (default 200)")->check(Positive());
  cmd->add_option("--seed", args->seed, "clutter_bin: random seed (default 1)");
  cmd->add_option("--drop-speed", args->drop_speed,
                  "clutter_bin: initial downward speed of every body (m/s, default 0)")
      ->check(NonNegative());
  cmd->add_flag("--settle", args->settle,
                "Simulate until at rest (speeds < 1e-2, at most 10 s) before the run (not when resuming: the "
                "checkpoint holds the settled state)");
  cmd->add_option("--checkpoint", args->checkpoint_path,
                  "Write the run's full state to this file every --checkpoint-every steps, atomically (the output "
                  "CSVs are flushed with it, so a killed run loses at most those steps)");
  cmd->add_option("--checkpoint-every", args->checkpoint_every, "Steps between checkpoints (default 100)")
      ->check(Positive());
  cmd->add_option("--resume", args->resume_path,
                  "Continue the run a checkpoint holds (give the run's own arguments again): the steps taken and "
                  "the output CSVs continue bitwise as if the run had never stopped");
  AddViewOptions(cmd, &args->views, /*plots=*/true);
  cmd->callback([args] { RunScene(*args); });
}

}  // namespace tamsi::cli
