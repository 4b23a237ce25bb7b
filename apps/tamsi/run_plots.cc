// `tamsi run --plots DIR`: the per-step figures of a run (StepInfo), the summary's time split (RunStatistics) and the
// scene's checked quantities over time, written as CSVs into DIR and drawn as PNGs by plot_run.py (matplotlib), which
// is copied into DIR so that the figures can be redrawn from the CSVs.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "plot_run_script.h"
#include "plot_script.h"
#include "run_observers.h"

namespace tamsi::cli {
namespace {

std::ofstream OpenCsv(const std::filesystem::path& path) {
  std::ofstream out(path);
  if (!out) throw CLI::RuntimeError("--plots: cannot write '" + path.string() + "'", 1);
  out.precision(10);
  return out;
}

class RunPlots : public scenes::RunObserver {
 public:
  /// Creates DIR and holds DIR.lock (LockFile), so that a second run into DIR is refused instead of overwriting its
  /// files; throws CLI::RuntimeError (exit status 2) when it cannot.
  explicit RunPlots(const std::string& dir);
  /// Records the step that ended at the run's time, and the current values of the scene's checks.
  void OnStep(const scenes::Run& run) override;
  /// Writes steps.csv, phases.csv (and checks.csv, check_bounds.csv) and runs plot_run.py with Debian's Python;
  /// throws CLI::RuntimeError (exit status 1) when it fails.
  void OnFinish(const scenes::Run& run) override;

 private:
  /// Writes steps.csv and phases.csv; checks.csv and check_bounds.csv.
  void WriteSteps(const scenes::RunStatistics& statistics) const;
  void WriteChecks(const scenes::SceneChecks& checks) const;

  struct Step {
    double time;
    int iterations, contacts, substeps;
    double frontend, solve, wall;
  };
  std::string dir_;
  LockFile lock_;
  std::vector<Step> steps_;
  std::vector<double> check_times_, check_values_;  // check_values_: one row per time, one column per check
};

/// DIR, created (CreateOutputDirectory).
const std::string& CreatePlotsDirectory(const std::string& dir) {
  CreateOutputDirectory("--plots", dir);
  return dir;
}

RunPlots::RunPlots(const std::string& dir) : dir_(CreatePlotsDirectory(dir)), lock_(dir, "--plots folder") {}

void RunPlots::OnStep(const scenes::Run& run) {
  const scenes::StepInfo& step = run.last_step();
  const double time = run.time();
  const scenes::SceneChecks* checks = run.scene().checks.get();
  steps_.push_back(
      {time, step.iterations, step.contacts, step.substeps, step.time_frontend, step.time_solve, step.wall_time});
  if (!checks) return;
  check_times_.push_back(time);
  for (const scenes::CheckResult& check : checks->Results()) check_values_.push_back(check.value);
}

void RunPlots::OnFinish(const scenes::Run& run) {
  WriteSteps(run.simulator().statistics());
  const scenes::SceneChecks* checks = run.scene().checks.get();
  if (checks && !check_times_.empty()) WriteChecks(*checks);
  RunPlotScript("--plots", kPlotRunScript, "plot_run.py", dir_);
}

void RunPlots::WriteSteps(const scenes::RunStatistics& statistics) const {
  const std::filesystem::path dir(dir_);
  {
    std::ofstream out = OpenCsv(dir / "steps.csv");
    out << "step,time,iterations,contacts,substeps,frontend_ms,solve_ms,wall_ms\n";
    for (std::size_t k = 0; k < steps_.size(); ++k) {
      const Step& s = steps_[k];
      out << k << "," << s.time << "," << s.iterations << "," << s.contacts << "," << s.substeps << ","
          << 1e3 * s.frontend << "," << 1e3 * s.solve << "," << 1e3 * s.wall << "\n";
    }
    CloseOutput(out, "--plots", (dir / "steps.csv").string());
  }
  {
    const SolveCounters& p = statistics.counters;
    const double factorization = p.time_symbolic + p.time_numeric;
    const double solver_phases = p.time_residual + p.time_assembly + factorization + p.time_solve + p.time_line_search;
    std::ofstream out = OpenCsv(dir / "phases.csv");
    out << "phase,seconds\nfront end," << statistics.time_frontend << "\nresiduals," << p.time_residual << "\nassembly,"
        << p.time_assembly << "\nfactorization," << factorization << "\nlinear solves," << p.time_solve
        << "\nline search," << p.time_line_search << "\nrest of the solve,"
        << std::max(0.0, statistics.time_solve - solver_phases) << "\n";
    CloseOutput(out, "--plots", (dir / "phases.csv").string());
  }
}

void RunPlots::WriteChecks(const scenes::SceneChecks& checks) const {
  const std::filesystem::path dir(dir_);
  const std::vector<scenes::CheckResult> results = checks.Results();
  std::ofstream out = OpenCsv(dir / "checks.csv"), bounds = OpenCsv(dir / "check_bounds.csv");
  out << "time";
  bounds << "check,bound\n";
  for (const scenes::CheckResult& check : results) {
    out << ",\"" << check.name << "\"";
    bounds << "\"" << check.name << "\"," << check.bound << "\n";
  }
  out << "\n";
  for (std::size_t k = 0; k < check_times_.size(); ++k) {
    out << check_times_[k];
    for (std::size_t c = 0; c < results.size(); ++c) out << "," << check_values_[k * results.size() + c];
    out << "\n";
  }
  CloseOutput(out, "--plots", (dir / "checks.csv").string());
  CloseOutput(bounds, "--plots", (dir / "check_bounds.csv").string());
}

}  // namespace

std::unique_ptr<scenes::RunObserver> MakeRunPlots(const RunArgs& args, scenes::Run*) {
  if (args.views.plots.empty()) return nullptr;
  return std::make_unique<RunPlots>(args.views.plots);
}

}  // namespace tamsi::cli
