#include "run_plots.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "plot_run_script.h"
#include "plot_script.h"

namespace tamsi::cli {
namespace {

std::ofstream OpenCsv(const std::filesystem::path& path) {
  std::ofstream out(path);
  if (!out) throw CLI::RuntimeError("--plots: cannot write '" + path.string() + "'", 1);
  out.precision(10);
  return out;
}

}  // namespace

RunPlots::RunPlots(const std::string& dir) : dir_(dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw CLI::RuntimeError("--plots: cannot create directory '" + dir + "'", 2);
}

void RunPlots::Observe(double time, const scenes::StepInfo& step, const scenes::SceneChecks* checks) {
  steps_.push_back({time, step.iterations, step.contacts, step.substeps, step.time_frontend, step.time_solve});
  if (!checks) return;
  check_times_.push_back(time);
  for (const scenes::CheckResult& check : checks->Results()) check_values_.push_back(check.value);
}

void RunPlots::Finish(const scenes::RunStatistics& statistics, const scenes::SceneChecks* checks) {
  const std::filesystem::path dir(dir_);
  {
    std::ofstream out = OpenCsv(dir / "steps.csv");
    out << "step,time,iterations,contacts,substeps,frontend_ms,solve_ms\n";
    for (std::size_t k = 0; k < steps_.size(); ++k) {
      const Step& s = steps_[k];
      out << k << "," << s.time << "," << s.iterations << "," << s.contacts << "," << s.substeps << ","
          << 1e3 * s.frontend << "," << 1e3 * s.solve << "\n";
    }
    CloseOutput(out, "--plots", (dir / "steps.csv").string());
  }
  {
    const scenes::SolvePhases& p = statistics.phases;
    const double solver_phases = p.residual + p.assembly + p.factorization + p.linear_solves + p.line_search;
    std::ofstream out = OpenCsv(dir / "phases.csv");
    out << "phase,seconds\nfront end," << statistics.time_frontend << "\nresiduals," << p.residual << "\nassembly,"
        << p.assembly << "\nfactorization," << p.factorization << "\nlinear solves," << p.linear_solves
        << "\nline search," << p.line_search << "\nrest of the solve,"
        << std::max(0.0, statistics.time_solve - solver_phases) << "\n";
    CloseOutput(out, "--plots", (dir / "phases.csv").string());
  }
  if (checks && !check_times_.empty()) {
    const std::vector<scenes::CheckResult> results = checks->Results();
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
  RunPlotScript("--plots", kPlotRunScript, "plot_run.py", dir);
}

}  // namespace tamsi::cli
