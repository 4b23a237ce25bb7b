#include <tamsi/scenes/control_schedule.h>
#include <tamsi/scenes/run.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace tamsi::scenes {

Run::Run(Scene scene, const RunRequest& request) : scene_(std::move(scene)) {
  Build(MakeSimulatorOptions(request.settings, scene_), request);
}

Run::Run(Scene scene, const SimulatorOptions& options, const RunRequest& request) : scene_(std::move(scene)) {
  Build(options, request);
}

void Run::Build(const SimulatorOptions& options, const RunRequest& request) {
  duration_ = request.duration.value_or(scene_.duration);
  keyframe_ = FindKeyframe(*scene_.model, request.keyframe);
  Controller controller = CalcController(request);
  simulator_ = std::make_unique<Simulator>(std::move(scene_.model), options, keyframe_, std::move(controller));
  if (scene_.sensor) simulator_->set_step_observer(scene_.sensor);
  if (scene_.controller_state) controller_state_start_ = scene_.controller_state->SaveState();
  if (scene_.checks) checks_start_ = scene_.checks->SaveState();
}

void Run::Reset(const std::optional<std::string>& keyframe) {
  simulator_->Reset(keyframe ? FindKeyframe(model(), *keyframe) : keyframe_);
  if (scene_.controller_state) scene_.controller_state->RestoreState(controller_state_start_);
  if (scene_.checks) scene_.checks->RestoreState(checks_start_);
  step_ = 0;
  last_step_ = StepInfo();
  resumed_.reset();
}

Controller Run::CalcController(const RunRequest& request) const {
  Controller controller = scene_.controller;
  if (!request.control_path.empty())
    controller = ControlSchedule(*scene_.model, request.control_path).WithController(std::move(controller));
  if (!request.controller) return controller;
  return [inner = std::move(controller), outer = request.controller](const mjModel& model, mjData* data) {
    if (inner) inner(model, data);
    outer(model, data);
  };
}

const Checkpoint& Run::Resume(const std::string& path) {
  Checkpoint checkpoint = ReadCheckpoint(path);
  RestoreCheckpoint(checkpoint, simulator_.get(), &scene_);
  step_ = checkpoint.step;
  resumed_ = std::move(checkpoint);
  return *resumed_;
}

bool Run::Settle(long long* steps) {
  const bool at_rest = scenes::Settle(simulator_.get(), kSettleSpeed, kSettleTime);
  *steps = simulator_->statistics().steps;
  simulator_->ResetStatistics();
  return at_rest;
}

void Run::AddObserver(std::unique_ptr<RunObserver> observer) { observers_.push_back(std::move(observer)); }

StepInfo Run::Step() {
  try {
    last_step_ = simulator_->Step();
  } catch (const StepFailedError&) {
    for (const auto& observer : observers_) observer->OnStepFailed(*this);
    throw;
  }
  ++step_;
  // Kinematics and body velocities at the new state for the checks and the observers (reading never changes the
  // state: MuJoCo's kinematics leaves qpos alone).
  simulator_->UpdateKinematics();
  if (scene_.checks) scene_.checks->Observe(model(), data());
  for (const auto& observer : observers_) observer->OnStep(*this);
  return last_step_;
}

bool Run::StepUntil(long long step, const std::function<bool()>& stop) {
  while (step_ < step) {
    if (stop && stop()) return false;
    Step();
  }
  return true;
}

void Run::Advance(double duration) {
  if (!(std::isfinite(duration) && duration > 0.0 && duration / time_step() <= kMaxSteps)) {
    std::ostringstream message;  // numbers as %g
    message << "duration: must be finite, > 0 and at most " << kMaxSteps << " steps of h = " << time_step()
            << " s, got " << duration;
    throw std::invalid_argument(message.str());
  }
  const double end = time() + duration;
  do {
    Step();
  } while (time() + 0.5 * time_step() < end);
}

void Run::Finish() {
  for (const auto& observer : observers_) observer->OnFinish(*this);
}

long long Run::StepsFor(double duration) const {
  const double h = time_step();
  // The step count is bounded before it is rounded (duration / h can exceed what a long long holds).
  if (!(duration / h <= kMaxSteps)) {
    std::ostringstream message;  // numbers as %g
    message << "duration " << duration << " s at h = " << h << " s is more than " << kMaxSteps << " steps";
    throw std::out_of_range(message.str());
  }
  return std::max(1LL, std::llround(duration / h));
}

}  // namespace tamsi::scenes
