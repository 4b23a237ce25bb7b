#include <tamsi/integrators/box_system.h>
#include <tamsi/integrators/implicit_euler.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace tamsi::integrators {
namespace {

constexpr double kPi = 3.14159265358979323846;

void RequirePositive(double value, const char* field) {
  if (!(value > 0.0) || !std::isfinite(value))
    throw std::invalid_argument(std::string("BoxParameters.") + field + ": must be finite and > 0, got " +
                                std::to_string(value));
}

void RequireNonNegative(double value, const char* field) {
  if (!(value >= 0.0) || !std::isfinite(value))
    throw std::invalid_argument(std::string("BoxParameters.") + field + ": must be finite and ≥ 0, got " +
                                std::to_string(value));
}

}  // namespace

BoxSystem::BoxSystem(const BoxParameters& parameters) : parameters_(parameters) {
  RequirePositive(parameters.mass, "mass");
  RequirePositive(parameters.gravity, "gravity");
  RequirePositive(parameters.stiction_tolerance, "stiction_tolerance");
  RequireNonNegative(parameters.friction, "friction");
  RequireNonNegative(parameters.force_amplitude, "force_amplitude");
  RequireNonNegative(parameters.force_frequency, "force_frequency");
}

double BoxSystem::AppliedForce(double t) const {
  return parameters_.force_amplitude * std::sin(2.0 * kPi * parameters_.force_frequency * t);
}

double BoxSystem::FrictionForce(double v) const {
  // μ̃(s) W sgn(v) = (μ̃/s)(|v|/v_s) W sgn(v) = g W v / v_s, finite through v = 0.
  const double vs = parameters_.stiction_tolerance;
  const double g =
      kernels::RegularizedFrictionSlope(parameters_.friction, std::abs(v) / vs, parameters_.regularization).g;
  return -g * parameters_.mass * parameters_.gravity * v / vs;
}

double BoxSystem::SlidingVelocity(double t0, double v0, double t) const {
  const double w = 2.0 * kPi * parameters_.force_frequency;
  const double impulse_force = parameters_.force_amplitude / w * (std::cos(w * t0) - std::cos(w * t));
  const double impulse_friction =
      (v0 > 0 ? 1.0 : -1.0) * parameters_.friction * parameters_.mass * parameters_.gravity * (t - t0);
  return v0 + (impulse_force - impulse_friction) / parameters_.mass;
}

void BoxSystem::CalcTimeDerivative(double t, const Eigen::VectorXd& x, Eigen::VectorXd* xdot) {
  xdot->resize(2);
  (*xdot)[0] = x[1];
  (*xdot)[1] = (AppliedForce(t) + FrictionForce(x[1])) / parameters_.mass;
}

void BoxSystem::CalcTangentialVelocities(double, const Eigen::VectorXd& x, Eigen::VectorXd* vt) {
  vt->resize(2);
  (*vt)[0] = x[1];
  (*vt)[1] = 0.0;
}

SlideToStickStep FindFirstSlideToStick(const BoxParameters& parameters, const Eigen::VectorXd& x0, double h,
                                       double t_end) {
  BoxSystem box(parameters);
  ImplicitEulerOptions options;
  options.time_step = h;
  ImplicitEuler integrator(&box, options);
  SlideToStickStep step;
  double t = 0.0;
  Eigen::VectorXd x = x0;
  const double vs = parameters.stiction_tolerance;
  while (t < t_end) {
    const double t_start = t;
    const Eigen::VectorXd x_start = x;
    if (!integrator.Step(t_start + h, &t, &x)) break;
    if (std::abs(x_start[1]) > vs && std::abs(x[1]) <= vs) {
      step.found = true;
      step.t_start = t_start;
      step.x_start = x_start;
      step.x_end = x;
      break;
    }
  }
  return step;
}

}  // namespace tamsi::integrators
