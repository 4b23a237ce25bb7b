#pragma once
/// @file
/// `tamsi run --plots DIR`: the per-step figures of a run (StepInfo), the summary's time split (RunStatistics) and
/// the scene's checked quantities over time, written as CSVs into DIR and drawn as PNGs by plot_run.py (matplotlib),
/// which is copied into DIR so that the figures can be redrawn from the CSVs.

#include <tamsi/scenes/scene_library.h>
#include <tamsi/scenes/simulator.h>

#include <string>
#include <vector>

namespace tamsi::cli {

class RunPlots {
 public:
  /// Creates DIR; throws CLI::RuntimeError (exit status 2) when it cannot.
  explicit RunPlots(const std::string& dir);
  /// Records the step that ended at `time` (s), and the current values of `checks` (may be null).
  void Observe(double time, const scenes::StepInfo& step, const scenes::SceneChecks* checks);
  /// Writes steps.csv, phases.csv (and checks.csv, check_bounds.csv) and runs plot_run.py with Debian's Python;
  /// throws CLI::RuntimeError (exit status 1) when it fails.
  void Finish(const scenes::RunStatistics& statistics, const scenes::SceneChecks* checks);

 private:
  struct Step {
    double time;
    int iterations, contacts, substeps;
    double frontend, solve;
  };
  std::string dir_;
  std::vector<Step> steps_;
  std::vector<double> check_times_, check_values_;  // check_values_: one row per time, one column per check
};

}  // namespace tamsi::cli
