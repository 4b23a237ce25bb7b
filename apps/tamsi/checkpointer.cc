// --checkpoint FILE: the run's full state every --checkpoint-every steps, with what each output needs to continue.
#include "run_observers.h"

namespace tamsi::cli {
namespace {

class Checkpointer : public scenes::RunObserver {
 public:
  Checkpointer(const std::string& path, long long every) : path_(path), every_(every) {}
  /// Every `every_` steps: captures the run, adds each output's SaveTo (its flushed length), writes atomically.
  void OnStep(const scenes::Run& run) override {
    if (run.step() % every_ != 0) return;
    scenes::Checkpoint checkpoint = scenes::CaptureCheckpoint(run.simulator(), run.scene(), run.step());
    for (const auto& observer : run.observers()) observer->SaveTo(&checkpoint);
    try {
      scenes::WriteCheckpoint(checkpoint, path_);
    } catch (const std::runtime_error& e) {
      throw CLI::RuntimeError(std::string("--checkpoint: ") + e.what(), 1);
    }
  }

 private:
  std::string path_;
  long long every_;
};

}  // namespace

std::unique_ptr<scenes::RunObserver> MakeCheckpointer(const RunArgs& args, scenes::Run*) {
  if (args.request.checkpoint_path.empty()) return nullptr;
  return std::make_unique<Checkpointer>(args.request.checkpoint_path, args.request.checkpoint_every);
}

}  // namespace tamsi::cli
