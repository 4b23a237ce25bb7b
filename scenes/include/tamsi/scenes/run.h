#pragma once
/// @file
/// A run of a scene: the scene and its Simulator wired once (the scene's sensor, checks and controller, a control
/// schedule, a checkpoint to resume from), stepped by Step, StepUntil or Advance, with its outputs as RunObservers.
/// `tamsi run` (apps/tamsi/run_command.cc), the Python package's Simulator, the study and the benchmarks all run
/// scenes through it, so that a scene's wiring rules live in one place.

#include <tamsi/scenes/checkpoint.h>
#include <tamsi/scenes/run_settings.h>
#include <tamsi/scenes/scene_library.h>
#include <tamsi/scenes/simulator.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tamsi::scenes {

/// What a run is asked to do: the flags of `tamsi run` and the keyword arguments of the Python package's Simulator
/// fill it. Run's constructor reads settings, keyframe, duration, control_path and controller; whoever runs it loads
/// `scene` with `scene_options` (LoadScene), acts on settle and resume_path (Run::Settle, Run::Resume) and serves the
/// outputs with its RunObservers (tamsi run's, apps/tamsi/run_observers.h).
struct RunRequest {
  /// A built-in scene's name (BuiltinScenes) or an MJCF/URDF file, and the built-in scenes' options.
  std::string scene{DefaultSceneName()};
  SceneOptions scene_options;
  /// Engine, time step, contact and solver settings; unset values take the scene's.
  RunSettings settings;
  /// The initial state: keyframe name ("": the model's first keyframe, or qpos0 at rest without one).
  std::string keyframe;
  /// Simulated time (s, > 0); the scene's duration when unset.
  std::optional<double> duration;
  /// Actuator controls CSV (ControlSchedule): applied after the scene's controller; "" for none.
  std::string control_path;
  /// Applied last at the start of every step (after the scene's controller and the control schedule); may be null.
  Controller controller;
  /// Settle before the run (Run::Settle), unless resuming: a checkpoint holds the settled state.
  bool settle{false};
  /// Checkpoint to continue (Run::Resume); "" starts afresh.
  std::string resume_path;
  /// Outputs: the trajectory and contacts CSVs, the folders for every step's problem and for every failed solve's
  /// problem (JSON), and the checkpoint file written every checkpoint_every (≥ 1) steps; "" for none.
  std::string trajectory_path, contacts_path;
  std::string dump_problems_dir, dump_failures_dir;
  std::string checkpoint_path;
  long long checkpoint_every{100};
};

class Run;

/// An output of a run (a CSV, a video, a progress line, checkpoints, ...). Run calls it after every step, when a step
/// fails and at the end; each call does nothing unless the output needs it. Observers read the run, never change it.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  /// After each step, with kinematics and body velocities at the new state, once the scene's checks have seen it.
  /// Run::step() counts the steps taken, this one included.
  virtual void OnStep(const Run& /*run*/) {}
  /// After a step failed (StepFailedError, the state is that before the step), before the error leaves Run::Step:
  /// keep what was written (flush files).
  virtual void OnStepFailed(const Run& /*run*/) {}
  /// At the end of the run (Run::Finish): close files, write pages, report.
  virtual void OnFinish(const Run& /*run*/) {}
  /// Adds what a resumed run needs from this output (e.g. the length of its file) to a checkpoint being written.
  virtual void SaveTo(Checkpoint* /*checkpoint*/) {}
};

/// A scene and its Simulator, wired once: the scene's sensor receives every step (Simulator::set_step_observer), its
/// checks observe every step of the run (not the settling), its controller runs before the request's control
/// schedule and controller; then the observers see the step, in the order they were added.
class Run {
 public:
  /// The simulator of `scene` with the options of request.settings (MakeSimulatorOptions), from request.keyframe.
  /// Throws std::invalid_argument naming the bad setting, an unknown keyframe, or a malformed control schedule.
  Run(Scene scene, const RunRequest& request);
  /// The same with the simulator's options given (benchmarks choose options that RunSettings cannot name).
  Run(Scene scene, const SimulatorOptions& options, const RunRequest& request);
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  /// Settling (Settle): every generalized speed below kSettleSpeed (m/s or rad/s), at most kSettleTime (s).
  static constexpr double kSettleSpeed = 1e-2, kSettleTime = 10.0;

  /// Continues the run a checkpoint holds: reads `path` and puts it back into the simulator and the scene; step()
  /// continues from its step. Throws CheckpointFormatError (unreadable file) or std::invalid_argument (a checkpoint
  /// of another scene, engine, time step or physics).
  const Checkpoint& Resume(const std::string& path);
  /// Steps until at rest (kSettleSpeed, kSettleTime), without the checks and observers, then starts the statistics
  /// afresh. Returns whether it came to rest; `steps` receives the steps it took.
  bool Settle(long long* steps);

  /// Starts the run afresh from keyframe `keyframe` (FindKeyframe's names; unset: the keyframe the run was made
  /// from): the simulator as Simulator::Reset leaves it, the scene's controller state and checks as they were when
  /// the run was made, step() 0. The steps that follow equal a new run's, bitwise. Throws std::invalid_argument for
  /// an unknown keyframe, naming it and the model's keyframes.
  void Reset(const std::optional<std::string>& keyframe = std::nullopt);

  /// Appends an output; observers see each step in the order they were added.
  void AddObserver(std::unique_ptr<RunObserver> observer);
  const std::vector<std::unique_ptr<RunObserver>>& observers() const { return observers_; }

  /// Takes one step; the checks, then the observers see it. Throws StepFailedError (state unchanged; observers told
  /// first), or what a controller, sink or observer throws.
  StepInfo Step();
  /// Steps until step() reaches `step` (none when it already has), or until `stop` (when given) returns true, asked
  /// after each whole step: an interrupted run ends between steps, with every output at a step boundary. Returns
  /// whether it reached `step`.
  bool StepUntil(long long step, const std::function<bool()>& stop = {});
  /// Steps until `duration` (s) more is simulated, at least one step (the last step ends within h/2 of the end).
  /// Throws std::invalid_argument unless `duration` is finite, > 0 and at most kMaxSteps steps.
  void Advance(double duration);
  /// Tells every observer the run ended (RunObserver::OnFinish).
  void Finish();

  /// The most steps one request may ask for (Advance, StepsFor): a bound on the work an input number can start.
  static constexpr double kMaxSteps = 1e12;
  /// The steps `duration` (s) takes at h: round(duration / h), at least 1. Throws std::out_of_range, the message
  /// starting with "duration", beyond kMaxSteps.
  long long StepsFor(double duration) const;

  const Scene& scene() const { return scene_; }
  Simulator& simulator() { return *simulator_; }
  const Simulator& simulator() const { return *simulator_; }
  const mjModel& model() const { return simulator_->model(); }
  const mjData& data() const { return simulator_->data(); }
  /// Simulated time (s) and time step h (s).
  double time() const { return simulator_->time(); }
  double time_step() const { return simulator_->time_step(); }
  /// The requested duration (s): RunRequest::duration, else the scene's.
  double duration() const { return duration_; }
  /// Steps taken since the run's start (a resumed run counts its checkpoint's steps), and what the last one did.
  long long step() const { return step_; }
  const StepInfo& last_step() const { return last_step_; }
  /// The checkpoint the run resumed from; null when it started afresh.
  const Checkpoint* resumed() const { return resumed_ ? &*resumed_ : nullptr; }

 private:
  /// Builds the simulator (scene_ holds the scene).
  void Build(const SimulatorOptions& options, const RunRequest& request);
  /// The scene's controller, then the request's control schedule, then its controller.
  Controller CalcController(const RunRequest& request) const;

  Scene scene_;
  std::unique_ptr<Simulator> simulator_;
  /// The keyframe the run was made from, and the scene's controller state and checks then (Reset).
  int keyframe_{-1};
  std::vector<double> controller_state_start_, checks_start_;
  double duration_{0.0};
  long long step_{0};
  StepInfo last_step_;
  std::optional<Checkpoint> resumed_;
  std::vector<std::unique_ptr<RunObserver>> observers_;
};

}  // namespace tamsi::scenes
