/// @file
/// Whole TAMSI solves of one time step on the seeded synthetic families, over the number of bodies N, the thread
/// budget and the coupling (two-way eq. 21–23 with UMFPACK, one-way eq. 12–17 with CHOLMOD; kAuto picks them above
/// Options::dense_threshold), plus the dense oracle for the sparse/dense ratio.
///
/// One TamsiSolver is reused across the benchmark's iterations, as a simulator reuses it across time steps: the
/// symbolic analysis is done in the first iteration only, so the times are steady-state steps (counter "symbolic"
/// is the number of analyses in the last iteration: 0 when reused).

#include <benchmark/benchmark.h>
#include <tamsi/problem_io.h>
#include <tamsi/synthetic/synthetic_problems.h>
#include <tamsi/tamsi_solver.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "thread_counts.h"

namespace tamsi {
namespace {

using Generator = synthetic::SyntheticProblem (*)(int, std::uint64_t, const synthetic::SyntheticOptions&);

/// Arguments: N, threads, one-way (0/1); `solver_options` gives the rest (line search, safeguard, cap). Counters: nv,
/// nc, nnz (Newton matrix), iterations, secant (iterations with the secant safeguard), converged (1 when the solve
/// succeeded: a step that hits the iteration cap is timed too, and says so).
void RunSolve(benchmark::State& state, Generator generate, synthetic::SyntheticOptions options,
              LinearSolverType backend, Options solver_options = Options()) {
  const int n = static_cast<int>(state.range(0));
  const ContactProblem problem = generate(n, 1, options).problem;
  solver_options.num_threads = static_cast<int>(state.range(1));
  solver_options.coupling = state.range(2) ? Coupling::kOneWay : Coupling::kTwoWay;
  solver_options.linear_solver = backend;
  TamsiSolver solver(solver_options);
  Result result;
  for (auto _ : state) {
    solver.Solve(problem, &result);
    benchmark::DoNotOptimize(result.v.data());
  }
  const Summary& s = result.summary;
  state.counters["nv"] = s.num_velocities;
  state.counters["nc"] = s.num_contacts;
  state.counters["nnz"] = static_cast<double>(s.newton_matrix_nnz);
  state.counters["iterations"] = s.iterations;
  state.counters["secant"] = static_cast<double>(s.counters.secant_iterations);
  state.counters["converged"] = s.status == Status::kSuccess;
  state.counters["symbolic"] = static_cast<double>(s.counters.symbolic_factorizations);
  state.counters["factorizations"] = static_cast<double>(s.counters.numeric_factorizations);
  state.counters["krylov"] = static_cast<double>(s.counters.krylov_iterations);
  state.counters["ms_numeric"] = 1e3 * s.counters.time_numeric;
  state.counters["ms_assembly"] = 1e3 * s.counters.time_assembly;
  state.SetLabel(std::string(ToString(s.linear_solver_used)) + " " + ToString(s.status));
}

synthetic::SyntheticOptions Motion(synthetic::InitialMotion motion, int tower_height = 0) {
  synthetic::SyntheticOptions o;
  o.motion = motion;
  o.tower_height = tower_height;
  return o;
}

void BM_TamsiSolveSpheresResting(benchmark::State& state) {
  RunSolve(state, &synthetic::SpheresOnPlane, Motion(synthetic::InitialMotion::kResting), LinearSolverType::kAuto);
}
void BM_TamsiSolveSpheresSliding(benchmark::State& state) {
  RunSolve(state, &synthetic::SpheresOnPlane, Motion(synthetic::InitialMotion::kSliding), LinearSolverType::kAuto);
}
/// One tower of N resting spheres: a chain of N contacts, block-tridiagonal Newton matrix.
void BM_TamsiSolveStack(benchmark::State& state) {
  RunSolve(state, &synthetic::SphereStack, Motion(synthetic::InitialMotion::kResting), LinearSolverType::kAuto);
}
/// Towers of 10 spheres sliding over each other: N/10 independent chains.
void BM_TamsiSolveStackSliding(benchmark::State& state) {
  RunSolve(state, &synthetic::SphereStack, Motion(synthetic::InitialMotion::kSliding, 10), LinearSolverType::kAuto);
}
/// One tower of N spheres sliding over each other: one island of N coupled stick–slip transitions, where plain TALS
/// is expected to struggle (DESIGN.md: convergence where a dense TAMSI with plain TALS fails, from ~200 bodies).
/// Fourth argument line_search (0: LineSearch::kExact, 1: the paper's LineSearch::kTals); fifth, iteration (2: the
/// default primal–dual friction Newton; 1: the paper's eq. 16 tangent with the secant safeguard; 0: the paper's
/// iteration alone, capped at 500 iterations instead of 100 so that its iteration count is measured rather than cut
/// off).
void BM_TamsiSolveTowerSliding(benchmark::State& state) {
  Options options;
  options.line_search = state.range(3) ? LineSearch::kTals : LineSearch::kExact;
  if (state.range(4) < 2) options.friction_newton = FrictionNewton::kTangent;
  options.secant_safeguard = state.range(4) == 1;
  if (state.range(4) == 0) options.max_iterations = 500;
  RunSolve(state, &synthetic::SphereStack, Motion(synthetic::InitialMotion::kSliding), LinearSolverType::kAuto,
           options);
}
void BM_TamsiSolveBoxesSliding(benchmark::State& state) {
  RunSolve(state, &synthetic::BoxGrid, Motion(synthetic::InitialMotion::kSliding), LinearSolverType::kAuto);
}
/// Options::newton_solve on one tower of N spheres (one island), two-way. Fourth argument tower (0: resting, a
/// chain; 1: sliding, N coupled stick–slip transitions); fifth, newton_solve (0: kExact, 1: kReuseFactorization,
/// 2: kSymmetricPreconditioner). Counters add factorizations (numeric) and krylov (GMRES iterations).
void BM_TamsiSolveNewtonSolve(benchmark::State& state) {
  Options options;
  options.newton_solve = static_cast<NewtonSolve>(state.range(4));
  const auto motion = state.range(3) ? synthetic::InitialMotion::kSliding : synthetic::InitialMotion::kResting;
  RunSolve(state, &synthetic::SphereStack, Motion(motion), LinearSolverType::kAuto, options);
}
/// The dense oracle (LU two-way, LDLᵀ one-way) on the single tower, for the sparse/dense ratio.
void BM_TamsiSolveStackDense(benchmark::State& state) {
  RunSolve(state, &synthetic::SphereStack, Motion(synthetic::InitialMotion::kResting), LinearSolverType::kDense);
}
void BM_TamsiSolveSpheresSlidingDense(benchmark::State& state) {
  RunSolve(state, &synthetic::SpheresOnPlane, Motion(synthetic::InitialMotion::kSliding), LinearSolverType::kDense);
}

/// N = 10 … 10,000 (400: nv = 2,400 as the largest dense case) with two-way and one-way at 1 thread, and two-way at 2
/// threads; at N = 10,000 also two-way at 4, 8, … up to the hardware threads.
void Sizes(benchmark::internal::Benchmark* b, int max_n) {
  b->ArgNames({"N", "threads", "oneway"})->Unit(benchmark::kMillisecond);
  for (int n : {10, 30, 100, 300, 400, 1000, 3000, 10000}) {
    if (n > max_n) break;
    b->Args({n, 1, 1});
    for (int threads : bench::ThreadCounts())
      if (threads <= 2 || n == 10000) b->Args({n, threads, 0});
  }
}
void LargeSizes(benchmark::internal::Benchmark* b) { Sizes(b, 10000); }
void SlidingStackSizes(benchmark::internal::Benchmark* b) { Sizes(b, 1000); }
/// The sliding tower at 1 thread: N = 10 … 1,000, two-way and one-way primal–dual; two-way tangent with the safeguard
/// and without it (the paper's iteration), exact line search and TALS; primal–dual and tangent with the safeguard at
/// N = 3,000 and 10,000.
void TowerSlidingSizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"N", "threads", "oneway", "line_search", "iteration"})->Unit(benchmark::kMillisecond);
  for (int n : {10, 30, 100, 300, 400, 1000}) {
    b->Args({n, 1, 0, 0, 2});
    b->Args({n, 1, 1, 0, 2});
    for (int line_search : {0, 1})
      for (int iteration : {1, 0}) b->Args({n, 1, 0, line_search, iteration});
  }
  for (int n : {3000, 10000})
    for (int iteration : {2, 1}) b->Args({n, 1, 0, 0, iteration});
}
void NewtonSolveSizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"N", "threads", "oneway", "tower", "newton_solve"})->Unit(benchmark::kMillisecond);
  for (int n : {100, 400, 1000, 10000})  // 400: nv = 2,400, the largest dense oracle case
    for (int tower : {0, 1})
      for (int mode : {0, 1, 2}) b->Args({n, 1, 0, tower, mode});
}
/// nv = 6N up to 2,400.
void DenseSizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"N", "threads", "oneway"})->Unit(benchmark::kMillisecond);
  for (int n : {10, 30, 100, 200, 400}) {
    b->Args({n, 1, 0});
    b->Args({n, 1, 1});
  }
}

/// `problem` without its last contact: the same bodies, another pattern of Jn and Jt.
ContactProblem WithoutLastContact(const ContactProblem& problem) {
  ContactProblem other = problem;
  const int nc = problem.num_contacts() - 1;
  other.Jn = problem.Jn.topRows(nc);
  other.Jt = problem.Jt.topRows(2 * nc);
  for (Eigen::VectorXd* x : {&other.delta0, &other.stiffness, &other.dissipation, &other.friction})
    x->conservativeResize(nc);
  if (other.w_guess) other.w_guess->conservativeResize(2 * nc);  // the carried duals of the contacts kept
  return other;
}

/// The dumped step at $TAMSI_DUMPED_PROBLEM (`tamsi run --dump-problems`), with the default options over the thread
/// budgets (and, with schwarz_all = 1, every island preconditioned by Schwarz: schwarz_threshold 1,
/// cholesky_flops_per_velocity 0; part_bodies > 0: Options::schwarz_part_bodies), the structure kept across iterations
/// as in a simulator's steady state. cold = 1: a new solver per iteration, so the structure, the symbolic analyses and
/// the first touch of every buffer are timed too, as in a simulation's first step; cold = 2: one solver that solves,
/// untimed, the step without its last contact before each timed solve, so the structure and the analyses are rebuilt in
/// buffers already in use, as in a simulation step whose contacts changed. The label ends with an FNV-1a hash of v's
/// bytes: the same hash for every thread count is the bitwise determinism the solver promises. Skipped when the
/// variable is unset.
void BM_TamsiSolveDumpedProblem(benchmark::State& state) {
  const char* path = std::getenv("TAMSI_DUMPED_PROBLEM");
  if (path == nullptr) {
    state.SkipWithError("set TAMSI_DUMPED_PROBLEM to a dumped problem (tamsi run --dump-problems)");
    return;
  }
  const ContactProblem problem = ReadProblem(path);
  Options options;
  options.num_threads = static_cast<int>(state.range(0));
  if (state.range(1)) {
    options.schwarz_threshold = 1;
    options.cholesky_flops_per_velocity = 0.0;
  }
  if (state.range(2)) options.schwarz_part_bodies = static_cast<int>(state.range(2));
  Result result;
  if (state.range(3) == 1) {
    for (auto _ : state) {
      TamsiSolver(options).Solve(problem, &result);
      benchmark::DoNotOptimize(result.v.data());
    }
  } else if (state.range(3) == 2) {
    const ContactProblem other = WithoutLastContact(problem);
    TamsiSolver solver(options);
    Result other_result;
    for (auto _ : state) {
      state.PauseTiming();
      solver.Solve(other, &other_result);
      state.ResumeTiming();
      solver.Solve(problem, &result);
      benchmark::DoNotOptimize(result.v.data());
    }
  } else {
    TamsiSolver solver(options);
    solver.Solve(problem, &result);  // builds the structure and the symbolic analyses: not timed
    for (auto _ : state) {
      solver.Solve(problem, &result);
      benchmark::DoNotOptimize(result.v.data());
    }
  }
  const Summary& s = result.summary;
  std::uint64_t hash = 14695981039346656037ull;
  for (Eigen::Index i = 0; i < result.v.size(); ++i) {
    std::uint64_t bits;
    std::memcpy(&bits, &result.v[i], sizeof bits);
    hash = (hash ^ bits) * 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  state.counters["nv"] = s.num_velocities;
  state.counters["iterations"] = s.iterations;
  ForEachField(s.counters, [&](const char* name, const auto& value) {
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, double>)
      state.counters[std::string("ms_") + PhaseName(name)] = 1e3 * value;
    else
      state.counters[name] = static_cast<double>(value);
  });
  state.SetLabel(std::string(ToString(s.status)) + " v:" + hex);
}
void DumpedProblemThreads(benchmark::internal::Benchmark* b) {
  b->ArgNames({"threads", "schwarz_all", "part_bodies", "cold"})->Unit(benchmark::kMillisecond)->UseRealTime();
  for (int cold : {0, 1, 2})
    for (int schwarz_all : {0, 1})
      for (int t : bench::ThreadCounts()) b->Args({t, schwarz_all, 0, cold});
  for (int part_bodies : {32, 64, 128, 256})
    for (int t : bench::ThreadCounts()) b->Args({t, 1, part_bodies, 0});
}

BENCHMARK(BM_TamsiSolveSpheresResting)->Apply(LargeSizes);
BENCHMARK(BM_TamsiSolveSpheresSliding)->Apply(LargeSizes);
BENCHMARK(BM_TamsiSolveStack)->Apply(LargeSizes);
BENCHMARK(BM_TamsiSolveStackSliding)->Apply(SlidingStackSizes);
BENCHMARK(BM_TamsiSolveTowerSliding)->Apply(TowerSlidingSizes);
BENCHMARK(BM_TamsiSolveBoxesSliding)->Apply(LargeSizes);
BENCHMARK(BM_TamsiSolveNewtonSolve)->Apply(NewtonSolveSizes);
BENCHMARK(BM_TamsiSolveStackDense)->Apply(DenseSizes);
BENCHMARK(BM_TamsiSolveSpheresSlidingDense)->Apply(DenseSizes);
BENCHMARK(BM_TamsiSolveDumpedProblem)->Apply(DumpedProblemThreads);

}  // namespace
}  // namespace tamsi
