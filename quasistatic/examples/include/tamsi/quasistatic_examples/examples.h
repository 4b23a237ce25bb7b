#pragma once
/// @file
/// The examples of the quasi-static finite-feedback model (spec quasistatic.md §7) as ready-to-run scenes, the
/// trajectory CSV writer and the ε-sweep (final-pose error against ε, CSV and a log–log plot).

#include <Eigen/Dense>
#include <iosfwd>
#include <string>
#include <vector>

#include "tamsi/quasistatic/model.h"
#include "tamsi/quasistatic/simulator.h"

namespace tamsi::quasistatic::scenes {

/// Name, one-line description and default ε of a built-in example.
struct ExampleInfo {
  std::string name;
  std::string description;
  double default_epsilon = 0.0;
};

/// The built-in examples, in a fixed order: even_push, lopsided_push, semicircle_push (§7.1), wall_push (§7.2),
/// peg_in_hole (§7.3, slot geometry corrected), four_arm_pinch (§7.4, our own parameters).
const std::vector<ExampleInfo>& ListExamples();

/// A scene ready for Simulate.
struct Example {
  ExampleInfo info;
  System system;
  ModelParameters parameters;  ///< With the ε asked for.
  Command command;
  Eigen::Vector3d object0 = Eigen::Vector3d::Zero();  ///< q_o(0).
  Eigen::VectorXd manipulator0;                       ///< q_m(0), n_m.
  std::vector<std::string> manipulator_names;         ///< n_m CSV column names, e.g. "finger1_x".
  SimulationOptions options;                          ///< h and the step count of the example.

  SimulationResult Run() const { return Simulate(system, parameters, command, object0, manipulator0, options); }
};

/// Builds example `name` with feedback scaling ε ≥ 0.
/// @throws std::invalid_argument for an unknown name (the message lists the known ones) or a negative ε.
Example MakeExample(const std::string& name, double epsilon);
/// Builds example `name` with its default ε (ExampleInfo::default_epsilon).
/// @throws std::invalid_argument for an unknown name (the message lists the known ones).
Example MakeExample(const std::string& name);

/// Writes a trajectory as CSV: header `time,object_x,object_y,object_theta,<manipulator names>,min_gap,
/// max_normal_impulse,num_contacts`, then one row per stored state (SI units, rad).
void WriteTrajectoryCsv(const Example& example, const Trajectory& trajectory, std::ostream& out);

/// One ε-sweep of a disk push (spec §7.1): final object pose error e(ε) = ‖q_o^ε(T) − q_o^0(T)‖₂ over (x, y, θ).
struct EpsilonSweep {
  std::string example;
  Eigen::Vector3d reference = Eigen::Vector3d::Zero();  ///< q_o(T) at ε = 0.
  SimulationStatus reference_status = SimulationStatus::kCompleted;
  std::vector<double> epsilon;
  std::vector<double> error;
  std::vector<SimulationStatus> status;
};

/// ε_n = 2^(4−n) for n = n_first … n_last (the spec's sweep is n = 2 … 70, ε from 4 to 2^−66).
std::vector<double> SweepEpsilons(int n_first = 2, int n_last = 70);

/// Runs the example at ε = 0 and at each ε of `epsilons`.
EpsilonSweep RunEpsilonSweep(const std::string& example, const std::vector<double>& epsilons);

/// Least-squares slope of log₂ e against log₂ ε over the sweep entries with ε in [eps_min, eps_max] and e > 0.
double LogLogSlope(const EpsilonSweep& sweep, double eps_min, double eps_max);

/// Writes the sweeps as long-format CSV: `example,epsilon,error,status`.
void WriteSweepCsv(const std::vector<EpsilonSweep>& sweeps, std::ostream& out);

/// Writes a gnuplot script `script_path` that plots `csv_path` (log–log error against ε, one line per example) to
/// `png_path`, and runs gnuplot on it if gnuplot is on the PATH. Returns true when the PNG was written; false (with
/// the reason in *note) when gnuplot is absent or failed, in which case the script is left for the user to run.
bool PlotSweep(const std::vector<EpsilonSweep>& sweeps, const std::string& csv_path, const std::string& script_path,
               const std::string& png_path, std::string* note);

/// Writes a gnuplot script `script_path` plotting the planar paths in the trajectory CSV `csv_path` (written by
/// WriteTrajectoryCsv) to `png_path`: the object's (x, y) and, for manipulators with `_x`/`_y` columns, each
/// finger's path. Runs gnuplot if present; returns true when the PNG was written, else false with *note saying why.
bool PlotTrajectory(const Example& example, const std::string& csv_path, const std::string& script_path,
                    const std::string& png_path, std::string* note);

}  // namespace tamsi::quasistatic::scenes
