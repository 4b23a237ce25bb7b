// --checkpoint FILE: the run's full state every --checkpoint-every steps, with what each output needs to continue.
#include <filesystem>
#include <system_error>

#include "commands.h"
#include "run_observers.h"

namespace tamsi::cli {
namespace {

/// The checkpoint path checked before the run starts (exit status 2): not another output of the run, not something
/// other than a regular file (a device, a folder), in a folder that exists.
void CheckCheckpointPath(const RunArgs& args) {
  const std::string& path = args.request.checkpoint_path;
  auto refuse = [&](const std::string& why) { throw CLI::RuntimeError("--checkpoint: '" + path + "' " + why, 2); };
  for (const auto& [flag, other] :
       {std::pair<const char*, const std::string&>{"--output", args.request.trajectory_path},
        {"--contacts", args.request.contacts_path},
        {"--video", args.views.video},
        {"--html", args.views.html}})
    if (SamePath(path, other)) refuse(std::string("is also the ") + flag + " file: choose another path");
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    refuse("exists and is not a regular file");
  const std::filesystem::path folder = std::filesystem::absolute(path, error).parent_path();
  if (!std::filesystem::is_directory(folder, error)) refuse("is in a folder that does not exist");
}

class Checkpointer : public scenes::RunObserver {
 public:
  /// Holds FILE.lock (LockFile) while the run lives, so that a second run writing the same checkpoint is refused.
  Checkpointer(const std::string& path, long long every) : path_(path), every_(every), lock_(path, "checkpoint") {}
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
  LockFile lock_;
};

}  // namespace

std::unique_ptr<scenes::RunObserver> MakeCheckpointer(const RunArgs& args, scenes::Run*) {
  if (args.request.checkpoint_path.empty()) return nullptr;
  CheckCheckpointPath(args);
  return std::make_unique<Checkpointer>(args.request.checkpoint_path, args.request.checkpoint_every);
}

}  // namespace tamsi::cli
