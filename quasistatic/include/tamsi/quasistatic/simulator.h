#pragma once
/// @file
/// The per-step driver of the quasi-static model (spec quasistatic.md §4 and §6): at each step, pick a subset of
/// the candidate contacts by gap, solve the time-stepping LCP with the linearized gap, apply the pose update, and
/// grow the subset while an excluded contact would penetrate.

#include <Eigen/Dense>
#include <functional>
#include <string>
#include <vector>

#include "tamsi/quasistatic/lemke.h"
#include "tamsi/quasistatic/model.h"

namespace tamsi::quasistatic {

/// Commanded manipulator velocity u(t, q_o, q_m) (n_m; m/s or rad/s per coordinate), evaluated at the start of
/// each step (explicit in t, spec §4).
using Command = std::function<Eigen::VectorXd(double t, const Eigen::Vector3d& q_o, const Eigen::VectorXd& q_m)>;

/// Options of Simulate. Defaults are those of the authors' driver (spec §6).
struct SimulationOptions {
  double time_step = 0.025;             ///< h (s), > 0.
  int num_steps = 400;                  ///< Steps to take, ≥ 0.
  double active_gap = 1e-3;             ///< Contacts with φ below this (m) size the first subset tried.
  double penetration_tolerance = 1e-6;  ///< An excluded contact with φ < −this after the update (m) rejects it.
  /// When the LCP of a contact subset has no solution (or Lemke fails on it), retry with the doubled subset and
  /// freeze only if the full candidate set fails. The authors' driver freezes at once (false). A subset LCP can lose
  /// its solution through round-off negative gaps (spec §5), which the larger LCP may absorb.
  bool grow_on_failure = true;
  LemkeOptions lemke;  ///< Options of every LCP solve.

  /// True when every field is in range; otherwise false with a message naming the field in *why (if non-null).
  bool IsValid(std::string* why) const;
};

/// How a simulation ended.
enum class SimulationStatus {
  kCompleted,      ///< Every step had an LCP solution.
  kNoSolution,     ///< An LCP had no solution (Lemke ray; at ε = 0 a jam or squeeze). The state is held constant from
                   ///< that step on, as in the authors' driver (spec §6.4).
  kSolverFailure,  ///< Lemke hit its iteration cap, an inaccurate residual or a singular basis; state held as above.
};

/// Name of a status, e.g. "no_solution".
const char* ToString(SimulationStatus status);

/// State and diagnostics after each step; entry 0 is the initial state.
struct Trajectory {
  std::vector<double> time;                  ///< s.
  std::vector<Eigen::Vector3d> object;       ///< q_o = (x, y, θ).
  std::vector<Eigen::VectorXd> manipulator;  ///< q_m (n_m).
  std::vector<double> min_gap;               ///< min over all candidates of φ at that state (m).
  std::vector<double> max_normal_impulse;    ///< max Λ_n of the step that led there (N·s; 0 for entry 0).
  std::vector<int> num_contacts;             ///< m, contacts in the accepted LCP (0 for entry 0).
};

/// Statistics of a run (Ceres-style).
struct SimulationSummary {
  SimulationStatus status = SimulationStatus::kCompleted;
  int steps_requested = 0;
  int steps_solved = 0;       ///< Steps whose LCP was solved (the rest were held constant).
  int failed_step = -1;       ///< 0-based index of the step whose LCP failed, −1 if none.
  double failure_time = 0.0;  ///< t_k of that step (s).
  LemkeStatus failure_lemke_status = LemkeStatus::kSolved;
  int total_pivots = 0;
  int max_lcp_size = 0;             ///< Largest 4m solved.
  int subset_growths = 0;           ///< Times a contact subset was doubled because an excluded contact penetrated.
  double min_gap = 0.0;             ///< Minimum φ over all stored states (m).
  double max_normal_impulse = 0.0;  ///< Maximum Λ_n over all steps (N·s).
  double max_lcp_residual = 0.0;    ///< Worst accepted LcpResidual.
  double wall_time_seconds = 0.0;

  /// One line, e.g. "completed: 400/400 steps, 812 pivots, max LCP 20, min gap -3e-12, 0.01 s".
  std::string BriefReport() const;
  /// A multi-line table of all fields.
  std::string FullReport() const;
};

/// The result of Simulate.
struct SimulationResult {
  Trajectory trajectory;
  SimulationSummary summary;
};

/// Runs `options.num_steps` steps of the time-stepping model from (q_o0, q_m0) under `command` (spec §6): per step,
/// sort the candidates by gap, try the ceil(2^s N) closest with s = ceil(log₂(max(1, n_c)/N)), …, 0 (n_c = number
/// with φ < active_gap), solve BuildTimeSteppingLcp, update q_o += A(θ) J_oᵀ Λ and q_m += h u + B J_mᵀ Λ, and accept
/// when no excluded candidate has φ < −penetration_tolerance. An LCP without a solution grows the subset (see
/// SimulationOptions::grow_on_failure); when the full set has none, the state freezes and the status says so.
/// @throws std::invalid_argument for invalid options, parameters, sizes, or a command returning the wrong size.
SimulationResult Simulate(const System& system, const ModelParameters& parameters, const Command& command,
                          const Eigen::Vector3d& q_o0, const Eigen::VectorXd& q_m0,
                          const SimulationOptions& options = {});

}  // namespace tamsi::quasistatic
