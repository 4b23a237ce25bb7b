#include <gtest/gtest.h>
#include <tamsi/integrators/box_system.h>
#include <tamsi/integrators/localized_error.h>

#include <cmath>

namespace tamsi::integrators {
namespace {

TEST(Rk3Reference, MatchesTheClosedFormWhileTheBoxSlides) {
  BoxSystem box;
  const double v0 = 1.0, t_end = 0.1;  // decelerates to ≈ 0.39 m/s: sliding throughout
  double previous = 0.0;
  for (double h : {1e-2, 5e-3}) {
    double t = 0.0;
    Eigen::VectorXd x = Eigen::Vector2d(0.0, v0);
    IntegrateRk3(&box, h, t_end, &t, &x);
    const double exact = box.SlidingVelocity(0.0, v0, t_end);
    ASSERT_GT(exact, 0.3);
    const double error = std::abs(x[1] - exact);
    EXPECT_LT(error, 1e-5);
    if (previous > 0.0) {
      // At least third order; while sliding f depends on t only, where Kutta's method is Simpson's rule, O(h⁴).
      EXPECT_NEAR(previous / error, 16.0, 2.0);
    }
    previous = error;
  }
  // At the paper's reference step the error is at round-off.
  double t = 0.0;
  Eigen::VectorXd x = Eigen::Vector2d(0.0, v0);
  IntegrateRk3(&box, 1e-6, t_end, &t, &x);
  EXPECT_NEAR(x[1], box.SlidingVelocity(0.0, v0, t_end), 1e-12);
}

TEST(LocalizedError, ZeroForTheReferenceItselfAndTheWindowErrorOtherwise) {
  BoxSystem box;
  const double window = 0.025;
  std::vector<Eigen::VectorXd> states{Eigen::Vector2d(0.0, 1.0)};
  for (int m = 1; m <= 3; ++m) {
    double t = (m - 1) * window;
    Eigen::VectorXd x = states.back();
    IntegrateRk3(&box, 1e-5, m * window, &t, &x);
    states.push_back(x);
  }
  EXPECT_LT(L2Norm(LocalizedErrors(&box, 0.0, window, states, 1, 1e-5)), 1e-14);
  // Offsetting one window's state by e shows e in that window only (each reference restarts from the tested state).
  states[2][1] += 1e-3;
  const std::vector<double> errors = LocalizedErrors(&box, 0.0, window, states, 1, 1e-5);
  EXPECT_NEAR(errors[1], 1e-3, 1e-12);
  EXPECT_NEAR(errors[0], 0.0, 1e-12);
  // The window after starts from the offset state; while sliding, v(t) − v(t0) does not depend on v(t0), so the
  // unchanged state at its end is off by −e from that reference.
  EXPECT_NEAR(errors[2], -1e-3, 1e-12);
}

}  // namespace
}  // namespace tamsi::integrators
