// Closed-form physics with a point mass on a plane: static penetration, incline, stopping distance, stiction.
#include <gtest/gtest.h>

#include <cmath>

#include "point_mass.h"

namespace tamsi {
namespace {

using testing::PointMass;
constexpr double kG = 9.81;

class CouplingTest : public ::testing::TestWithParam<Coupling> {
 protected:
  Options MakeOptions() const {
    Options o;
    o.coupling = GetParam();
    return o;
  }
};

TEST_P(CouplingTest, RestingMassReachesStaticPenetration) {
  PointMass body;
  TamsiSolver solver(MakeOptions());
  Result result;
  const Eigen::Vector3d weight(0, 0, -body.mass * kG);
  for (int step = 0; step < 3000; ++step) ASSERT_EQ(body.Step(solver, weight, &result), Status::kSuccess);
  const double static_penetration = body.mass * kG / body.stiffness;  // k δ = m g
  EXPECT_NEAR(-body.z, static_penetration, 1e-4 * static_penetration);
  EXPECT_NEAR(result.fn[0], body.mass * kG, 1e-3 * body.mass * kG);
  EXPECT_NEAR(body.v.z(), 0.0, 1e-6);
}

// Block on an incline of angle θ, gravity expressed in the plane's frame: sticks for tan θ < μ with the regularized
// creep speed v_s tan θ / μ (eq. 7), slides with a = g (sin θ − μ cos θ) otherwise.
struct InclineCase {
  double theta;
  double mu;
};
class InclineTest : public ::testing::TestWithParam<std::tuple<Coupling, InclineCase>> {};

TEST_P(InclineTest, SticksOrSlidesAsCoulombSays) {
  const auto [coupling, c] = GetParam();
  Options options;
  options.coupling = coupling;
  PointMass body;
  body.friction = c.mu;
  body.z = -body.mass * kG * std::cos(c.theta) / body.stiffness;  // start at the normal equilibrium
  TamsiSolver solver(options);
  Result result;
  const Eigen::Vector3d gravity(body.mass * kG * std::sin(c.theta), 0, -body.mass * kG * std::cos(c.theta));
  const double duration = 1.0;
  const int steps = static_cast<int>(std::round(duration / body.time_step));
  for (int step = 0; step < steps; ++step) ASSERT_EQ(body.Step(solver, gravity, &result), Status::kSuccess);
  const double vs = options.stiction_tolerance;
  if (std::tan(c.theta) < c.mu) {
    EXPECT_NEAR(body.v.x(), vs * std::tan(c.theta) / c.mu, 1e-3 * vs);
    EXPECT_LT(body.v.x(), vs);
  } else {
    const double a = kG * (std::sin(c.theta) - c.mu * std::cos(c.theta));
    // Implicit Euler is exact for constant acceleration; the start through the stiction region costs O(v_s).
    EXPECT_NEAR(body.v.x(), a * duration, 10 * vs);
  }
  EXPECT_NEAR(body.v.y(), 0.0, 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Incline, InclineTest,
                         ::testing::Combine(::testing::Values(Coupling::kTwoWay, Coupling::kOneWay),
                                            ::testing::Values(InclineCase{M_PI / 6, 0.7}, InclineCase{M_PI / 6, 0.5},
                                                              InclineCase{0.2, 0.3}, InclineCase{0.4, 0.3})));

TEST_P(CouplingTest, SlidingMassStopsAtTheCoulombStoppingTime) {
  PointMass body;
  body.z = -body.mass * kG / body.stiffness;
  body.v = Eigen::Vector3d(1.0, 0.0, 0.0);
  const double v0 = body.v.x();
  TamsiSolver solver(MakeOptions());
  Result result;
  const Eigen::Vector3d weight(0, 0, -body.mass * kG);
  const double deceleration = body.friction * kG;
  const double stopping_time = v0 / deceleration;  // 0.204 s
  double stopped_at = -1;
  for (int step = 1; step <= 400; ++step) {
    ASSERT_EQ(body.Step(solver, weight, &result), Status::kSuccess);
    const double t = step * body.time_step;
    if (t < stopping_time - 2 * body.time_step) {
      EXPECT_NEAR(body.v.x(), v0 - deceleration * t, 1e-6) << "t = " << t;
    }
    if (stopped_at < 0 && std::abs(body.v.x()) < solver.options().stiction_tolerance) stopped_at = t;
  }
  EXPECT_NEAR(stopped_at, stopping_time, body.time_step);
  EXPECT_LT(std::abs(body.v.x()), 1e-9);  // no load left: at rest
}

TEST_P(CouplingTest, StictionHoldsBelowMuFnAndGivesWayAbove) {
  for (const double load_ratio : {0.9, 1.1}) {
    PointMass body;
    body.z = -body.mass * kG / body.stiffness;
    TamsiSolver solver(MakeOptions());
    Result result;
    const double capacity = body.friction * body.mass * kG;  // μ fn
    const Eigen::Vector3d force(load_ratio * capacity, 0, -body.mass * kG);
    for (int step = 0; step < 500; ++step) ASSERT_EQ(body.Step(solver, force, &result), Status::kSuccess);
    const double vs = solver.options().stiction_tolerance;
    if (load_ratio < 1) {
      EXPECT_NEAR(body.v.x(), load_ratio * vs, 1e-3 * vs);  // creep v_s F/(μ fn) of eq. 7
      EXPECT_NEAR(result.ft[0], -load_ratio * capacity, 1e-3 * capacity);
    } else {
      const double a = (load_ratio - 1) * capacity / body.mass;
      EXPECT_NEAR(body.v.x(), a * 0.5, 10 * vs);
      EXPECT_NEAR(result.ft[0], -capacity, 1e-6 * capacity);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Couplings, CouplingTest, ::testing::Values(Coupling::kTwoWay, Coupling::kOneWay));

// The paper's Fig. 2 and Fig. 4: a sliding box whose step ends in stiction. Plain Newton overshoots from one side of
// the stiction region to the other forever; TALS lands inside it and converges.
ContactProblem Fig2Problem() {
  PointMass box;
  box.mass = 0.33;  // Sec. IV-A
  box.friction = 1.0;
  box.time_step = 1e-2;
  box.z = -box.mass * 9.8 / box.stiffness;
  box.v = Eigen::Vector3d(0.01, 0, 0);  // sliding at 100 v_s; friction can stop it within the step
  return box.Problem(Eigen::Vector3d(0, 0, -box.mass * 9.8));
}

TEST(TamsiSolverFig2, NewtonWithoutTalsCycles) {
  Options options;
  options.friction_newton = FrictionNewton::kTangent;  // the paper's iteration
  options.line_search = LineSearch::kNone;
  options.max_iterations = 100;
  TamsiSolver solver(options);
  Result result;
  EXPECT_EQ(solver.Solve(Fig2Problem(), &result), Status::kMaxIterationsReached);
  // The iterates alternate between the two sides of the stiction region (v₁ < 0 < v₂ of Fig. 2).
  EXPECT_GT(result.summary.vt_residual.back(), 0.1);
}

// The primal–dual iteration does not cycle even without a line search: its first step keeps the friction's stiffness
// along the slip (w·v̂ = 1 there, so the block is the tangent's), but the dual update turns w against the reversed
// velocity and the next block resists the overshoot.
TEST(TamsiSolverFig2, PrimalDualWithoutLineSearchConverges) {
  Options options;
  options.line_search = LineSearch::kNone;
  TamsiSolver solver(options);
  Result result;
  ASSERT_EQ(solver.Solve(Fig2Problem(), &result), Status::kSuccess);
  EXPECT_EQ(result.summary.friction_newton, FrictionNewton::kPrimalDual);
  EXPECT_LE(result.summary.iterations, 8);
  EXPECT_EQ(result.summary.alpha.front(), 1.0);
  EXPECT_LT(std::abs(result.v[0]), solver.options().stiction_tolerance);
  EXPECT_EQ(result.summary.stick_slip_transitions, 1);
}

TEST(TamsiSolverFig2, TalsConverges) {
  Options options;
  options.friction_newton = FrictionNewton::kTangent;
  options.line_search = LineSearch::kTals;
  TamsiSolver solver(options);
  Result result;
  ASSERT_EQ(solver.Solve(Fig2Problem(), &result), Status::kSuccess);
  EXPECT_LE(result.summary.iterations, 8);
  EXPECT_LT(result.summary.alpha.front(), 1.0);  // the first update crossed the stiction region and was limited
  EXPECT_EQ(result.summary.tals_limited_contacts.front(), 1);
  EXPECT_LT(std::abs(result.v[0]), solver.options().stiction_tolerance);
  EXPECT_EQ(result.summary.stick_slip_transitions, 1);
}

TEST(TamsiSolverFig2, ExactLineSearchLandsInStictionAndConverges) {
  TamsiSolver solver;  // LineSearch::kExact by default
  Result result;
  ASSERT_EQ(solver.Solve(Fig2Problem(), &result), Status::kSuccess);
  EXPECT_LE(result.summary.iterations, 5);
  EXPECT_LT(result.summary.alpha.front(), 1.0);
  EXPECT_GT(result.summary.line_search_evaluations.front(), 2);
  EXPECT_EQ(result.summary.tals_fallbacks.front(), 0);
  // The minimizer along the first Newton direction is the stiction solution itself: sliding stops within one step.
  EXPECT_LT(std::abs(result.v[0]), solver.options().stiction_tolerance);
  EXPECT_EQ(result.summary.stick_slip_transitions, 1);
}

}  // namespace
}  // namespace tamsi
