// The box of the paper's Sec. IV-A: Fig. 4 (Newton residual histories) and Fig. 5 (work against precision).
#include <tamsi/integrators/box_system.h>
#include <tamsi/integrators/implicit_euler.h>
#include <tamsi/integrators/localized_error.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <vector>

#include "study.h"

namespace tamsi::cli {
namespace {

using integrators::BoxSystem;
using integrators::ImplicitEuler;
using integrators::ImplicitEulerOptions;
using integrators::NewtonUpdate;

constexpr double kFigure4Step = 0.01;  // h of Fig. 4 (s)
constexpr double kWindow = 0.025;      // Δw of the localized error (s)

integrators::NewtonResult Figure4History(const integrators::SlideToStickStep& step, bool tals) {
  BoxSystem box;
  ImplicitEulerOptions options;
  options.tals = tals;
  options.monitor_convergence = false;  // the whole history, as the figure shows it
  options.max_newton_iterations = 20;
  ImplicitEuler integrator(&box, options);
  Eigen::VectorXd x;
  return integrator.Solve(step.t_start, step.x_start, kFigure4Step, &x);
}

struct Configuration {
  NewtonUpdate newton;
  bool error_controlled, tals;
};

struct WorkPrecision {
  bool completed;
  long long evaluations;
  double error_v;
  integrators::ImplicitEulerStatistics statistics;
};

WorkPrecision RunBox(const Configuration& c, double h_or_a, double duration, double h_reference) {
  BoxSystem box;
  ImplicitEulerOptions options;
  options.newton = c.newton;
  options.tals = c.tals;
  options.error_controlled = c.error_controlled;
  if (c.error_controlled) {
    options.accuracy = h_or_a;
    options.time_step = 1e-3;
    options.max_time_step = kWindow;
  } else {
    options.time_step = h_or_a;
  }
  ImplicitEuler integrator(&box, options);
  double t = 0.0;
  Eigen::VectorXd x = Eigen::Vector2d::Zero();
  std::vector<Eigen::VectorXd> states{x};
  const int windows = static_cast<int>(std::lround(duration / kWindow));
  bool completed = true;
  for (int m = 1; m <= windows && completed; ++m) {
    completed = integrator.Integrate(m * kWindow, &t, &x);
    states.push_back(x);
  }
  WorkPrecision result{completed, box.evaluations(), NAN, integrator.statistics()};
  if (completed) {
    BoxSystem reference;
    result.error_v =
        integrators::L2Norm(integrators::LocalizedErrors(&reference, 0.0, kWindow, states, 1, h_reference));
  }
  return result;
}

}  // namespace

void StudyFigure4(const StudySettings& settings) {
  const integrators::SlideToStickStep step =
      integrators::FindFirstSlideToStick(integrators::BoxParameters{}, Eigen::Vector2d::Zero(), kFigure4Step, 2.0);
  if (!step.found) throw std::runtime_error("fig4: the box never went from sliding to stiction within 2 s");
  const integrators::NewtonResult plain = Figure4History(step, false), tals = Figure4History(step, true);
  std::ofstream out = OpenStudyCsv(settings, "fig4_newton_residuals.csv");
  out << "iteration,residual_without_tals,residual_with_tals,alpha_with_tals\n";
  const std::size_t rows = std::max(plain.iterates.size(), tals.iterates.size());
  for (std::size_t k = 0; k < rows; ++k) {
    out << k << ",";
    if (k < plain.iterates.size()) out << plain.iterates[k].residual;
    out << ",";
    if (k < tals.iterates.size())
      out << tals.iterates[k].residual << "," << tals.iterates[k].alpha;
    else
      out << ",";
    out << "\n";
  }
  std::cout << "fig4: first slide->stick step starts at t = " << step.t_start << " s (ends at "
            << step.t_start + kFigure4Step << " s), v = " << step.x_start[1] << " -> " << step.x_end[1]
            << " m/s; without TALS " << (plain.converged ? "converged" : "not converged") << " after "
            << plain.iterates.size() << " iterations, with TALS " << (tals.converged ? "converged" : "not converged")
            << " after " << tals.iterates.size() << "\n";
}

void StudyFigure5(const StudySettings& settings) {
  const double duration = settings.quick ? 0.5 : 1.0;
  const double h_reference = settings.quick ? 1e-6 : 1e-7;  // the paper's: 1e-7 s
  // Fixed steps that divide the window Δw = 25 ms; accuracies a (m/s) in half decades.
  const std::vector<double> steps = settings.quick
                                        ? std::vector<double>{12.5e-3, 2.5e-3, 0.5e-3, 0.1e-3}
                                        : std::vector<double>{25e-3,  12.5e-3, 6.25e-3,  5e-3,    2.5e-3,   1.25e-3,
                                                              0.5e-3, 0.25e-3, 0.125e-3, 0.05e-3, 0.025e-3, 0.0125e-3};
  const std::vector<double> accuracies =
      settings.quick ? std::vector<double>{1e-1, 1e-3, 1e-5}
                     : std::vector<double>{1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6};
  std::ofstream out = OpenStudyCsv(settings, "fig5_work_precision.csv");
  out << "newton,stepping,tals,h_or_a,completed,f_evaluations,error_v,steps,newton_iterations,jacobians,"
         "factorizations,convergence_failures,error_rejections,smallest_step\n";
  for (NewtonUpdate newton : {NewtonUpdate::kFull, NewtonUpdate::kQuasi}) {
    for (bool error_controlled : {false, true}) {
      for (bool tals : {false, true}) {
        for (double value : error_controlled ? accuracies : steps) {
          const WorkPrecision r = RunBox({newton, error_controlled, tals}, value, duration, h_reference);
          const integrators::ImplicitEulerStatistics& s = r.statistics;
          out << (newton == NewtonUpdate::kFull ? "FN" : "QN") << "," << (error_controlled ? "error" : "fixed") << ","
              << (tals ? 1 : 0) << "," << value << "," << (r.completed ? 1 : 0) << "," << r.evaluations << ","
              << r.error_v << "," << s.steps << "," << s.newton_iterations << "," << s.jacobian_evaluations << ","
              << s.factorizations << "," << s.convergence_failures << "," << s.error_rejections << ","
              << s.smallest_step << "\n";
        }
      }
    }
  }
  std::cout << "fig5: " << duration << " s of the box, windows of " << 1e3 * kWindow
            << " ms, RK3 reference at h = " << h_reference << " s\n";
}

}  // namespace tamsi::cli
