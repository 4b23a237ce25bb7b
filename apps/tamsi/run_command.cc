#include <tamsi/problem_io.h>
#include <tamsi/scenes/model_support.h>
#include <tamsi/scenes/run.h>
#include <tamsi/scenes/run_settings.h>
#include <tamsi/scenes/scene_library.h>
#include <tamsi/scenes/simulator.h>

#include <csignal>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.h"
#include "run_observers.h"
#include "view_options.h"

namespace tamsi::cli {
namespace {

/// The requested scene and its run, not yet resumed or settled. Exit status 2 for an unknown scene, a model that
/// cannot be loaded, or an invalid setting, keyframe or control schedule.
std::unique_ptr<scenes::Run> MakeRun(const scenes::RunRequest& request) {
  scenes::Scene scene;
  try {
    scene = scenes::LoadScene(request.scene, request.scene_options);
  } catch (const std::exception& e) {  // unknown scene, missing or malformed model, invalid scene option
    throw CLI::RuntimeError(e.what(), 2);
  }
  try {
    return std::make_unique<scenes::Run>(std::move(scene), request);
  } catch (const std::invalid_argument& e) {
    throw CLI::RuntimeError(e.what(), 2);
  }
}

/// The run's steps (--duration, else the scene's); exit status 2 beyond what a run can take.
long long NumSteps(const scenes::Run& run) {
  try {
    return run.StepsFor(run.duration());
  } catch (const std::out_of_range& e) {
    throw CLI::RuntimeError(std::string("--") + e.what(), 2);
  }
}

/// "scene NAME: nq = …, nv = …, bodies = …, geoms = …; solver …, h = … s, N steps[, v_s = … m/s]", then under TAMSI
/// how its step differs from the model's integrator.
void PrintHeader(const RunArgs& args, const scenes::Run& run, long long num_steps) {
  const scenes::RunSettings& settings = args.request.settings;
  const std::string engine =
      settings.solver == "mujoco"
          ? "mujoco" + (settings.mujoco_solver.empty() ? "" : " (" + settings.mujoco_solver + ")")
          : settings.solver;
  const mjModel& model = run.model();
  const scenes::SimulatorOptions& options = run.simulator().options();
  std::cout << "scene " << run.scene().name << ": nq = " << model.nq << ", nv = " << model.nv
            << ", bodies = " << model.nbody - 1 << ", geoms = " << model.ngeom << "; solver " << engine
            << ", h = " << run.time_step() << " s, " << num_steps << " steps";
  if (options.engine == scenes::Engine::kTamsi) std::cout << ", v_s = " << options.solver.stiction_tolerance << " m/s";
  std::cout << "\n";
  const std::string integrator = scenes::IntegratorDifference(model);
  if (options.engine == scenes::Engine::kTamsi && !integrator.empty())
    std::cout << "integrator: " << integrator << "\n";
}

/// Warns of each part of the model the TAMSI step leaves out; exit status 2 for them under --strict.
void CheckSupported(const RunArgs& args, const scenes::Run& run) {
  const bool tamsi = run.simulator().options().engine == scenes::Engine::kTamsi;
  if (tamsi) {
    std::vector<scenes::UnsupportedFeature> unsupported = scenes::UnsupportedFeatures(run.model());
    // A built-in scene gives its contacts their stiffness and dissipation (Scene::contact) on purpose.
    if (run.scene().built_in) {
      unsupported.erase(std::remove_if(unsupported.begin(), unsupported.end(),
                                       [](const auto& f) { return f.kind == scenes::kContactSoftness; }),
                        unsupported.end());
    }
    for (const scenes::UnsupportedFeature& feature : unsupported)
      std::cerr << "warning: the TAMSI step leaves out the " << feature.Describe() << "\n";
    if (args.strict && !unsupported.empty()) {
      throw CLI::RuntimeError("--strict: the TAMSI step leaves out " + std::to_string(unsupported.size()) +
                                  " part(s) of the model (warnings above)",
                              2);
    }
  }
}

/// --resume (exit status 2 when the checkpoint cannot be read, does not fit, or is at or past the run's last step
/// `num_steps`), else --settle.
void Start(const RunArgs& args, scenes::Run* run, long long num_steps) {
  const std::string& path = args.request.resume_path;
  if (!path.empty()) {
    try {
      run->Resume(path);
    } catch (const std::exception& e) {  // CheckpointFormatError, or a checkpoint of another scene, engine or h
      throw CLI::RuntimeError(std::string("--resume: ") + e.what(), 2);
    }
    if (run->step() >= num_steps) {
      std::ostringstream message;
      message << "--resume: the checkpoint is at step " << run->step() << ", t = " << run->time()
              << " s, at or past the run's end (" << num_steps << " steps): nothing to continue";
      throw CLI::RuntimeError(message.str(), 2);
    }
    if (!args.quiet)
      std::cout << "resumed at step " << run->step() << ", t = " << run->time() << " s, from " << path << "\n";
    return;
  }
  if (!args.request.settle) return;
  long long steps = 0;
  const bool settled = run->Settle(&steps);
  if (!args.quiet) {
    std::cout << (settled ? "settled" : "not settled (all speeds below 1e-2 not reached)") << " after " << steps
              << " steps, t = " << run->time() << " s\n";
  }
}

// SIGINT or SIGTERM during the steps: the run stops after the step under way, so its outputs end at a whole step.
volatile std::sig_atomic_t interrupting_signal = 0;
extern "C" void RequestStop(int signal) { interrupting_signal = signal; }

/// Takes the run's steps; a failed step or problem file ends the command with exit status 1. Returns the signal that
/// stopped it early (SIGINT or SIGTERM; the caller's handlers are back when it returns), or 0.
int StepToEnd(const RunArgs& args, scenes::Run* run, long long num_steps) {
  interrupting_signal = 0;
  struct Handlers {  // a signal the caller ignores (nohup, a shell's background job) stays ignored
    Handlers() : interrupt(std::signal(SIGINT, RequestStop)), terminate(std::signal(SIGTERM, RequestStop)) {
      if (interrupt == SIG_IGN) std::signal(SIGINT, SIG_IGN);
      if (terminate == SIG_IGN) std::signal(SIGTERM, SIG_IGN);
    }
    ~Handlers() {
      std::signal(SIGINT, interrupt);
      std::signal(SIGTERM, terminate);
    }
    void (*interrupt)(int);
    void (*terminate)(int);
  } handlers;
  try {
    run->StepUntil(num_steps, [] { return interrupting_signal != 0; });
  } catch (const scenes::StepFailedError& e) {  // the observers kept what they wrote (RunObserver::OnStepFailed)
    const bool trajectory = !args.request.trajectory_path.empty();
    throw CLI::RuntimeError(
        std::string("run stopped: ") + e.what() + (trajectory ? " (the trajectory holds every step up to it)" : ""), 1);
  } catch (const ProblemFormatError& e) {
    throw CLI::RuntimeError(std::string("--dump-problems / --dump-failures: ") + e.what(), 1);
  }
  return interrupting_signal;
}

void RunScene(const RunArgs& args) {
  const std::unique_ptr<scenes::Run> run = MakeRun(args.request);
  const long long num_steps = NumSteps(*run);
  if (!args.quiet) PrintHeader(args, *run, num_steps);
  CheckSupported(args, *run);
  Start(args, run.get(), num_steps);
  for (RunObserverFactory make : kRunObservers)
    if (std::unique_ptr<scenes::RunObserver> observer = make(args, run.get())) run->AddObserver(std::move(observer));
  const int signal = StepToEnd(args, run.get(), num_steps);
  run->Finish();  // outputs flushed and closed, the summary printed
  if (signal != 0) {
    std::ostringstream message;
    message << "interrupted by " << (signal == SIGINT ? "SIGINT" : "SIGTERM") << " at step " << run->step()
            << ", t = " << run->time() << " s; the outputs hold every step up to it";
    throw CLI::RuntimeError(message.str(), 128 + signal);
  }
}

}  // namespace

void AddRunCommand(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Simulate a built-in scene or an MJCF model and print a summary");
  cmd->add_option("scene", args->request.scene,
                  std::string("Built-in scene name (tamsi list) or model file (MJCF or .mjb); default ") +
                      scenes::DefaultSceneName());
  cmd->add_option("--dt", args->request.settings.time_step, "Time step h (s); default: the model's timestep")
      ->check(Positive());
  cmd->add_option("--duration", args->request.duration, "Simulated time (s); default: the scene's")->check(Positive());
  cmd->add_option("--solver", args->request.settings.solver,
                  "tamsi, mujoco (MuJoCo's own solver), or tamsi-oneway (alias of tamsi --coupling one_way)")
      ->check(CLI::IsMember({"tamsi", "tamsi-oneway", "mujoco"}));
  cmd->add_option("--mujoco-solver", args->request.settings.mujoco_solver,
                  "With --solver mujoco: newton, cg or pgs (default: model's)")
      ->check(CLI::IsMember({"newton", "cg", "pgs"}));
  cmd->add_option("--narrow-phase", args->request.settings.narrow_phase,
                  "Sphere-cylinder and plane-mesh contacts of the TAMSI front end: analytic (closed form; every hull "
                  "vertex at a plane; default) or mujoco (MuJoCo's own colliders)")
      ->check(CLI::IsMember({"analytic", "mujoco"}));
  cmd->add_flag("--cold-duals{false}", args->request.settings.carry_friction_duals,
                "Start each step's primal-dual friction duals from its first iterate, not from the previous step's "
                "solution on the contacts that persist (the default; same solution, more Newton iterations)");
  cmd->add_flag("--cold-velocities{false}", args->request.settings.extrapolate_velocities,
                "Start each step's Newton iteration at the step's velocities v0, not at v0 plus the last step's "
                "velocity change when the last two changes agree (the default; same solution, more Newton iterations)");
  AddSolverOptions(cmd, &args->request.settings.iteration, &args->request.settings.stiction_tolerance);
  cmd->add_option("--stiffness", args->request.settings.stiffness,
                  "Per-geom contact stiffness (N/m, at most 1e12), overrides MJCF user data")
      ->check(Positive())
      ->check(AtMost(scenes::kMaxStiffness));
  cmd->add_option("--dissipation", args->request.settings.dissipation,
                  "Per-geom Hunt-Crossley dissipation (s/m, at most 1e6), overrides MJCF user data")
      ->check(NonNegative())
      ->check(AtMost(scenes::kMaxDissipation));
  cmd->add_option("--keyframe", args->request.keyframe, "Initial state: keyframe name (default: the model's first)");
  cmd->add_option("--output", args->request.trajectory_path,
                  "Trajectory CSV: time, each moving body's pose and velocity, each joint's position and velocity, "
                  "each actuator's force");
  cmd->add_option("--contacts", args->request.contacts_path,
                  "Contacts CSV: every contact and limit of every step (objects, point, normal, penetration, fn, ft)");
  cmd->add_option("--control", args->request.control_path,
                  "Actuator controls CSV: time, then one column per actuator name, linearly interpolated");
  cmd->add_flag("--strict", args->strict,
                "Exit with status 2 when the TAMSI step would leave out part of the model (see the warnings)");
  cmd->add_option("--dump-problems", args->request.dump_problems_dir,
                  "Write each step's problem as JSON into this directory");
  cmd->add_option("--dump-failures", args->request.dump_failures_dir,
                  "Write the problem of every failed solve (before its substep retry) as JSON into this directory");
  cmd->add_flag("--quiet", args->quiet, "No header and no progress lines (the summary is still printed)");
  cmd->add_option("--bodies", args->request.scene_options.clutter_bodies, "clutter_bin: number of bodies (default 200)")
      ->check(Positive());
  cmd->add_option("--seed", args->request.scene_options.clutter_seed, "clutter_bin: random seed (default 1)");
  cmd->add_option("--drop-speed", args->request.scene_options.clutter_drop_speed,
                  "clutter_bin: initial downward speed of every body (m/s, default 0)")
      ->check(NonNegative());
  cmd->add_flag("--settle", args->request.settle,
                "Simulate until at rest (speeds < 1e-2, at most 10 s) before the run (not when resuming: the "
                "checkpoint holds the settled state)");
  cmd->add_option("--checkpoint", args->request.checkpoint_path,
                  "Write the run's full state to this file every --checkpoint-every steps, atomically (the output "
                  "CSVs are flushed with it, so a killed run loses at most those steps)");
  cmd->add_option("--checkpoint-every", args->request.checkpoint_every, "Steps between checkpoints (default 100)")
      ->check(Positive());
  cmd->add_option("--resume", args->request.resume_path,
                  "Continue the run a checkpoint holds (give the run's own arguments again): the steps taken and "
                  "the output CSVs continue bitwise as if the run had never stopped");
  AddViewOptions(cmd, &args->views, /*plots=*/true);
  cmd->callback([args] { RunScene(*args); });
}

}  // namespace tamsi::cli
