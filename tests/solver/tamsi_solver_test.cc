// The solver's numerics and contract: Jacobian vs finite differences, sparse backends vs the dense oracle, symbolic
// reuse, statuses on singular systems, empty problems, and input validation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <omp.h>
#include <tamsi/kernels/parallel.h>
#include <tamsi/newton_system.h>
#include <tamsi/tamsi_solver.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "newton_check.h"
#include "point_mass.h"
#include "random_problem.h"

namespace tamsi {
namespace {

using ::testing::HasSubstr;
using testing::RandomProblem;

struct JacobianCase {
  Coupling coupling;
  FrictionRegularization regularization;
};

class NewtonJacobianTest : public ::testing::TestWithParam<JacobianCase> {};

// ∂r/∂v assembled from the per-contact blocks (eq. 23 / eq. 17) equals central differences of r(v) (eq. 21 / 12).
TEST_P(NewtonJacobianTest, MatchesFiniteDifferencesOfTheResidual) {
  const JacobianCase c = GetParam();
  const double vs = 1e-2;  // wide stiction region so that sampled points avoid the kink at ‖vt‖ = v_s
  int samples = 0, checked_stick = 0, checked_slip = 0;
  for (unsigned seed = 1; seed <= 40; ++seed) {
    ContactProblem problem = RandomProblem(12, 4, seed, 2e-2);
    problem.v0 = Eigen::VectorXd::Constant(12, 1e-3);
    if (seed % 2 == 0) {  // bilateral constraints, coupling velocities the contacts do not
      std::mt19937 rng(seed);
      problem.Jb = testing::RandomSparse(3, 12, 3, rng);
      problem.g0 = Eigen::Vector3d(1e-3, -2e-3, 5e-4);
      problem.constraint_stiffness = Eigen::Vector3d(2e4, 5e3, 1e4);
      problem.constraint_damping = Eigen::Vector3d(30, 0, 10);
    }
    const kernels::ThreadBudget budget(1);
    NewtonSystem system(problem, c.coupling == Coupling::kTwoWay, vs, c.regularization, budget);
    const Eigen::VectorXd v = *problem.v_guess;
    system.Evaluate(v);
    // Skip samples near a kink of eq. 5 (δ = 0 or 1 − d vn = 0) or of eq. 7 (s = 1).
    bool smooth = true;
    int stick = 0;
    for (int i = 0; i < 4; ++i) {
      const double s = system.vt().segment<2>(2 * i).norm() / vs;
      const double delta = problem.delta0[i] - problem.time_step * system.vn()[i];
      const double damping = 1 - problem.dissipation[i] * system.vn()[i];
      smooth &= std::abs(s - 1) > 0.05 && delta > 1e-5 && damping > 1e-2;
      stick += s < 1;
    }
    if (!smooth) continue;
    ++samples;
    checked_stick += stick;
    checked_slip += 4 - stick;
    system.Assemble();
    const Eigen::MatrixXd A = system.Jacobian();
    const Eigen::MatrixXd fd = testing::ResidualFiniteDifferences(system, v);
    EXPECT_LT((A - fd).norm(), 1e-6 * A.norm()) << "seed " << seed << "\nA =\n" << A << "\nfd =\n" << fd;
    if (c.coupling == Coupling::kOneWay) {
      EXPECT_LT((A - A.transpose()).norm(), 1e-12 * A.norm());
    }
  }
  EXPECT_GE(samples, 10);
  EXPECT_GT(checked_stick, 5);
  EXPECT_GT(checked_slip, 5);
}

INSTANTIATE_TEST_SUITE_P(Schemes, NewtonJacobianTest,
                         ::testing::Values(JacobianCase{Coupling::kTwoWay, FrictionRegularization::kLinear},
                                           JacobianCase{Coupling::kTwoWay, FrictionRegularization::kSmooth},
                                           JacobianCase{Coupling::kOneWay, FrictionRegularization::kLinear},
                                           JacobianCase{Coupling::kOneWay, FrictionRegularization::kSmooth}));

struct BackendCase {
  Coupling coupling;
  LinearSolverType backend;
};
class BackendTest : public ::testing::TestWithParam<BackendCase> {};

TEST_P(BackendTest, AgreesWithTheDenseOracle) {
  const BackendCase c = GetParam();
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const ContactProblem problem = RandomProblem(80, 30, seed);
    Options options;
    options.coupling = c.coupling;
    options.relative_tolerance = 1e-4;
    options.newton_solve = NewtonSolve::kExact;  // every system factored by the backend under test
    options.linear_solver = LinearSolverType::kDense;
    TamsiSolver dense(options);
    options.linear_solver = c.backend;
    TamsiSolver sparse(options);
    Result expected, actual;
    ASSERT_EQ(dense.Solve(problem, &expected), Status::kSuccess) << expected.summary.FullReport();
    ASSERT_EQ(sparse.Solve(problem, &actual), Status::kSuccess) << actual.summary.FullReport();
    EXPECT_EQ(actual.summary.linear_solver_used, c.backend);
    EXPECT_LT((actual.v - expected.v).lpNorm<Eigen::Infinity>(), 1e-8) << "seed " << seed;
    EXPECT_LT((actual.fn - expected.fn).lpNorm<Eigen::Infinity>(), 1e-6 * (1 + expected.fn.lpNorm<Eigen::Infinity>()));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, BackendTest,
                         ::testing::Values(BackendCase{Coupling::kTwoWay, LinearSolverType::kUmfpack},
                                           BackendCase{Coupling::kOneWay, LinearSolverType::kUmfpack},
                                           BackendCase{Coupling::kTwoWay, LinearSolverType::kKlu},
                                           BackendCase{Coupling::kOneWay, LinearSolverType::kKlu},
                                           BackendCase{Coupling::kOneWay, LinearSolverType::kCholmod}));

// The symmetric part (NewtonSolve::kSymmetricPreconditioner's preconditioner) is eq. 23 without W_tn = h Jtᵀ D Jn:
// symmetric, equal to A where W_tn vanishes (one-way, frictionless), and A − S maps through Jn into range(Jtᵀ).
TEST(NewtonSystem, SymmetricPartIsTheNewtonMatrixWithoutWtn) {
  const kernels::ThreadBudget budget(1);
  int positive_definite = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    ContactProblem problem = RandomProblem(30, 10, seed, 2e-2);
    for (int coupling = 0; coupling < 2; ++coupling) {
      NewtonSystem system(problem, coupling == 0, 1e-2, FrictionRegularization::kLinear, budget);
      system.Evaluate(*problem.v_guess);
      Eigen::VectorXd values;
      system.Assemble(&values);
      const Eigen::MatrixXd A = system.Jacobian();
      const Eigen::MatrixXd S =
          Eigen::Map<const SparseMatrix>(30, 30, system.pattern().nnz(), system.pattern().col_ptr().data(),
                                         system.pattern().row_index().data(), values.data());
      EXPECT_LE((S - S.transpose()).cwiseAbs().maxCoeff(), 1e-12 * S.cwiseAbs().maxCoeff()) << seed;
      if (coupling == 1) {
        EXPECT_EQ(S, A) << "one-way: eq. 17 is symmetric already";
        continue;
      }
      EXPECT_GT((A - S).cwiseAbs().maxCoeff(), 1e-8 * A.cwiseAbs().maxCoeff()) << seed;
      // (A − S) x = h Jtᵀ D (Jn x): zero for x in the null space of Jn; (A − S)ᵀ y is zero for y in that of Jt.
      const Eigen::MatrixXd Jn = problem.Jn, Jt = problem.Jt;
      const Eigen::MatrixXd null_n = Jn.fullPivLu().kernel(), null_t = Jt.fullPivLu().kernel();
      EXPECT_LE(((A - S) * null_n).cwiseAbs().maxCoeff(), 1e-10 * A.cwiseAbs().maxCoeff()) << seed;
      EXPECT_LE(((A - S).transpose() * null_t).cwiseAbs().maxCoeff(), 1e-10 * A.cwiseAbs().maxCoeff()) << seed;
      positive_definite += Eigen::LLT<Eigen::MatrixXd>(S).info() == Eigen::Success;
    }
    problem.friction.setZero();
    NewtonSystem frictionless(problem, true, 1e-2, FrictionRegularization::kLinear, budget);
    frictionless.Evaluate(*problem.v_guess);
    Eigen::VectorXd values;
    frictionless.Assemble(&values);
    EXPECT_EQ(values, frictionless.values()) << "frictionless: W_tn = 0";
  }
  EXPECT_EQ(positive_definite, 20);
}

TEST(TamsiSolver, AutoPicksDenseForTinyAndSparseForLargeSystems) {
  TamsiSolver solver;
  Result result;
  solver.Solve(RandomProblem(10, 3, 1), &result);
  EXPECT_EQ(result.summary.linear_solver_used, LinearSolverType::kDense);
  solver.Solve(RandomProblem(100, 30, 1), &result);
  EXPECT_EQ(result.summary.linear_solver_used, LinearSolverType::kUmfpack);  // for what GMRES does not solve
  EXPECT_EQ(result.summary.counters.krylov_solves, result.summary.counters.newton_systems);
  Options exact;
  exact.newton_solve = NewtonSolve::kExact;
  TamsiSolver lu(exact);
  lu.Solve(RandomProblem(100, 30, 1), &result);
  EXPECT_EQ(result.summary.linear_solver_used, LinearSolverType::kUmfpack);
  Options one_way;
  one_way.coupling = Coupling::kOneWay;
  TamsiSolver spd(one_way);
  spd.Solve(RandomProblem(100, 30, 1), &result);
  EXPECT_EQ(result.summary.linear_solver_used, LinearSolverType::kCholmod);
}

TEST(TamsiSolver, CholmodLeavesTheCallersOpenMpSettingsAsTheyWere) {
  // The CHOLMOD backend sets OpenMP's thread count and dynamic adjustment for its own calls only (linear_solver.cc).
  Options one_way;
  one_way.coupling = Coupling::kOneWay;
  one_way.linear_solver = LinearSolverType::kCholmod;
  TamsiSolver solver(one_way);
  Result result;
  for (int dynamic : {0, 1}) {
    omp_set_dynamic(dynamic);
    omp_set_num_threads(3 + dynamic);
    ASSERT_EQ(solver.Solve(RandomProblem(100, 30, 2), &result), Status::kSuccess);
    EXPECT_EQ(result.summary.linear_solver_used, LinearSolverType::kCholmod);
    EXPECT_EQ(omp_get_dynamic(), dynamic);
    EXPECT_EQ(omp_get_max_threads(), 3 + dynamic);
  }
}

TEST(TamsiSolver, ReusesTheSymbolicAnalysisWhileThePatternHolds) {
  TamsiSolver solver;
  Result first, second, other;
  ContactProblem problem = RandomProblem(100, 30, 3);
  ASSERT_EQ(solver.Solve(problem, &first), Status::kSuccess);
  EXPECT_EQ(first.summary.counters.symbolic_factorizations, 1);
  // A factorization per iteration (the Cholesky of S), but where the last one is kept near convergence.
  EXPECT_LE(first.summary.counters.numeric_factorizations, first.summary.iterations);
  EXPECT_GT(first.summary.counters.numeric_factorizations, 0);
  problem.p_star *= 1.5;  // same pattern, new values
  problem.Jt.coeffs() *= 0.9;
  problem.M.coeffs() *= 1.1;
  ASSERT_EQ(solver.Solve(problem, &second), Status::kSuccess);
  EXPECT_EQ(second.summary.counters.symbolic_factorizations, 0);
  EXPECT_FALSE(first.summary.structure_reused);
  EXPECT_TRUE(second.summary.structure_reused);
  ASSERT_EQ(solver.Solve(RandomProblem(100, 31, 4), &other), Status::kSuccess);
  EXPECT_EQ(other.summary.counters.symbolic_factorizations, 1);
  EXPECT_FALSE(other.summary.structure_reused);
  // Reuse gives the same answer as a fresh solver.
  TamsiSolver fresh;
  Result reference;
  fresh.Solve(problem, &reference);
  EXPECT_EQ(reference.v, second.v);
}

TEST(TamsiSolver, ConvergesToTheTolerance) {
  Options options;
  TamsiSolver solver(options);
  Result result;
  ASSERT_EQ(solver.Solve(RandomProblem(100, 30, 7), &result), Status::kSuccess);
  const double tolerance = options.relative_tolerance * options.stiction_tolerance;
  EXPECT_LE(result.summary.vt_residual.back(), tolerance);
  EXPECT_LE(result.summary.vn_residual.back(), tolerance);
  EXPECT_EQ(result.summary.alpha.size(), static_cast<size_t>(result.summary.iterations));
}

// The friction duals' first values (ContactProblem::w_guess) steer the primal–dual iterates, not the solution: from
// the same first v, the solution's own duals and the same duals reversed each reach the cold start's v (within the
// convergence tolerance, 1e-2 v_s on each update) along other iterates, the right duals in fewer iterations.
TEST(TamsiSolver, FrictionDualGuessChangesTheIteratesNotTheSolution) {
  ContactProblem problem = RandomProblem(40, 30, 5);
  TamsiSolver solver;
  const double v_s = solver.options().stiction_tolerance;
  Result cold;
  ASSERT_EQ(solver.Solve(problem, &cold), Status::kSuccess);
  int sliding = 0;
  Eigen::VectorXd w(2 * problem.num_contacts());
  for (int i = 0; i < problem.num_contacts(); ++i) {
    const Eigen::Vector2d vt = cold.vt.segment<2>(2 * i);
    sliding += vt.norm() > v_s;
    w.segment<2>(2 * i) = vt / std::max(v_s, vt.norm());
  }
  ASSERT_GT(sliding, 0);
  int iterations[2];
  for (const int reversed : {0, 1}) {
    problem.w_guess = reversed ? Eigen::VectorXd(-w) : w;
    Result guessed;
    ASSERT_EQ(solver.Solve(problem, &guessed), Status::kSuccess);
    iterations[reversed] = guessed.summary.iterations;
    EXPECT_NE(guessed.v, cold.v) << "w_guess was not read";
    EXPECT_LT((guessed.v - cold.v).lpNorm<Eigen::Infinity>(), 1e-6);
  }
  // Here: 4 iterations from the solution's duals, 5 cold, 6 from the reversed duals.
  EXPECT_LT(iterations[0], iterations[1]);
}

// A light body sliding fast (10 g, μ = 1) on a stiff, dissipative contact: the normal force's pull on the friction
// (the two-way W_tn term, h μ |dπ/dvn| ≈ 4 m here) makes the primal–dual iteration's first direction from this guess
// no descent direction of the step's slope, so TALS sets α. Counted toward primal_dual_max_non_descent: with 1 the
// island falls back to the paper's iteration at once (counted as a primal–dual fallback), with 100 it does not, and
// both reach the same v.
TEST(TamsiSolver, NonDescentPrimalDualDirectionsFallBackToTheTangentIteration) {
  testing::PointMass body;
  body.mass = 0.01;
  body.stiffness = 3e3;
  body.dissipation = 10;
  body.friction = 1.0;
  body.time_step = 2e-3;
  body.z = -1e-3;
  body.v = Eigen::Vector3d(0.5, 0.0, 0.0);
  ContactProblem problem = body.Problem(Eigen::Vector3d(0, 0, -9.81 * body.mass));
  problem.v_guess = Eigen::VectorXd(Eigen::Vector3d(0.05, 0.0, -0.1));
  Result results[2];
  for (const int limit : {1, 100}) {
    Options options;
    options.primal_dual_max_non_descent = limit;
    Result& result = results[limit == 100];
    ASSERT_EQ(TamsiSolver(options).Solve(problem, &result), Status::kSuccess);
    ASSERT_FALSE(result.summary.tals_fallbacks.empty());
    EXPECT_EQ(result.summary.tals_fallbacks[0], 1) << "the first direction is a descent direction: no test";
    EXPECT_EQ(result.summary.counters.primal_dual_fallbacks, limit == 1 ? 1 : 0);
  }
  // The same solution either way. (With one sliding contact both iterations take nearly the same steps after the
  // fallback: the runs differ in their counters above more than in their iterates.)
  EXPECT_LT((results[0].v - results[1].v).lpNorm<Eigen::Infinity>(), 1e-5);
}

TEST(TamsiSolver, NormalVelocityChangesAloneKeepNewtonIterating) {
  // Frictionless contact: the tangential update is zero from the start, the normal one is not.
  ContactProblem problem = RandomProblem(20, 5, 11);
  problem.friction.setZero();
  problem.v_guess = Eigen::VectorXd::Constant(20, 0.5);
  Options options;
  options.max_iterations = 1;
  TamsiSolver solver(options);
  Result result;
  EXPECT_EQ(solver.Solve(problem, &result), Status::kMaxIterationsReached);
  EXPECT_GT(result.summary.vn_residual.back(), options.relative_tolerance * options.stiction_tolerance);
}

// One Newton iteration from the guess: exact with a factorization of the Newton matrix (NewtonSolve::kExact); to the
// single-precision preconditioner's accuracy by default (GMRES accepts its first iterate, whose residual is far below
// krylov_tolerance; no contact's update tests the velocities here).
TEST(TamsiSolver, WithoutContactsOneIterationSolvesTheFreeMotion) {
  ContactProblem problem = RandomProblem(40, 0, 5);
  const Eigen::VectorXd expected = Eigen::MatrixXd(problem.M).ldlt().solve(problem.p_star);
  Result result;
  Options exact;
  exact.newton_solve = NewtonSolve::kExact;
  ASSERT_EQ(TamsiSolver(exact).Solve(problem, &result), Status::kSuccess);
  EXPECT_EQ(result.summary.iterations, 1);
  EXPECT_LT((result.v - expected).norm(), 1e-12 * expected.norm());
  TamsiSolver solver;
  ASSERT_EQ(solver.Solve(problem, &result), Status::kSuccess);
  EXPECT_EQ(result.summary.iterations, 1);
  EXPECT_LT((result.v - expected).norm(), 1e-6 * expected.norm());
  EXPECT_EQ(result.fn.size(), 0);
  problem.v_guess.reset();  // start from v* = M⁻¹ p*: already the answer
  ASSERT_EQ(solver.Solve(problem, &result), Status::kSuccess);
  EXPECT_LT((result.v - expected).norm(), 1e-12 * expected.norm());
}

// A contact whose rows of Jn and Jt are zero (it touches no velocity, so it is in no island) changes nothing: the
// solve is the one without it (it overran the per-contact state sized by the islands' contacts; found by fuzzing).
TEST(TamsiSolver, AContactTouchingNoVelocityChangesNothing) {
  testing::PointMass body;
  body.z = -1e-3;
  body.v = Eigen::Vector3d(0.2, 0.0, -0.1);
  const ContactProblem alone = body.Problem(Eigen::Vector3d(1.0, 0.0, 0.0));
  ContactProblem with_idle = alone;  // the idle contact first, so the real one's index exceeds the islands' count
  with_idle.Jn.resize(2, 3);
  with_idle.Jn.insert(1, 2) = 1.0;
  with_idle.Jt.resize(4, 3);
  with_idle.Jt.insert(2, 0) = 1.0;
  with_idle.Jt.insert(3, 1) = 1.0;
  with_idle.Jn.makeCompressed();
  with_idle.Jt.makeCompressed();
  auto two = [](double idle, double real) { return Eigen::Vector2d(idle, real); };
  with_idle.delta0 = two(0.0, alone.delta0[0]);
  with_idle.stiffness = two(1e4, alone.stiffness[0]);
  with_idle.dissipation = two(0.0, alone.dissipation[0]);
  with_idle.friction = two(0.5, alone.friction[0]);
  TamsiSolver solver;
  Result expected, result;
  ASSERT_EQ(solver.Solve(alone, &expected), Status::kSuccess);
  TamsiSolver other;
  ASSERT_EQ(other.Solve(with_idle, &result), Status::kSuccess);
  EXPECT_LT((result.v - expected.v).norm(), 1e-12 * expected.v.norm());
  EXPECT_EQ(result.fn[0], 0.0);
  EXPECT_NEAR(result.fn[1], expected.fn[0], 1e-12 * expected.fn[0]);
}

TEST(TamsiSolver, EmptyProblemIsValid) {
  ContactProblem problem;
  problem.time_step = 1e-3;
  TamsiSolver solver;
  Result result;
  EXPECT_EQ(solver.Solve(problem, &result), Status::kSuccess);
  EXPECT_EQ(result.v.size(), 0);
}

// 2 × 2 blocks [[1, c], [c, 1]] of a 40 × 40 M, no contacts.
ContactProblem BlockMassProblem(double c) {
  ContactProblem problem;
  problem.time_step = 1e-3;
  problem.M.resize(40, 40);
  for (int i = 0; i < 40; i += 2)
    problem.M.insert(i, i) = problem.M.insert(i, i + 1) = problem.M.insert(i + 1, i) = problem.M.insert(i + 1, i + 1) =
        1;
  for (int i = 0; i < 40; i += 2) problem.M.coeffRef(i, i + 1) = problem.M.coeffRef(i + 1, i) = c;
  problem.M.makeCompressed();
  problem.Jn.resize(0, 40);
  problem.Jt.resize(0, 40);
  problem.p_star = Eigen::VectorXd::Ones(40);
  problem.v_guess = Eigen::VectorXd::Zero(40);
  return problem;
}

// M positive definite but singular to working precision (c = 1 − 1e-15): the backends that test their pivots say
// so in a status; an exactly singular M (c = 1) is an invalid problem, named for every backend.
TEST(TamsiSolver, SingularNewtonMatrixIsAStatusNotACrash) {
  for (LinearSolverType backend : {LinearSolverType::kDense, LinearSolverType::kKlu}) {
    Options options;
    options.linear_solver = backend;
    options.newton_solve = NewtonSolve::kExact;
    TamsiSolver solver(options);
    Result result;
    EXPECT_EQ(solver.Solve(BlockMassProblem(1.0 - 1e-15), &result), Status::kLinearSolverFailed) << ToString(backend);
    EXPECT_THAT(result.summary.message, HasSubstr("singular")) << ToString(backend);
  }
  for (LinearSolverType backend : {LinearSolverType::kDense, LinearSolverType::kUmfpack, LinearSolverType::kKlu}) {
    Options options;
    options.linear_solver = backend;
    TamsiSolver solver(options);
    Result result;
    ContactProblem problem = BlockMassProblem(1.0);
    for (const bool guess : {true, false}) {
      if (!guess) problem.v_guess.reset();
      try {
        solver.Solve(problem, &result);
        ADD_FAILURE() << "a singular M solved with " << ToString(backend);
      } catch (const std::invalid_argument& e) {
        EXPECT_THAT(e.what(), HasSubstr("ContactProblem.M: must be positive definite")) << e.what();
      }
    }
  }
}

// A failed solve's backend message is not reported by a later solve of the same pattern that fails otherwise.
TEST(TamsiSolver, AnEarlierFailuresMessageIsNotReportedAgain) {
  auto problem_with = [](double off_diagonal, double penetration) {
    ContactProblem p;
    p.time_step = 1e-3;
    p.M.resize(40, 40);
    for (int i = 0; i < 40; i += 2)
      p.M.insert(i, i) = p.M.insert(i + 1, i + 1) = 1, p.M.insert(i, i + 1) = p.M.insert(i + 1, i) = off_diagonal;
    p.M.makeCompressed();
    p.Jn.resize(1, 40);
    p.Jn.insert(0, 0) = 1.0;
    p.Jt.resize(2, 40);
    p.Jt.insert(0, 2) = 1.0;
    p.Jt.insert(1, 4) = 1.0;
    p.Jn.makeCompressed();
    p.Jt.makeCompressed();
    p.p_star = Eigen::VectorXd::Ones(40);
    p.delta0 = Eigen::VectorXd::Constant(1, penetration);
    p.stiffness = Eigen::VectorXd::Constant(1, 1e5);
    p.dissipation = Eigen::VectorXd::Constant(1, 1.0);
    p.friction = Eigen::VectorXd::Constant(1, 0.5);
    p.v_guess = Eigen::VectorXd::Zero(40);
    return p;
  };
  Options options;
  options.linear_solver = LinearSolverType::kKlu;
  options.newton_solve = NewtonSolve::kExact;
  options.max_iterations = 1;
  TamsiSolver solver(options);
  Result result;
  // Blocks [[1, 1 − 1e-15], [1 − 1e-15, 1]], positive definite but singular to working precision, and a contact out
  // of touch: the Newton matrix's factorization fails, with the backend's words.
  ASSERT_EQ(solver.Solve(problem_with(1.0 - 1e-15, -1.0), &result), Status::kLinearSolverFailed);
  ASSERT_FALSE(result.summary.message.empty());
  // The same pattern, regular, with a contact that needs more than the one iteration allowed.
  ASSERT_EQ(solver.Solve(problem_with(0.5, 1e-2), &result), Status::kMaxIterationsReached);
  EXPECT_TRUE(result.summary.structure_reused);
  EXPECT_EQ(result.summary.message, "");
}

// A huge iteration cap is accepted without reserving its whole history up front.
TEST(TamsiSolver, AHugeIterationCapAllocatesOnlyWhatItUses) {
  Options options;
  options.max_iterations = 1000000000;
  TamsiSolver solver(options);
  Result result;
  ASSERT_EQ(solver.Solve(testing::RandomProblem(12, 4, 3), &result), Status::kSuccess);
  EXPECT_LT(result.summary.vt_residual.capacity(), 10000u);
}

// M's symmetry check pairs each entry with its mirror in one pass: an entry whose mirror is not stored, on either
// side of the diagonal, must be below 1e-10 times M's largest entry; uncompressed storage (after insertions) too.
TEST(ContactProblem, MEntriesWithoutAStoredMirrorMustBeZero) {
  auto with = [](std::vector<Eigen::Triplet<double>> extra, bool compress) {
    ContactProblem p = RandomProblem(6, 0, 1);
    SparseMatrix M(6, 6);
    for (int i = 0; i < 6; ++i) M.insert(i, i) = 2.0;
    for (const auto& t : extra) M.insert(t.row(), t.col()) = t.value();
    if (compress) M.makeCompressed();
    p.M = M;
    return p;
  };
  for (bool compress : {false, true}) {
    EXPECT_THROW(with({{0, 4, 1e-3}}, compress).Validate(), std::invalid_argument);
    EXPECT_THROW(with({{4, 0, 1e-3}}, compress).Validate(), std::invalid_argument);
    EXPECT_THROW(with({{1, 3, 1e-3}, {3, 1, 2e-3}}, compress).Validate(), std::invalid_argument);
    EXPECT_NO_THROW(with({{1, 3, 1e-3}, {3, 1, 1e-3}, {0, 5, 1e-12}, {4, 2, -1e-12}}, compress).Validate());
  }
}

// Such an entry passes validation, so the solver must not take M's pattern to be symmetric: the Newton matrix
// holds its mirror too (GMRES reads the transpose through the pattern). Entry (nv − 1, 0) alone would make the
// transpose map run past the last column; with its mirror stored, the same solve, the same Newton iterations.
TEST(TamsiSolver, SolvesAMassWithAnEntryWithoutAStoredMirror) {
  const ContactProblem mirrored = [] {
    ContactProblem p = RandomProblem(100, 30, 1);
    p.M.coeffRef(99, 0) += 1e-13;
    p.M.coeffRef(0, 99) += 1e-13;
    p.M.makeCompressed();
    return p;
  }();
  ContactProblem one_sided = RandomProblem(100, 30, 1);
  one_sided.M.coeffRef(99, 0) += 1e-13;
  one_sided.M.makeCompressed();
  ASSERT_EQ(one_sided.M.nonZeros() + 1, mirrored.M.nonZeros());
  Result expected, actual;
  ASSERT_EQ(TamsiSolver().Solve(mirrored, &expected), Status::kSuccess);
  ASSERT_EQ(TamsiSolver().Solve(one_sided, &actual), Status::kSuccess);
  EXPECT_GT(actual.summary.counters.krylov_solves, 0);
  EXPECT_EQ(actual.summary.iterations, expected.summary.iterations);
  EXPECT_LE((actual.v - expected.v).lpNorm<Eigen::Infinity>(), 1e-12 * expected.v.lpNorm<Eigen::Infinity>());
}

TEST(ContactProblem, InvalidFieldsAreNamed) {
  const ContactProblem good = RandomProblem(6, 2, 1);
  auto expect_error = [&](auto mutate, const std::string& field) {
    ContactProblem p = good;
    mutate(p);
    try {
      p.Validate();
      ADD_FAILURE() << "no error for " << field;
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr("ContactProblem." + field)) << e.what();
    }
    TamsiSolver solver;
    Result result;
    EXPECT_THROW(solver.Solve(p, &result), std::invalid_argument);
  };
  expect_error([](ContactProblem& p) { p.time_step = 0; }, "time_step");
  expect_error([](ContactProblem& p) { p.time_step = NAN; }, "time_step");
  expect_error([](ContactProblem& p) { p.M.conservativeResize(6, 5); }, "M");
  expect_error([](ContactProblem& p) { p.M.coeffRef(0, 1) += 1.0; }, "M");
  expect_error([](ContactProblem& p) { p.M.coeffRef(0, 5) = 1.0; }, "M");  // no mirror stored below the diagonal
  expect_error([](ContactProblem& p) { p.M.coeffRef(5, 0) = 1.0; }, "M");  // no mirror stored above it
  expect_error([](ContactProblem& p) { p.M.coeffRef(3, 3) = 0.0; }, "M");
  expect_error([](ContactProblem& p) { p.Jn.conservativeResize(2, 5); }, "Jn");
  expect_error([](ContactProblem& p) { p.Jt.conservativeResize(3, 6); }, "Jt");
  expect_error([](ContactProblem& p) { p.p_star[2] = INFINITY; }, "p_star");
  expect_error([](ContactProblem& p) { p.delta0.resize(3); }, "delta0");
  expect_error([](ContactProblem& p) { p.stiffness[0] = -1; }, "stiffness");
  expect_error([](ContactProblem& p) { p.dissipation[1] = -0.1; }, "dissipation");
  expect_error([](ContactProblem& p) { p.friction[0] = -0.5; }, "friction");
  expect_error([](ContactProblem& p) { p.v_guess->resize(2); }, "v_guess");
  expect_error([](ContactProblem& p) { p.w_guess = Eigen::VectorXd::Zero(3); }, "w_guess");
  expect_error([](ContactProblem& p) { p.w_guess = Eigen::VectorXd::Constant(4, 0.8); }, "w_guess");  // ‖wᵢ‖ > 1
  expect_error([](ContactProblem& p) { p.v0 = Eigen::VectorXd::Constant(6, NAN); }, "v0");
}

// Validate's O(nnz) checks (symmetry, positive diagonal) cannot see an indefinite M; Solve's factorization of M does,
// for M factored densely by components and whole by CHOLMOD (nv = 40, 200), with either scheme, whether or not the
// caller gives a first iterate; the same M made definite solves.
TEST(ContactProblem, AnIndefiniteMassMatrixIsNamedBySolve) {
  for (const int nv : {40, 200})
    for (const double coupling : {1.5, 0.5}) {  // M = tridiag(c, 2, c): definite for |c| < 1, indefinite above
      ContactProblem p = RandomProblem(nv, 6, 2);
      std::vector<Eigen::Triplet<double>> triplets;
      for (int i = 0; i < nv; ++i) {
        triplets.emplace_back(i, i, 2.0);
        if (i + 1 < nv) {
          triplets.emplace_back(i, i + 1, coupling);
          triplets.emplace_back(i + 1, i, coupling);
        }
      }
      p.M.setFromTriplets(triplets.begin(), triplets.end());
      ASSERT_NO_THROW(p.Validate());
      for (const Coupling scheme : {Coupling::kTwoWay, Coupling::kOneWay})
        for (const bool guess : {true, false}) {
          Options o;
          o.coupling = scheme;
          TamsiSolver solver(o);
          ContactProblem q = p;
          if (!guess) q.v_guess.reset();
          Result result;
          if (coupling < 1.0) {
            EXPECT_EQ(solver.Solve(q, &result), Status::kSuccess) << nv;
            continue;
          }
          try {
            solver.Solve(q, &result);
            ADD_FAILURE() << "an indefinite M solved (nv " << nv << ")";
          } catch (const std::invalid_argument& e) {
            EXPECT_THAT(e.what(), HasSubstr("ContactProblem.M: must be positive definite")) << e.what();
          }
        }
    }
}

TEST(Options, InvalidFieldsAreNamed) {
  auto expect_error = [](auto mutate, const std::string& field) {
    Options o;
    mutate(o);
    std::string error;
    EXPECT_FALSE(o.IsValid(&error));
    EXPECT_THAT(error, HasSubstr("Options." + field));
    EXPECT_THROW(TamsiSolver{o}, std::invalid_argument);
  };
  expect_error([](Options& o) { o.stiction_tolerance = 0; }, "stiction_tolerance");
  expect_error([](Options& o) { o.relative_tolerance = 1.5; }, "relative_tolerance");
  expect_error([](Options& o) { o.max_iterations = 0; }, "max_iterations");
  expect_error([](Options& o) { o.max_angle = 4; }, "max_angle");
  expect_error([](Options& o) { o.secant_entry_alpha = 0; }, "secant_entry_alpha");
  expect_error([](Options& o) { o.secant_exit_factor = 0.5; }, "secant_exit_factor");
  expect_error([](Options& o) { o.primal_dual_max_alpha = 0.5; }, "primal_dual_max_alpha");
  expect_error([](Options& o) { o.primal_dual_stall_iterations = 0; }, "primal_dual_stall_iterations");
  expect_error([](Options& o) { o.primal_dual_max_non_descent = 0; }, "primal_dual_max_non_descent");
  expect_error([](Options& o) { o.linear_solver = LinearSolverType::kCholmod; }, "linear_solver");
  expect_error([](Options& o) { o.schwarz_threshold = 0; }, "schwarz_threshold");
  expect_error([](Options& o) { o.schwarz_part_bodies = 0; }, "schwarz_part_bodies");
  expect_error([](Options& o) { o.schwarz_krylov_tolerance = 1; }, "schwarz_krylov_tolerance");
  expect_error([](Options& o) { o.max_schwarz_krylov_iterations = 0; }, "max_schwarz_krylov_iterations");
  // Thread budgets are bounded before the pool starts (2^28 threads used to crash inside TBB).
  expect_error([](Options& o) { o.num_threads = -1; }, "num_threads");
  expect_error([](Options& o) { o.num_threads = 1 << 28; }, "num_threads");
  expect_error([](Options& o) { o.num_threads = kernels::MaxThreads() + 1; }, "num_threads");
  Options all_cores;
  all_cores.num_threads = 0;
  EXPECT_TRUE(all_cores.IsValid(nullptr));
  std::string error;
  EXPECT_TRUE(Options().IsValid(&error));
  EXPECT_TRUE(error.empty());
}

TEST(Summary, ReportsNameTheOutcome) {
  TamsiSolver solver;
  Result result;
  solver.Solve(RandomProblem(50, 10, 2), &result);
  EXPECT_THAT(result.summary.BriefReport(), HasSubstr("success"));
  EXPECT_THAT(result.summary.FullReport(), HasSubstr("auto / umfpack"));
  EXPECT_THAT(result.summary.FullReport(), HasSubstr("primal_dual"));
  EXPECT_THAT(result.summary.FullReport(), HasSubstr("symmetric_preconditioner"));
  EXPECT_THAT(result.summary.FullReport(), HasSubstr("threads given/used"));
  // Every counter and phase time is in the report, under its own name.
  ForEachField(result.summary.counters, [&](const char* name, auto) {
    const std::string phase = std::string(name).substr(std::string(name).rfind("time_", 0) == 0 ? 5 : 0);
    EXPECT_THAT(result.summary.FullReport(), HasSubstr("    " + phase + " ")) << name;
  });
}

TEST(SolveCounters, AddUpFieldByField) {
  SolveCounters a, b;
  int k = 0;
  ForEachField(a, [&](const char*, auto& field) { field = ++k; });
  ForEachField(b, [&](const char*, auto& field) { field = 1000 * ++k; });
  const int n = k / 2;
  a += b;
  k = 0;
  ForEachField(a, [&](const char* name, auto field) {
    ++k;
    EXPECT_EQ(field, k + 1000 * (k + n)) << name;
  });
}

/// Each setting's enum reads back its own names (FromString after ToString), and refuses others naming them.
template <typename Enum>
void ExpectRoundTrip() {
  for (Enum value : AllValues(Enum{})) EXPECT_EQ(FromString<Enum>(ToString(value)), value) << ToString(value);
  try {
    FromString<Enum>("no-such-value");
    ADD_FAILURE() << "accepted a bad name";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown value 'no-such-value' (expected " + Spellings<Enum>() + ")"));
    EXPECT_THAT(e.what(), HasSubstr(ToString(AllValues(Enum{}).back())));
  }
}

TEST(Options, EnumNamesRoundTrip) {
  ExpectRoundTrip<LinearSolverType>();
  ExpectRoundTrip<Coupling>();
  ExpectRoundTrip<FrictionRegularization>();
  ExpectRoundTrip<LineSearch>();
  ExpectRoundTrip<NewtonSolve>();
  ExpectRoundTrip<FrictionNewton>();
  EXPECT_EQ(Spellings<NewtonSolve>(), "exact, reuse_factorization or symmetric_preconditioner");
  EXPECT_EQ(AllValues(Status{}).size(), 4u);
}

}  // namespace
}  // namespace tamsi

namespace tamsi {
namespace {

/// Three random problems side by side plus two contact-free velocities: five islands.
ContactProblem ThreeIslands() {
  const ContactProblem parts[3] = {testing::RandomProblem(40, 12, 31), testing::RandomProblem(25, 9, 32),
                                   testing::RandomProblem(60, 20, 33)};
  ContactProblem p;
  p.time_step = parts[0].time_step;
  int nv = 2, nc = 0;
  for (const ContactProblem& part : parts) {
    nv += part.num_velocities();
    nc += part.num_contacts();
  }
  std::vector<Eigen::Triplet<double, int>> M, Jn, Jt;
  p.p_star.resize(nv);
  p.v_guess = Eigen::VectorXd(nv);
  p.delta0.resize(nc);
  p.stiffness.resize(nc);
  p.dissipation.resize(nc);
  p.friction.resize(nc);
  int dof = 0, contact = 0;
  auto append = [](std::vector<Eigen::Triplet<double, int>>* out, const SparseMatrix& A, int row0, int col0) {
    for (int j = 0; j < A.outerSize(); ++j)
      for (SparseMatrix::InnerIterator it(A, j); it; ++it)
        out->emplace_back(row0 + it.row(), col0 + it.col(), it.value());
  };
  for (const ContactProblem& part : parts) {
    const int n = part.num_velocities(), m = part.num_contacts();
    append(&M, part.M, dof, dof);
    append(&Jn, part.Jn, contact, dof);
    append(&Jt, part.Jt, 2 * contact, dof);
    p.p_star.segment(dof, n) = part.p_star;
    p.v_guess->segment(dof, n) = *part.v_guess;
    p.delta0.segment(contact, m) = part.delta0;
    p.stiffness.segment(contact, m) = part.stiffness;
    p.dissipation.segment(contact, m) = part.dissipation;
    p.friction.segment(contact, m) = part.friction;
    dof += n;
    contact += m;
  }
  for (int j = dof; j < nv; ++j) {  // free velocities
    M.emplace_back(j, j, 2.0);
    p.p_star[j] = 0.1 * j;
    (*p.v_guess)[j] = 0.0;
  }
  p.M.resize(nv, nv);
  p.M.setFromTriplets(M.begin(), M.end());
  p.Jn.resize(nc, nv);
  p.Jn.setFromTriplets(Jn.begin(), Jn.end());
  p.Jt.resize(2 * nc, nv);
  p.Jt.setFromTriplets(Jt.begin(), Jt.end());
  return p;
}

TEST(TamsiSolverIslands, AgreeWithTheMonolithicSolve) {
  const ContactProblem problem = ThreeIslands();
  Options options;
  options.relative_tolerance = 1e-4;
  options.use_islands = false;
  TamsiSolver monolithic(options);
  options.use_islands = true;
  TamsiSolver islands(options);
  Result expected, actual;
  ASSERT_EQ(monolithic.Solve(problem, &expected), Status::kSuccess);
  ASSERT_EQ(islands.Solve(problem, &actual), Status::kSuccess);
  EXPECT_EQ(expected.summary.num_islands, 1);
  EXPECT_EQ(actual.summary.num_islands, 5);
  EXPECT_EQ(actual.summary.largest_island, 60);
  EXPECT_EQ(actual.summary.linear_solver_used, LinearSolverType::kUmfpack);
  EXPECT_LT((actual.v - expected.v).lpNorm<Eigen::Infinity>(), 1e-9);
  EXPECT_LT((actual.fn - expected.fn).lpNorm<Eigen::Infinity>(), 1e-6 * expected.fn.lpNorm<Eigen::Infinity>());
  // Free velocities: v = M⁻¹ p*.
  const int nv = problem.num_velocities();
  EXPECT_DOUBLE_EQ(actual.v[nv - 1], 0.1 * (nv - 1) / 2.0);
  // Each island stops when it converges: never more factorizations than the monolithic solve would need per island.
  EXPECT_LE(actual.summary.counters.numeric_factorizations, 5 * expected.summary.iterations);
}

TEST(TamsiSolverIslands, BitwiseIdenticalForAnyThreadCount) {
  const ContactProblem problem = ThreeIslands();
  Result reference;
  for (int threads : {1, 2, 4}) {
    Options options;
    options.num_threads = threads;
    TamsiSolver solver(options);
    Result result;
    ASSERT_EQ(solver.Solve(problem, &result), Status::kSuccess);
    if (threads == 1) {
      reference = result;
    } else {
      EXPECT_EQ(result.v, reference.v) << threads << " threads";
      EXPECT_EQ(result.fn, reference.fn) << threads << " threads";
      EXPECT_EQ(result.summary.iterations, reference.summary.iterations);
    }
  }
}

// Options::time_phases = false reads no clock: every phase time is exactly 0 s, and nothing else changes, bitwise,
// on islands factored densely, by UMFPACK, and preconditioned by Schwarz (time_phases = true times each of them).
TEST(TamsiSolver, UntimedSolvesReportZeroTimesAndTheSameResultsBitwise) {
  const ContactProblem problem = ThreeIslands();
  for (const bool schwarz : {false, true}) {
    Options options;
    if (schwarz) {
      options.schwarz_threshold = 30;
      options.cholesky_flops_per_velocity = 0;
      options.schwarz_part_bodies = 4;
    }
    Result timed, untimed;
    ASSERT_EQ(TamsiSolver(options).Solve(problem, &timed), Status::kSuccess);
    options.time_phases = false;
    ASSERT_EQ(TamsiSolver(options).Solve(problem, &untimed), Status::kSuccess);
    EXPECT_EQ(untimed.v, timed.v);
    EXPECT_EQ(untimed.fn, timed.fn);
    EXPECT_EQ(untimed.ft, timed.ft);
    EXPECT_EQ(untimed.summary.iterations, timed.summary.iterations);
    EXPECT_EQ(timed.summary.counters.schwarz_islands > 0, schwarz);
    ForEachCounter([&](const char* name, auto member) {
      const auto a = timed.summary.counters.*member, b = untimed.summary.counters.*member;
      if (std::string(name).rfind("time_", 0) == 0) {
        EXPECT_EQ(b, 0.0) << name;
      } else {
        EXPECT_EQ(b, a) << name;
      }
    });
    for (auto member : {&SolveCounters::time_total, &SolveCounters::time_numeric, &SolveCounters::time_solve,
                        &SolveCounters::time_line_search})
      EXPECT_GT(timed.summary.counters.*member, 0.0) << "schwarz " << schwarz;
  }
}

}  // namespace
}  // namespace tamsi

namespace tamsi {
namespace {

// Dropping a contact whose velocities are still coupled by another one leaves the Newton matrix pattern as it was,
// but the contact list changed: the contact structure must be rebuilt, while the islands' symbolic analyses, which
// depend on the pattern alone, are kept.
TEST(TamsiSolver, RebuildsTheContactStructureButKeepsTheAnalysesUnderTheSamePattern) {
  const ContactProblem one = testing::RandomProblem(30, 9, 41);
  ContactProblem two = one;
  // Contact 9 repeats contact 8's rows and parameters.
  using RowMajor = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;
  RowMajor Jn(10, 30), Jt(20, 30);
  Jn.topRows(9) = RowMajor(one.Jn);
  Jn.row(9) = RowMajor(one.Jn).row(8);
  Jt.topRows(18) = RowMajor(one.Jt);
  Jt.bottomRows(2) = RowMajor(one.Jt).middleRows(16, 2);
  two.Jn = Jn;
  two.Jt = Jt;
  for (Eigen::VectorXd* x : {&two.delta0, &two.stiffness, &two.dissipation, &two.friction}) {
    x->conservativeResize(10);
    (*x)[9] = (*x)[8];
  }
  TamsiSolver solver;
  Result a, b, fresh;
  ASSERT_EQ(solver.Solve(two, &a), Status::kSuccess);
  ASSERT_EQ(solver.Solve(one, &b), Status::kSuccess);
  EXPECT_FALSE(b.summary.structure_reused);
  EXPECT_EQ(b.fn.size(), 9);
  EXPECT_GT(a.summary.counters.symbolic_factorizations, 0);
  EXPECT_EQ(b.summary.counters.symbolic_factorizations, 0);
  TamsiSolver reference;
  ASSERT_EQ(reference.Solve(one, &fresh), Status::kSuccess);
  EXPECT_GT(fresh.summary.counters.symbolic_factorizations, 0);
  EXPECT_EQ(b.v, fresh.v);
}

}  // namespace
}  // namespace tamsi

namespace tamsi {
namespace {

// Factorization reuse (GMRES preconditioned by a kept factorization) meets the same tolerance as exact Newton.
TEST(TamsiSolverFactorizationReuse, AgreesWithExactNewtonAcrossSolvesOfOnePattern) {
  for (LinearSolverType backend : {LinearSolverType::kUmfpack, LinearSolverType::kKlu, LinearSolverType::kDense}) {
    ContactProblem problem = testing::RandomProblem(120, 40, 51);
    Options options;
    options.linear_solver = backend;
    options.relative_tolerance = 1e-4;
    TamsiSolver exact(options);
    options.newton_solve = NewtonSolve::kReuseFactorization;
    TamsiSolver reuse(options);
    int krylov_solves = 0, factorizations = 0, iterations = 0;
    for (int step = 0; step < 4; ++step) {  // like consecutive time steps: same pattern, drifting values
      problem.p_star *= 1.01;
      Result expected, actual;
      ASSERT_EQ(exact.Solve(problem, &expected), Status::kSuccess);
      ASSERT_EQ(reuse.Solve(problem, &actual), Status::kSuccess) << actual.summary.FullReport();
      EXPECT_LT((actual.v - expected.v).lpNorm<Eigen::Infinity>(), 1e-8) << ToString(backend) << " step " << step;
      krylov_solves += actual.summary.counters.krylov_solves;
      factorizations += actual.summary.counters.numeric_factorizations;
      iterations += actual.summary.iterations;
    }
    EXPECT_GT(krylov_solves, 0) << ToString(backend);
    EXPECT_LT(factorizations, iterations) << ToString(backend);
  }
}

}  // namespace
}  // namespace tamsi
