// The exact line search (LineSearch::kExact): its root against the residual itself, and its stopping where the
// slope it zeroes is rounding noise.

#include "line_search.h"

#include <gtest/gtest.h>
#include <tamsi/newton_system.h>
#include <tamsi/tamsi_solver.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "random_problem.h"

namespace tamsi {
namespace {

/// A random problem's Newton direction at `v` and the line search along it.
struct NewtonStep {
  NewtonStep(const ContactProblem& problem, const Eigen::VectorXd& v_at)
      : system(problem, true, 1e-4, FrictionRegularization::kLinear, budget), v(v_at) {
    system.Evaluate(v);
    system.Assemble();
    dv = -Eigen::MatrixXd(system.Jacobian()).partialPivLu().solve(system.residual());
    dvn = problem.Jn * dv;
    dvt = problem.Jt * dv;
    dofs.resize(v.size());
    std::iota(dofs.begin(), dofs.end(), 0);
    contacts.resize(problem.num_contacts());
    std::iota(contacts.begin(), contacts.end(), 0);
  }

  double Search(internal::LineSearchSlope slope, int* evaluations) const {
    return internal::ExactLineSearch(budget, system, v, dv, dofs.data(), static_cast<int>(v.size()), contacts.data(),
                                     static_cast<int>(contacts.size()), dvn, dvt, 1.0, slope, evaluations);
  }

  const kernels::ThreadBudget budget{1};  // the system keeps a reference to it
  NewtonSystem system;
  Eigen::VectorXd v, dv, dvn, dvt;
  std::vector<int> dofs, contacts;
};

/// Δvᵀ r(v + αΔv): the residual slope (LineSearchSlope::kResidual) evaluated by the Newton system itself.
double ResidualSlope(const ContactProblem& problem, const NewtonStep& step, double alpha) {
  const kernels::ThreadBudget budget(1);
  NewtonSystem system(problem, true, 1e-4, FrictionRegularization::kLinear, budget);
  system.Evaluate(step.v + alpha * step.dv);
  return step.dv.dot(system.residual());
}

TEST(ExactLineSearch, FindsTheResidualSlopesRootToItsTolerance) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE(seed);
    const ContactProblem problem = testing::RandomProblem(12, 8, seed);
    const NewtonStep step(problem, *problem.v_guess);
    int evaluations = 0;
    const double alpha = step.Search(internal::LineSearchSlope::kResidual, &evaluations);
    const double s0 = ResidualSlope(problem, step, 0.0);
    ASSERT_LT(s0, 0.0);
    ASSERT_GT(alpha, 0.0);
    if (alpha < 1.0) {
      EXPECT_LE(std::abs(ResidualSlope(problem, step, alpha)), 1e-6 * -s0);
    } else {
      EXPECT_LE(ResidualSlope(problem, step, 1.0), 1e-6 * -s0);
    }
  }
}

TEST(ExactLineSearch, TakesNoStepAlongAnAscentDirectionWithoutEvaluatingTheContactLaws) {
  // s(0) = Δvᵀ r(v) comes from the iterate's own forces: reversed, Newton's direction climbs, and the search must see
  // it from them alone (a sign or scale slip in those forces would either step or evaluate).
  for (unsigned seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE(seed);
    const ContactProblem problem = testing::RandomProblem(12, 8, seed);
    NewtonStep step(problem, *problem.v_guess);
    ASSERT_LT(ResidualSlope(problem, step, 0.0), 0.0);
    step.dv = -step.dv;
    step.dvn = -step.dvn;
    step.dvt = -step.dvt;
    for (const auto slope : {internal::LineSearchSlope::kLaggedPotential, internal::LineSearchSlope::kResidual}) {
      int evaluations = 0;
      EXPECT_EQ(step.Search(slope, &evaluations), 0.0);
      EXPECT_EQ(evaluations, 0);
    }
  }
}

TEST(ExactLineSearch, StopsWhereTheSlopeIsRoundingNoise) {
  // 1e-16 m/s from a solution, Newton's direction is ~1e-16 m/s: s(α) = Δvᵀ(M v − p*) − h Σ powerᵢ is then the
  // difference of two sums of ~1e-19 that agree to 12 digits, so its rounding (~1e-35) is far above 1e-6 of s(0)
  // (~1e-37). The search must stop on that rounding, not chase the noise down to its bracket's width (34 evaluations
  // on one of these seeds before it did).
  int most = 0, steps = 0;
  for (unsigned seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE(seed);
    const ContactProblem problem = testing::RandomProblem(60, 40, seed);
    TamsiSolver solver;
    Result result;
    ASSERT_EQ(solver.Solve(problem, &result), Status::kSuccess);
    Eigen::VectorXd v = result.v;
    for (int k = 0; k < 3; ++k) v += NewtonStep(problem, v).dv;  // the solution to rounding
    const Eigen::VectorXd offset = Eigen::VectorXd::LinSpaced(problem.num_velocities(), -1e-16, 1e-16);
    const NewtonStep step(problem, v + offset);
    for (const auto slope : {internal::LineSearchSlope::kLaggedPotential, internal::LineSearchSlope::kResidual}) {
      int evaluations = 0;
      const double alpha = step.Search(slope, &evaluations);
      EXPECT_GE(alpha, 0.0);
      EXPECT_LE(alpha, 1.0);
      most = std::max(most, evaluations);
      steps += alpha > 0.0;  // s(0) < 0: the search ran
    }
  }
  EXPECT_GE(steps, 10) << "too few descent directions among the 20: no test";
  EXPECT_LE(most, 3);
}

}  // namespace
}  // namespace tamsi
