// Bilateral compliant constraints (ContactProblem::Jb): closed-form spring–damper steps, the momentum balance they
// enter, backends and thread counts, replay, and named errors.

#include <gtest/gtest.h>
#include <tamsi/problem_io.h>
#include <tamsi/tamsi_solver.h>

#include <cstdio>
#include <random>
#include <utility>

#include "random_problem.h"

namespace tamsi {
namespace {

/// nb random constraint rows on `problem`, touching 3 velocities each.
void AddRandomConstraints(int nb, unsigned seed, ContactProblem* problem) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  problem->Jb = testing::RandomSparse(nb, problem->num_velocities(), 3, rng);
  problem->g0 = Eigen::VectorXd::NullaryExpr(nb, [&] { return 1e-3 * (2 * unit(rng) - 1); });
  problem->constraint_stiffness = Eigen::VectorXd::NullaryExpr(nb, [&] { return 1e4 * (1 + unit(rng)); });
  problem->constraint_damping = Eigen::VectorXd::NullaryExpr(nb, [&] { return 50 * unit(rng); });
}

// A mass m on a spring–damper g = x under a constant force F, no contact: implicit Euler's closed form
// m (v1 − v0) = h (F − k (x0 + h v1) − c v1) at every step, and the static deflection F/k at rest.
TEST(BilateralConstraints, SpringDamperStepsAreImplicitEulersClosedForm) {
  const double m = 0.5, k = 2e3, c = 20, h = 2e-3, F = 3.0;
  ContactProblem p;
  p.time_step = h;
  p.M.resize(1, 1);
  p.M.insert(0, 0) = m;
  p.Jn.resize(0, 1);
  p.Jt.resize(0, 1);
  p.Jb.resize(1, 1);
  p.Jb.insert(0, 0) = 1.0;
  p.constraint_stiffness = Eigen::VectorXd::Constant(1, k);
  p.constraint_damping = Eigen::VectorXd::Constant(1, c);
  TamsiSolver solver;
  Result result;
  double x = 0.0, v = 0.0;
  for (int step = 0; step < 2000; ++step) {
    p.g0 = Eigen::VectorXd::Constant(1, x);
    p.p_star = Eigen::VectorXd::Constant(1, m * v + h * F);
    ASSERT_EQ(solver.Solve(p, &result), Status::kSuccess);
    const double expected = (m * v + h * F - h * k * x) / (m + h * h * k + h * c);
    ASSERT_NEAR(result.v[0], expected, 1e-12 * (1 + std::abs(expected))) << "step " << step;
    // The reported force is the spring–damper's at the end of the step.
    ASSERT_NEAR(result.constraint_forces[0], -k * (x + h * expected) - c * expected, 1e-9);
    v = result.v[0];
    x += h * v;
  }
  EXPECT_NEAR(x, F / k, 1e-9);
  EXPECT_EQ(result.summary.num_constraints, 1);
  EXPECT_NEAR(result.summary.max_constraint_violation, F / k, 1e-9);
}

// With contacts and constraints together the solution satisfies the momentum balance written out term by term:
// M v − p* − h (Jnᵀ fn + Jtᵀ ft + Jbᵀ λ) = 0, with λ computed here from its definition.
TEST(BilateralConstraints, SolutionSatisfiesTheMomentumBalanceWithEveryForce) {
  for (Coupling coupling : {Coupling::kTwoWay, Coupling::kOneWay}) {
    ContactProblem p = testing::RandomProblem(40, 12, 5);
    AddRandomConstraints(8, 6, &p);
    Options o;
    o.coupling = coupling;
    o.relative_tolerance = 1e-6;
    TamsiSolver solver(o);
    Result r;
    ASSERT_EQ(solver.Solve(p, &r), Status::kSuccess) << r.summary.FullReport();
    const double h = p.time_step;
    const Eigen::VectorXd rate = p.Jb * r.v;
    const Eigen::VectorXd lambda =
        -(p.constraint_stiffness.cwiseProduct(p.g0 + h * rate) + p.constraint_damping.cwiseProduct(rate));
    EXPECT_LT((lambda - r.constraint_forces).norm(), 1e-12 * (1 + lambda.norm()));
    const Eigen::VectorXd balance = p.M * r.v - p.p_star -
                                    h * (SparseMatrix(p.Jn.transpose()) * r.fn + SparseMatrix(p.Jt.transpose()) * r.ft +
                                         SparseMatrix(p.Jb.transpose()) * lambda);
    EXPECT_LT(balance.norm(), 1e-6 * p.p_star.norm()) << ToString(coupling);
    EXPECT_NEAR(r.summary.max_constraint_violation, (p.g0 + h * rate).lpNorm<Eigen::Infinity>(), 1e-15);
  }
}

TEST(BilateralConstraints, BackendsAndThreadCountsAgree) {
  ContactProblem p = testing::RandomProblem(60, 20, 8);
  AddRandomConstraints(10, 9, &p);
  // Each sparse backend (and the default GMRES solve) against the dense oracle of its scheme.
  const std::pair<Coupling, LinearSolverType> cases[] = {{Coupling::kTwoWay, LinearSolverType::kUmfpack},
                                                         {Coupling::kOneWay, LinearSolverType::kCholmod}};
  for (const auto& [coupling, type] : cases) {
    Options dense;
    dense.coupling = coupling;
    dense.linear_solver = LinearSolverType::kDense;
    dense.newton_solve = NewtonSolve::kExact;
    dense.relative_tolerance = 1e-6;
    Result reference;
    ASSERT_EQ(TamsiSolver(dense).Solve(p, &reference), Status::kSuccess);
    for (NewtonSolve newton_solve : {NewtonSolve::kExact, NewtonSolve::kSymmetricPreconditioner}) {
      Options o = dense;
      o.linear_solver = type;
      o.newton_solve = newton_solve;
      Result r;
      ASSERT_EQ(TamsiSolver(o).Solve(p, &r), Status::kSuccess) << ToString(type);
      EXPECT_LT((r.v - reference.v).lpNorm<Eigen::Infinity>(), 1e-8) << ToString(type) << " " << ToString(newton_solve);
    }
  }
  Result one, four;
  Options o;
  o.dense_threshold = 0;
  o.num_threads = 1;
  ASSERT_EQ(TamsiSolver(o).Solve(p, &one), Status::kSuccess);
  o.num_threads = 4;
  ASSERT_EQ(TamsiSolver(o).Solve(p, &four), Status::kSuccess);
  EXPECT_EQ(one.v, four.v);
  EXPECT_EQ(one.constraint_forces, four.constraint_forces);
}

// Two masses with no contact between them, tied by one constraint row: one island (the fold couples them in M), and
// the islands' solution is the monolithic one. A constant force on the first drags the second along.
TEST(BilateralConstraints, IslandsAccountForConstraintCoupling) {
  ContactProblem p;
  p.time_step = 1e-2;
  p.M.resize(2, 2);
  p.M.insert(0, 0) = 1.0;
  p.M.insert(1, 1) = 2.0;
  p.M.makeCompressed();
  p.Jn.resize(0, 2);
  p.Jt.resize(0, 2);
  p.Jb.resize(1, 2);
  p.Jb.insert(0, 0) = 1.0;
  p.Jb.insert(0, 1) = -1.0;  // g = x0 − x1
  p.g0 = Eigen::VectorXd::Zero(1);
  p.constraint_stiffness = Eigen::VectorXd::Constant(1, 1e4);
  p.constraint_damping = Eigen::VectorXd::Constant(1, 100.0);
  p.p_star = Eigen::Vector2d(p.time_step * 3.0, 0.0);  // 3 N on mass 0
  Result islands, whole;
  Options o;
  ASSERT_EQ(TamsiSolver(o).Solve(p, &islands), Status::kSuccess);
  o.use_islands = false;
  ASSERT_EQ(TamsiSolver(o).Solve(p, &whole), Status::kSuccess);
  EXPECT_EQ(islands.summary.num_islands, 1);
  EXPECT_LT((islands.v - whole.v).lpNorm<Eigen::Infinity>(), 1e-14);
  EXPECT_GT(islands.v[1], 0.0);  // the second mass moves with the first
}

TEST(BilateralConstraints, ProblemFilesCarryThemAndReplayExactly) {
  ContactProblem p = testing::RandomProblem(30, 8, 21);
  AddRandomConstraints(5, 22, &p);
  const std::string path = ::testing::TempDir() + "/constrained_problem.json";
  WriteProblem(p, path);
  const ContactProblem replayed = ReadProblem(path);
  std::remove(path.c_str());
  ASSERT_EQ(replayed.num_constraints(), 5);
  EXPECT_EQ(replayed.g0, p.g0);
  EXPECT_EQ(replayed.constraint_stiffness, p.constraint_stiffness);
  EXPECT_EQ(replayed.constraint_damping, p.constraint_damping);
  TamsiSolver solver;
  Result a, b;
  ASSERT_EQ(solver.Solve(p, &a), Status::kSuccess);
  ASSERT_EQ(solver.Solve(replayed, &b), Status::kSuccess);
  EXPECT_EQ(a.v, b.v);
}

TEST(BilateralConstraints, InvalidFieldsAreNamed) {
  auto expect_named = [](ContactProblem p, const std::string& field) {
    try {
      p.Validate();
      ADD_FAILURE() << "accepted a bad " << field;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("ContactProblem." + field + ":"), std::string::npos) << e.what();
    }
  };
  ContactProblem p = testing::RandomProblem(10, 3, 1);
  AddRandomConstraints(2, 2, &p);
  p.Validate();
  ContactProblem bad = p;
  bad.Jb.conservativeResize(2, 9);
  expect_named(bad, "Jb");
  bad = p;
  bad.g0.resize(1);
  expect_named(bad, "g0");
  bad = p;
  bad.constraint_stiffness[1] = -1.0;
  expect_named(bad, "constraint_stiffness");
  bad = p;
  bad.constraint_damping[0] = std::nan("");
  expect_named(bad, "constraint_damping");
}

}  // namespace
}  // namespace tamsi
