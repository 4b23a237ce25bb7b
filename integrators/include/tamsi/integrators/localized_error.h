#pragma once
/// @file
/// The reference integrator and the localized global error of the paper's Sec. IV: Kutta's third-order Runge–Kutta
/// at a fixed small step, and, for a tested solution x^m sampled at windows t^m = t^0 + m Δw, the error of each window
/// against the reference x_r^m = Φ_Δw(x^{m−1}) started from the tested solution itself, so that errors do not drift.

#include <tamsi/integrators/ode_system.h>

#include <Eigen/Core>
#include <vector>

namespace tamsi::integrators {

/// Integrates (t, x) to t_end with Kutta's third-order method (k1 = f(t, x), k2 = f(t + h/2, x + h/2 k1),
/// k3 = f(t + h, x − h k1 + 2h k2), x ← x + h/6 (k1 + 4 k2 + k3)) in equal steps no longer than h (s, > 0).
void IntegrateRk3(OdeSystem* system, double h, double t_end, double* t, Eigen::VectorXd* x);

/// Per-window errors of one state component: for m = 1 … M − 1, x^m[component] − Φ_Δw(x^{m−1})[component], with the
/// flow Φ by IntegrateRk3 at step h_reference. `states`: the tested solution at times t0 + m Δw (M ≥ 2 entries).
std::vector<double> LocalizedErrors(OdeSystem* system, double t0, double window,
                                    const std::vector<Eigen::VectorXd>& states, int component, double h_reference);

/// The paper's e_v: the L² norm (√Σ e_m²) of the per-window errors.
double L2Norm(const std::vector<double>& errors);

}  // namespace tamsi::integrators
