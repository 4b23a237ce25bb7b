#include "tamsi/quasistatic/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>

namespace tamsi::quasistatic {
namespace {

struct StepOutcome {
  LemkeResult lcp;
  Eigen::Vector3d q_o;
  Eigen::VectorXd q_m;
  int num_contacts = 0;
  double max_normal_impulse = 0.0;
  int growths = 0;
};

StepOutcome Step(const System& system, const ModelParameters& parameters, const Eigen::Vector3d& q_o,
                 const Eigen::VectorXd& q_m, const Eigen::VectorXd& u, const SimulationOptions& options) {
  const ContactSet all = system.EvaluateContacts(q_o, q_m);
  const int N = all.size();
  const int nm = system.num_manipulator_coordinates();
  const double h = options.time_step;
  const Eigen::Matrix3d A = parameters.WorldLimitSurface(q_o(2));
  const Eigen::MatrixXd B = parameters.Compliance();

  std::vector<int> order(N);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int i, int k) { return all.phi(i) < all.phi(k); });
  int n_close = 0;
  for (int i = 0; i < N; ++i) n_close += all.phi(i) < options.active_gap ? 1 : 0;
  const int s0 = N > 0 ? static_cast<int>(std::ceil(std::log2(std::max(1, n_close) / static_cast<double>(N)))) : 0;

  StepOutcome out;
  for (int s = s0; s <= 0; ++s) {
    const int m = std::min(N, static_cast<int>(std::ceil(std::ldexp(static_cast<double>(N), s))));
    const ContactSet c = all.Subset(std::vector<int>(order.begin(), order.begin() + m));
    const ContactLcp lcp = BuildTimeSteppingLcp(c, A, B, u, h);
    out.lcp = SolveLcp(lcp.M, lcp.q, options.lemke);
    out.num_contacts = m;
    if (out.lcp.status != LemkeStatus::kSolved) {
      if (m == N || !options.grow_on_failure) return out;
      ++out.growths;
      continue;
    }
    Eigen::MatrixXd J(3 * m, 3 + nm);
    J << c.Jn, c.Jt;
    const Eigen::VectorXd impulse = out.lcp.z.head(3 * m);
    out.q_o = q_o + A * (J.leftCols<3>().transpose() * impulse);
    out.q_m = q_m + h * u + B * (J.rightCols(nm).transpose() * impulse);
    out.max_normal_impulse = m > 0 ? out.lcp.z.head(m).maxCoeff() : 0.0;
    if (m == N) return out;
    const Eigen::VectorXd phi = system.EvaluateGaps(out.q_o, out.q_m);
    bool penetrates = false;
    for (int r = m; r < N && !penetrates; ++r) penetrates = phi(order[r]) < -options.penetration_tolerance;
    if (!penetrates) return out;
    ++out.growths;
  }
  return out;
}

}  // namespace

bool SimulationOptions::IsValid(std::string* why) const {
  auto fail = [why](const char* message) {
    if (why != nullptr) *why = message;
    return false;
  };
  if (!(time_step > 0.0) || !std::isfinite(time_step)) return fail("time_step must be positive and finite");
  if (num_steps < 0) return fail("num_steps must be >= 0");
  if (!std::isfinite(active_gap)) return fail("active_gap must be finite");
  if (!(penetration_tolerance >= 0.0)) return fail("penetration_tolerance must be >= 0");
  std::string lemke_why;
  if (!lemke.IsValid(&lemke_why)) {
    if (why != nullptr) *why = "lemke." + lemke_why;
    return false;
  }
  return true;
}

const char* ToString(SimulationStatus status) {
  switch (status) {
    case SimulationStatus::kCompleted:
      return "completed";
    case SimulationStatus::kNoSolution:
      return "no_solution";
    case SimulationStatus::kSolverFailure:
      return "solver_failure";
  }
  return "unknown";
}

std::string SimulationSummary::BriefReport() const {
  char buffer[256];
  if (failed_step >= 0) {
    std::snprintf(buffer, sizeof(buffer), "%s at step %d (t = %.4g s, lemke %s): %d/%d steps solved, %.3g s",
                  ToString(status), failed_step, failure_time, ToString(failure_lemke_status), steps_solved,
                  steps_requested, wall_time_seconds);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%s: %d/%d steps, %d pivots, max LCP %d, min gap %.3g, %.3g s",
                  ToString(status), steps_solved, steps_requested, total_pivots, max_lcp_size, min_gap,
                  wall_time_seconds);
  }
  return buffer;
}

std::string SimulationSummary::FullReport() const {
  char buffer[1024];
  std::snprintf(buffer, sizeof(buffer),
                "status               %s\n"
                "steps solved         %d / %d\n"
                "failed step          %d (t = %.6g s, lemke %s)\n"
                "pivots               %d\n"
                "largest LCP          %d\n"
                "subset growths       %d\n"
                "min gap              %.6g m\n"
                "max normal impulse   %.6g N s\n"
                "max LCP residual     %.3g\n"
                "wall time            %.4f s\n",
                ToString(status), steps_solved, steps_requested, failed_step, failure_time,
                ToString(failure_lemke_status), total_pivots, max_lcp_size, subset_growths, min_gap, max_normal_impulse,
                max_lcp_residual, wall_time_seconds);
  return buffer;
}

SimulationResult Simulate(const System& system, const ModelParameters& parameters, const Command& command,
                          const Eigen::Vector3d& q_o0, const Eigen::VectorXd& q_m0, const SimulationOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::string why;
  if (!options.IsValid(&why)) throw std::invalid_argument("SimulationOptions." + why);
  const int nm = system.num_manipulator_coordinates();
  parameters.Validate(nm);
  if (q_m0.size() != nm) throw std::invalid_argument("Simulate: q_m0 must have n_m entries");
  if (!q_o0.allFinite() || !q_m0.allFinite()) throw std::invalid_argument("Simulate: q_o0 and q_m0 must be finite");
  if (!command) throw std::invalid_argument("Simulate: command must not be empty");

  SimulationResult result;
  Trajectory& traj = result.trajectory;
  SimulationSummary& sum = result.summary;
  sum.steps_requested = options.num_steps;
  Eigen::Vector3d q_o = q_o0;
  Eigen::VectorXd q_m = q_m0;
  auto record = [&](double t, double impulse, int contacts) {
    const Eigen::VectorXd phi = system.EvaluateGaps(q_o, q_m);
    traj.time.push_back(t);
    traj.object.push_back(q_o);
    traj.manipulator.push_back(q_m);
    traj.min_gap.push_back(phi.size() ? phi.minCoeff() : INFINITY);
    traj.max_normal_impulse.push_back(impulse);
    traj.num_contacts.push_back(contacts);
  };
  record(0.0, 0.0, 0);
  sum.min_gap = traj.min_gap.back();
  bool frozen = false;
  for (int k = 0; k < options.num_steps; ++k) {
    const double t = k * options.time_step;
    if (!frozen) {
      const Eigen::VectorXd u = command(t, q_o, q_m);
      if (u.size() != nm || !u.allFinite()) {
        throw std::invalid_argument("Simulate: command must return n_m finite entries");
      }
      const StepOutcome step = Step(system, parameters, q_o, q_m, u, options);
      sum.total_pivots += step.lcp.iterations;
      sum.subset_growths += step.growths;
      if (step.lcp.status == LemkeStatus::kSolved) {
        q_o = step.q_o;
        q_m = step.q_m;
        ++sum.steps_solved;
        sum.max_lcp_size = std::max(sum.max_lcp_size, 4 * step.num_contacts);
        sum.max_normal_impulse = std::max(sum.max_normal_impulse, step.max_normal_impulse);
        sum.max_lcp_residual = std::max(sum.max_lcp_residual, step.lcp.residual);
        record(t + options.time_step, step.max_normal_impulse, step.num_contacts);
      } else {
        frozen = true;
        sum.failed_step = k;
        sum.failure_time = t;
        sum.failure_lemke_status = step.lcp.status;
        sum.status = step.lcp.status == LemkeStatus::kRayTermination ? SimulationStatus::kNoSolution
                                                                     : SimulationStatus::kSolverFailure;
      }
    }
    if (frozen) record(t + options.time_step, 0.0, 0);
    sum.min_gap = std::min(sum.min_gap, traj.min_gap.back());
  }
  sum.wall_time_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace tamsi::quasistatic
