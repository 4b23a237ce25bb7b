// --output: the trajectory of a run, its initial state and the state after every step.
#include "run_observers.h"
#include "run_outputs.h"

namespace tamsi::cli {
namespace {

class TrajectoryOutput : public CsvOutput<TrajectoryWriter> {
 public:
  /// Writes the initial state of a run that starts afresh.
  TrajectoryOutput(const std::string& path, scenes::Run* run)
      : CsvOutput("trajectory", path, run->model(), ResumeBytes(*run, "trajectory", "--output")) {
    if (run->resumed()) return;
    run->simulator().UpdateKinematics();
    writer_.Write(run->model(), run->data());
  }
  void OnStep(const scenes::Run& run) override { writer_.Write(run.model(), run.data()); }
};

}  // namespace

std::unique_ptr<scenes::RunObserver> MakeTrajectoryOutput(const RunArgs& args, scenes::Run* run) {
  if (args.request.trajectory_path.empty()) return nullptr;
  return std::make_unique<TrajectoryOutput>(args.request.trajectory_path, run);
}

}  // namespace tamsi::cli
