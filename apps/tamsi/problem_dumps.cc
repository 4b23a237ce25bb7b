// --dump-problems DIR, --dump-failures DIR: the problems a run hands to TAMSI, as JSON files (DESIGN.md, "Problem
// files").
#include <tamsi/problem_io.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "run_observers.h"

namespace tamsi::cli {
namespace {

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

/// Creates `dir` for `flag`; throws CLI::RuntimeError (exit status 2) when the engine has no problems or the folder
/// cannot be made.
void CreateDumpDirectory(const char* flag, const std::string& dir, const scenes::Run& run) {
  if (run.simulator().options().engine != scenes::Engine::kTamsi)
    throw CLI::RuntimeError(std::string(flag) + " needs --solver tamsi or tamsi-oneway", 2);
  CreateOutputDirectory(flag, dir);
}

/// The simulator's sinks write the files; the observer holds DIR.lock for each folder (LockFile), so that a second
/// run into the same folder is refused instead of overwriting its files.
class ProblemDumps : public scenes::RunObserver {
 public:
  void Lock(const std::string& dir, const char* flag) {
    if (!dir.empty()) locks_.push_back(std::make_unique<LockFile>(dir, std::string(flag) + " folder"));
  }

 private:
  std::vector<std::unique_ptr<LockFile>> locks_;
};

}  // namespace

std::unique_ptr<scenes::RunObserver> MakeProblemDumps(const RunArgs& args, scenes::Run* run) {
  const std::string& problems = args.request.dump_problems_dir;
  const std::string& failures = args.request.dump_failures_dir;
  if (problems.empty() && failures.empty()) return nullptr;
  auto dumps = std::make_unique<ProblemDumps>();
  if (!problems.empty()) CreateDumpDirectory("--dump-problems", problems, *run);
  if (!failures.empty()) CreateDumpDirectory("--dump-failures", failures, *run);
  dumps->Lock(problems, "--dump-problems");
  if (!SamePath(failures, problems)) dumps->Lock(failures, "--dump-failures");
  if (!problems.empty()) run->simulator().set_problem_sink(ProblemWriter(problems));
  if (!failures.empty()) run->simulator().set_failure_sink(ProblemWriter(failures));
  return dumps;
}

}  // namespace tamsi::cli
