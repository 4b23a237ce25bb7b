#include <gtest/gtest.h>
#include <tamsi/integrators/box_system.h>
#include <tamsi/integrators/implicit_euler.h>

#include <cmath>
#include <stdexcept>

namespace tamsi::integrators {
namespace {

// ẋ = A x + b(t), A = [[0, 1], [−k, −c]], b = (0, sin t): linear, so IE's exact solution is
// (I − h A)⁻¹ (x0 + h b(t0 + h)).
class LinearSystem final : public OdeSystem {
 public:
  LinearSystem(double k, double c) { a_ << 0, 1, -k, -c; }
  int size() const override { return 2; }
  const Eigen::Matrix2d& a() const { return a_; }

 protected:
  void CalcTimeDerivative(double t, const Eigen::VectorXd& x, Eigen::VectorXd* xdot) override {
    *xdot = a_ * x + Eigen::Vector2d(0.0, std::sin(t));
  }

 private:
  Eigen::Matrix2d a_;
};

// A nonlinear pendulum with cubic damping: ẋ = (x1, −sin x0 − x1³).
class NonlinearSystem final : public OdeSystem {
 public:
  int size() const override { return 2; }
  static Eigen::Matrix2d Jacobian(const Eigen::VectorXd& x) {
    Eigen::Matrix2d j;
    j << 0, 1, -std::cos(x[0]), -3 * x[1] * x[1];
    return j;
  }

 protected:
  void CalcTimeDerivative(double, const Eigen::VectorXd& x, Eigen::VectorXd* xdot) override {
    xdot->resize(2);
    (*xdot)[0] = x[1];
    (*xdot)[1] = -std::sin(x[0]) - x[1] * x[1] * x[1];
  }
};

TEST(ImplicitEuler, LinearStepIsTheExactImplicitEulerSolution) {
  LinearSystem system(4.0, 0.5);
  ImplicitEulerOptions options;
  options.newton_tolerance = 1e-12;
  ImplicitEuler integrator(&system, options);
  const double t0 = 0.3, h = 0.05;
  const Eigen::VectorXd x0 = Eigen::Vector2d(0.2, -1.0);  // dynamic like x: GCC 12 misreads mixed-size packets
  Eigen::VectorXd x;
  const NewtonResult result = integrator.Solve(t0, x0, h, &x);
  ASSERT_TRUE(result.converged);
  const Eigen::Vector2d expected =
      (Eigen::Matrix2d::Identity() - h * system.a()).lu().solve(x0 + h * Eigen::Vector2d(0.0, std::sin(t0 + h)));
  EXPECT_LT((x - expected).lpNorm<Eigen::Infinity>(), 1e-10);
  // The residual r(x) = x − x0 − h f(t0 + h, x) vanishes at the solution.
  Eigen::VectorXd f;
  system.EvalTimeDerivative(t0 + h, x, &f);
  EXPECT_LT((x - x0 - h * f).lpNorm<Eigen::Infinity>(), 1e-12);
}

TEST(ImplicitEuler, ForwardDifferenceJacobianMatchesTheAnalyticOne) {
  NonlinearSystem system;
  ImplicitEuler integrator(&system, ImplicitEulerOptions{});
  Eigen::VectorXd x;
  ASSERT_TRUE(integrator.Solve(0.0, Eigen::Vector2d(0.7, 1.3), 0.1, &x).converged);
  const Eigen::Matrix2d analytic = NonlinearSystem::Jacobian(integrator.jacobian_point());
  EXPECT_LT((integrator.jacobian() - analytic).lpNorm<Eigen::Infinity>(), 1e-6);
}

TEST(ImplicitEuler, FullNewtonCountsEveryEvaluationAndConvergesQuadratically) {
  NonlinearSystem system;
  ImplicitEulerOptions options;
  options.monitor_convergence = false;  // run to the round-off floor
  options.max_newton_iterations = 12;
  ImplicitEuler integrator(&system, options);
  Eigen::VectorXd x;
  const NewtonResult result = integrator.Solve(0.0, Eigen::Vector2d(0.7, 1.3), 0.3, &x);
  ASSERT_TRUE(result.converged);
  // Each iteration: f at the iterate, and size() more for its Jacobian; one more f for the final residual.
  const long long iterations = integrator.statistics().newton_iterations;
  EXPECT_EQ(system.evaluations(), iterations * 3 + 1);
  EXPECT_EQ(integrator.statistics().jacobian_evaluations, iterations);
  // Quadratic rate: r_{k+1} ≤ C r_k² once the residual is small.
  const auto& it = result.iterates;
  ASSERT_GE(it.size(), 4u);
  for (std::size_t k = 1; k + 1 < it.size(); ++k) {
    if (it[k].residual < 1e-2 && it[k + 1].residual > 1e-13) {
      EXPECT_LT(it[k + 1].residual, 10 * it[k].residual * it[k].residual);
    }
  }
}

TEST(ImplicitEuler, RejectsInvalidOptionsByName) {
  LinearSystem system(1.0, 0.0);
  ImplicitEulerOptions options;
  options.time_step = -1.0;
  EXPECT_THROW(
      {
        try {
          ImplicitEuler integrator(&system, options);
        } catch (const std::invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find("time_step"), std::string::npos);
          throw;
        }
      },
      std::invalid_argument);
}

// The Fig. 4 step: the box's first slide→stick transition at h = 10 ms, from rest.
SlideToStickStep Figure4Step() { return FindFirstSlideToStick(BoxParameters{}, Eigen::Vector2d::Zero(), 0.01, 1.0); }

TEST(ImplicitEulerBox, WithoutTalsNewtonCyclesAtTheFirstSlideToStickStep) {
  const SlideToStickStep step = Figure4Step();
  ASSERT_TRUE(step.found);
  BoxSystem box;
  ImplicitEulerOptions options;
  options.tals = false;
  options.monitor_convergence = false;
  options.max_newton_iterations = 30;
  ImplicitEuler integrator(&box, options);
  Eigen::VectorXd x;
  const NewtonResult result = integrator.Solve(step.t_start, step.x_start, 0.01, &x);
  EXPECT_FALSE(result.converged);
  // The velocity iterates jump across the stiction disk back and forth: the residual stays large to the end.
  for (std::size_t k = result.iterates.size() - 10; k < result.iterates.size(); ++k)
    EXPECT_GT(result.iterates[k].residual, 1e-3) << "iteration " << k;
  // With the divergence monitor on, Hairer & Wanner's test stops it as diverging.
  options.monitor_convergence = true;
  ImplicitEuler monitored(&box, options);
  EXPECT_FALSE(monitored.Solve(step.t_start, step.x_start, 0.01, &x).converged);
}

TEST(ImplicitEulerBox, WithTalsNewtonConvergesAtTheFirstSlideToStickStep) {
  const SlideToStickStep step = Figure4Step();
  ASSERT_TRUE(step.found);
  BoxSystem box;
  ImplicitEulerOptions options;
  options.monitor_convergence = false;
  options.max_newton_iterations = 30;
  ImplicitEuler integrator(&box, options);
  Eigen::VectorXd x;
  const NewtonResult result = integrator.Solve(step.t_start, step.x_start, 0.01, &x);
  ASSERT_TRUE(result.converged);
  EXPECT_LE(result.iterates.back().residual, 1e-13);
  EXPECT_LE(std::abs(x[1]), box.stiction_tolerance());
  bool limited = false;
  for (const NewtonIterate& it : result.iterates) limited |= it.alpha < 1.0;
  EXPECT_TRUE(limited) << "TALS must have limited the update that crossed the stiction disk";
}

TEST(ImplicitEulerBox, QuasiNewtonReusesItsJacobianAndAgreesWithFullNewton) {
  const double h = 1e-3, t_end = 1.0;
  ImplicitEulerOptions options;
  options.time_step = h;
  options.newton_tolerance = 1e-7;
  BoxSystem box_full, box_quasi;
  ImplicitEuler full(&box_full, options);
  options.newton = NewtonUpdate::kQuasi;
  ImplicitEuler quasi(&box_quasi, options);
  double t_full = 0.0, t_quasi = 0.0;
  Eigen::VectorXd x_full = Eigen::Vector2d::Zero(), x_quasi = x_full;
  ASSERT_TRUE(full.Integrate(t_end, &t_full, &x_full));
  ASSERT_TRUE(quasi.Integrate(t_end, &t_quasi, &x_quasi));
  EXPECT_LT(std::abs(x_full[1] - x_quasi[1]), 1e-5);
  // QN evaluates a Jacobian far less often than once per step, and FN once per iteration.
  EXPECT_LT(quasi.statistics().jacobian_evaluations, quasi.statistics().steps / 4);
  EXPECT_EQ(full.statistics().jacobian_evaluations, full.statistics().newton_iterations);
  EXPECT_LT(box_quasi.evaluations(), box_full.evaluations());
}

// The harmonic oscillator ẋ = (x1, −x0): its flow is a rotation, Φ_h(x) = R(h) x.
class Oscillator final : public OdeSystem {
 public:
  int size() const override { return 2; }
  static Eigen::Vector2d Flow(double h, const Eigen::VectorXd& x) {
    return Eigen::Vector2d(std::cos(h) * x[0] + std::sin(h) * x[1], -std::sin(h) * x[0] + std::cos(h) * x[1]);
  }

 protected:
  void CalcTimeDerivative(double, const Eigen::VectorXd& x, Eigen::VectorXd* xdot) override {
    *xdot = Eigen::Vector2d(x[1], -x[0]);
  }
};

TEST(ImplicitEulerErrorControl, LocalErrorMeetsTheRequestedAccuracy) {
  for (double accuracy : {1e-3, 1e-5}) {
    Oscillator system;
    ImplicitEulerOptions options;
    options.error_controlled = true;
    options.accuracy = accuracy;
    options.time_step = 0.1;
    ImplicitEuler integrator(&system, options);
    double t = 0.0, largest = 0.0, sum = 0.0;
    Eigen::VectorXd x = Eigen::Vector2d(1.0, 0.0);
    int steps = 0;
    while (t < 3.0) {
      const double t_start = t;
      const Eigen::VectorXd x_start = x;
      ASSERT_TRUE(integrator.Step(3.0, &t, &x));
      const double error = (x - Oscillator::Flow(t - t_start, x_start)).lpNorm<Eigen::Infinity>();
      largest = std::max(largest, error);
      sum += error;
      ++steps;
    }
    // Within a small factor of a, and not wastefully below it.
    EXPECT_LT(largest, 2.0 * accuracy) << "a = " << accuracy;
    EXPECT_GT(sum / steps, accuracy / 10) << "a = " << accuracy;
  }
}

TEST(ImplicitEulerErrorControl, GlobalErrorIsFirstOrderInTheStep) {
  double previous = 0.0;
  for (double h : {0.01, 0.005, 0.0025}) {
    Oscillator system;
    ImplicitEulerOptions options;
    options.time_step = h;
    options.newton_tolerance = 1e-12;
    ImplicitEuler integrator(&system, options);
    double t = 0.0;
    Eigen::VectorXd x = Eigen::Vector2d(1.0, 0.0);
    ASSERT_TRUE(integrator.Integrate(1.0, &t, &x));
    const double error = (x - Oscillator::Flow(1.0, Eigen::Vector2d(1.0, 0.0))).norm();
    if (previous > 0.0) {
      EXPECT_NEAR(previous / error, 2.0, 0.1) << "h = " << h;
    }
    previous = error;
  }
}

}  // namespace
}  // namespace tamsi::integrators
