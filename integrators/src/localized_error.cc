#include <tamsi/integrators/localized_error.h>

#include <cmath>
#include <stdexcept>

namespace tamsi::integrators {

void IntegrateRk3(OdeSystem* system, double h, double t_end, double* t, Eigen::VectorXd* x) {
  if (!(h > 0.0)) throw std::invalid_argument("IntegrateRk3: h must be > 0");
  const double span = t_end - *t;
  if (span <= 0.0) return;
  const long long steps = static_cast<long long>(std::ceil(span / h * (1.0 - 1e-12)));
  const double step = span / static_cast<double>(steps);
  const double t0 = *t;
  Eigen::VectorXd k1, k2, k3, x_stage;
  for (long long n = 0; n < steps; ++n) {
    const double tn = t0 + static_cast<double>(n) * step;
    system->EvalTimeDerivative(tn, *x, &k1);
    x_stage = *x + 0.5 * step * k1;
    system->EvalTimeDerivative(tn + 0.5 * step, x_stage, &k2);
    x_stage = *x - step * k1 + 2.0 * step * k2;
    system->EvalTimeDerivative(tn + step, x_stage, &k3);
    *x += (step / 6.0) * (k1 + 4.0 * k2 + k3);
  }
  *t = t_end;
}

std::vector<double> LocalizedErrors(OdeSystem* system, double t0, double window,
                                    const std::vector<Eigen::VectorXd>& states, int component, double h_reference) {
  if (states.size() < 2) throw std::invalid_argument("LocalizedErrors: needs at least two windows' states");
  std::vector<double> errors;
  errors.reserve(states.size() - 1);
  for (std::size_t m = 1; m < states.size(); ++m) {
    double t = t0 + static_cast<double>(m - 1) * window;
    Eigen::VectorXd reference = states[m - 1];
    IntegrateRk3(system, h_reference, t0 + static_cast<double>(m) * window, &t, &reference);
    errors.push_back(states[m][component] - reference[component]);
  }
  return errors;
}

double L2Norm(const std::vector<double>& errors) {
  double sum = 0.0;
  for (double e : errors) sum += e * e;
  return std::sqrt(sum);
}

}  // namespace tamsi::integrators
