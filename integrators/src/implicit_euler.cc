#include <tamsi/integrators/implicit_euler.h>
#include <tamsi/kernels/contact_kernels.h>
#include <tamsi/kernels/parallel.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace tamsi::integrators {
namespace {

void Require(bool ok, const char* field, const char* what, double value) {
  if (!ok)
    throw std::invalid_argument(std::string("ImplicitEulerOptions.") + field + ": must be " + what + ", got " +
                                std::to_string(value));
}

// An update this small relative to the state (10 ε) has converged whatever the rate.
constexpr double kUpdateFloor = 10 * std::numeric_limits<double>::epsilon();
// Residual below which a Newton iteration without monitoring stops (state units): the round-off floor.
constexpr double kResidualFloor = 1e-14;

// TALS over the system's contacts runs on the calling thread: these systems have a few contacts.
const kernels::ThreadBudget& SerialBudget() {
  static const kernels::ThreadBudget budget(1);
  return budget;
}

}  // namespace

void ImplicitEulerOptions::Validate() const {
  Require(max_angle > 0.0 && max_angle < 1.5707963267948966, "max_angle", "in (0, π/2)", max_angle);
  Require(max_newton_iterations >= 1, "max_newton_iterations", "≥ 1", max_newton_iterations);
  Require(newton_tolerance > 0.0, "newton_tolerance", "> 0", newton_tolerance);
  Require(jacobian_reuse_rate > 0.0 && jacobian_reuse_rate < 1.0, "jacobian_reuse_rate", "in (0, 1)",
          jacobian_reuse_rate);
  Require(time_step > 0.0 && std::isfinite(time_step), "time_step", "finite and > 0", time_step);
  Require(max_halvings >= 0, "max_halvings", "≥ 0", max_halvings);
  Require(accuracy > 0.0, "accuracy", "> 0", accuracy);
  Require(newton_kappa > 0.0 && newton_kappa <= 1.0, "newton_kappa", "in (0, 1]", newton_kappa);
  Require(min_time_step > 0.0, "min_time_step", "> 0", min_time_step);
}

ImplicitEuler::ImplicitEuler(OdeSystem* system, const ImplicitEulerOptions& options)
    : system_(system), options_(options), h_next_(options.time_step) {
  if (system == nullptr) throw std::invalid_argument("ImplicitEuler: system is null");
  options_.Validate();
}

void ImplicitEuler::EvalJacobian(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& fx) {
  const int n = static_cast<int>(x.size());
  jacobian_.resize(n, n);
  x_trial_ = x;
  Eigen::VectorXd f_perturbed;
  for (int j = 0; j < n; ++j) {
    const double step = std::sqrt(std::numeric_limits<double>::epsilon()) * std::max(1.0, std::abs(x[j]));
    x_trial_[j] = x[j] + step;
    const double exact_step = x_trial_[j] - x[j];  // the increment as represented
    system_->EvalTimeDerivative(t, x_trial_, &f_perturbed);
    jacobian_.col(j) = (f_perturbed - fx) / exact_step;
    x_trial_[j] = x[j];
  }
  jacobian_point_ = x;
  ++statistics_.jacobian_evaluations;
  have_jacobian_ = jacobian_fresh_ = true;
  factored_h_ = 0.0;
}

void ImplicitEuler::Factor(double h) {
  const int n = static_cast<int>(jacobian_.rows());
  lu_.compute(Eigen::MatrixXd::Identity(n, n) - h * jacobian_);
  factored_h_ = h;
  ++statistics_.factorizations;
}

double ImplicitEuler::TalsAlpha(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& dx) {
  if (!options_.tals) return 1.0;
  // The tangential velocities at both ends of the update, each at its own configuration (eq. 4 with q free), for
  // the contacts present at both.
  x_trial_ = x + dx;
  system_->CalcPairedTangentialVelocities(t, x, x_trial_, &vt_, &vt_trial_);
  if (vt_.size() == 0) return 1.0;
  vt_trial_ -= vt_;
  return kernels::CalcTalsLimit(SerialBudget(), vt_, vt_trial_, system_->stiction_tolerance(), options_.max_angle)
      .alpha;
}

NewtonResult ImplicitEuler::Solve(double t0, const Eigen::VectorXd& x0, double h, Eigen::VectorXd* x) {
  NewtonResult result;
  jacobian_fresh_ = false;
  const bool quasi = options_.newton == NewtonUpdate::kQuasi;
  // QN: an iteration that fails with a Jacobian from an earlier step is retried once with a fresh one.
  for (int attempt = 0; attempt < 2 && !result.converged; ++attempt) {
    if (attempt == 1 && (!quasi || jacobian_fresh_)) break;
    if (attempt == 1) have_jacobian_ = false;
    result.converged = Iterate(t0, x0, h, x, &result.iterates);
    if (!result.converged) ++statistics_.convergence_failures;
  }
  return result;
}

bool ImplicitEuler::Iterate(double t0, const Eigen::VectorXd& x0, double h, Eigen::VectorXd* x,
                            std::vector<NewtonIterate>* iterates) {
  const double t = t0 + h;
  const double tolerance =
      options_.error_controlled ? options_.newton_kappa * options_.accuracy : options_.newton_tolerance;
  const bool full = options_.newton == NewtonUpdate::kFull;
  const int kmax = options_.max_newton_iterations;
  Eigen::VectorXd xk = x0;
  double previous_update = 0.0, largest_rate = 0.0;
  for (int k = 0; k < kmax; ++k) {
    system_->EvalTimeDerivative(t, xk, &f_);
    r_ = xk - x0 - h * f_;
    const double residual = r_.lpNorm<Eigen::Infinity>();
    if (!std::isfinite(residual)) return false;
    if (!options_.monitor_convergence && residual <= kResidualFloor) {
      iterates->push_back({residual, 0.0, 1.0});
      *x = xk;
      return true;
    }
    if (full || !have_jacobian_) EvalJacobian(t, xk, f_);
    if (factored_h_ != h) Factor(h);
    dx_ = -lu_.solve(r_);
    const double update = dx_.lpNorm<Eigen::Infinity>();
    if (!std::isfinite(update)) return false;
    const double alpha = TalsAlpha(t, xk, dx_);
    if (alpha < 1.0) ++statistics_.tals_limited;
    xk += alpha * dx_;
    ++statistics_.newton_iterations;
    iterates->push_back({residual, update, alpha});
    if (alpha < 1.0) {  // a limited update says nothing about the contraction rate
      previous_update = 0.0;
      continue;
    }
    if (!options_.monitor_convergence) continue;
    // The first update alone proves nothing: a Jacobian far stiffer than the truth (a stale stiction Jacobian while
    // the box slides) makes it small without the iterate being near the root. Θ needs two updates.
    bool converged = update <= kUpdateFloor * std::max(1.0, xk.lpNorm<Eigen::Infinity>());
    if (previous_update > 0.0) {
      const double rate = update / previous_update;  // Θ_k
      largest_rate = std::max(largest_rate, rate);
      if (rate >= 1.0) return false;
      const double eta = rate / (1.0 - rate);
      converged = converged || eta * update <= tolerance;
      if (!converged && std::pow(rate, kmax - 1 - k) / (1.0 - rate) * update > tolerance)  // predicted to miss kmax
        return false;
    }
    if (converged) {
      *x = xk;
      // QN keeps J for the next step only while the contraction was fast.
      if (largest_rate > options_.jacobian_reuse_rate) have_jacobian_ = false;
      return true;
    }
    previous_update = update;
  }
  if (!options_.monitor_convergence) {  // the residual at the last iterate decides
    system_->EvalTimeDerivative(t, xk, &f_);
    r_ = xk - x0 - h * f_;
    iterates->push_back({r_.lpNorm<Eigen::Infinity>(), 0.0, 1.0});
    if (r_.lpNorm<Eigen::Infinity>() <= tolerance) {
      *x = xk;
      return true;
    }
  }
  return false;
}

void ImplicitEuler::RecordStep(double h) {
  ++statistics_.steps;
  statistics_.smallest_step = statistics_.steps == 1 ? h : std::min(statistics_.smallest_step, h);
}

bool ImplicitEuler::FixedStep(double t0, const Eigen::VectorXd& x0, double h, int halvings_left, Eigen::VectorXd* x) {
  if (Solve(t0, x0, h, x).converged) {
    RecordStep(h);
    return true;
  }
  if (halvings_left == 0) return false;
  Eigen::VectorXd x_mid;
  return FixedStep(t0, x0, 0.5 * h, halvings_left - 1, &x_mid) &&
         FixedStep(t0 + 0.5 * h, x_mid, 0.5 * h, halvings_left - 1, x);
}

bool ImplicitEuler::DoubledStep(double t0, const Eigen::VectorXd& x0, double h, Eigen::VectorXd* x, double* error) {
  *error = std::numeric_limits<double>::infinity();
  if (!Solve(t0, x0, h, &x_full_).converged) return false;
  if (!Solve(t0, x0, 0.5 * h, &x_half_).converged) return false;
  if (!Solve(t0 + 0.5 * h, x_half_, 0.5 * h, x).converged) return false;
  *error = (*x - x_full_).lpNorm<Eigen::Infinity>();
  return true;
}

bool ImplicitEuler::Step(double t_end, double* t, Eigen::VectorXd* x) {
  if (!options_.error_controlled) {
    const double h = std::min(options_.time_step, t_end - *t);
    if (!FixedStep(*t, *x, h, options_.max_halvings, &x_new_)) return false;
    *t = h < options_.time_step ? t_end : *t + h;  // a step cut to reach t_end lands on it exactly
    *x = x_new_;
    return true;
  }
  for (;;) {
    double h_proposed = h_next_;
    if (options_.max_time_step > 0.0) h_proposed = std::min(h_proposed, options_.max_time_step);
    const double h = std::min(h_proposed, t_end - *t);
    double error = 0.0;
    if (!DoubledStep(*t, *x, h, &x_new_, &error)) {  // convergence failure: halve
      h_next_ = 0.5 * h;
      if (h_next_ < options_.min_time_step) return false;
      continue;
    }
    // The local error of IE is O(h²): the step that meets the accuracy scales as √(a/err), with a safety factor.
    const double factor = error > 0.0 ? 0.9 * std::sqrt(options_.accuracy / error) : 4.0;
    if (error > options_.accuracy) {
      ++statistics_.error_rejections;
      h_next_ = h * std::clamp(factor, 0.2, 0.9);
      if (h_next_ < options_.min_time_step) return false;
      continue;
    }
    RecordStep(h);
    *t = h < h_proposed ? t_end : *t + h;
    *x = x_new_;
    // A step cut short to land on t_end does not shrink the next one.
    h_next_ = std::max(h * std::clamp(factor, 0.2, 4.0), h < h_proposed ? h_proposed : 0.0);
    return true;
  }
}

bool ImplicitEuler::Integrate(double t_end, double* t, Eigen::VectorXd* x) {
  const double end_slack = 1e-12 * std::max(1.0, std::abs(t_end));
  while (*t < t_end - end_slack) {
    if (!Step(t_end, t, x)) return false;
  }
  *t = std::max(*t, t_end);
  return true;
}

}  // namespace tamsi::integrators
