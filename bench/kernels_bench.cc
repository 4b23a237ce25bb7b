/// @file
/// Benchmarks of the per-contact kernels on seeded synthetic problems: contact forces and Newton blocks
/// (CalcContactForces), Newton matrix assembly, the TALS limit and the contact Jacobian products. Arguments: the
/// number of contacts nc and the thread budget.

#include <benchmark/benchmark.h>
#include <tamsi/kernels/contact_jacobian.h>
#include <tamsi/kernels/contact_kernels.h>
#include <tamsi/kernels/newton_assembly.h>
#include <tamsi/kernels/parallel.h>
#include <tamsi/synthetic/synthetic_problems.h>

#include "thread_counts.h"

namespace tamsi {
namespace {

constexpr double kStictionTolerance = 1e-4;

/// Spheres sliding on a plane (one contact each: nc = N) or a sphere tower (a chain: nc = N), with the Jacobian
/// regrouped per contact and the contact velocities at v0.
struct KernelFixture {
  KernelFixture(int nc, bool chain) {
    synthetic::SyntheticOptions o;
    o.motion = synthetic::InitialMotion::kSliding;
    problem = chain ? synthetic::SphereStack(nc, 1, o).problem : synthetic::SpheresOnPlane(nc, 1, o).problem;
    J = kernels::ContactJacobian(problem.Jn, problem.Jt);
    // A velocity that puts some contacts in stiction and most sliding: v0 plus a small random perturbation.
    v = *problem.v0 + 1e-4 * Eigen::VectorXd::Random(problem.num_velocities());
    kernels::ThreadBudget serial(1);
    J.Multiply(serial, v, &vn, &vt);
    pi_frozen = problem.stiffness.cwiseProduct(problem.delta0);
  }
  void SetCounters(benchmark::State& state) const {
    state.counters["nv"] = problem.num_velocities();
    state.counters["nc"] = problem.num_contacts();
    state.counters["contacts/s"] =
        benchmark::Counter(static_cast<double>(problem.num_contacts()), benchmark::Counter::kIsIterationInvariantRate);
  }
  ContactProblem problem;
  kernels::ContactJacobian J;
  Eigen::VectorXd v, vn, vt, pi_frozen;
};

void BM_ContactForces(benchmark::State& state) {
  const KernelFixture f(static_cast<int>(state.range(0)), false);
  const kernels::ThreadBudget budget(static_cast<int>(state.range(1)));
  const kernels::ContactModel model{f.problem.time_step, kStictionTolerance, FrictionRegularization::kLinear, true};
  Eigen::VectorXd pi, ft, blocks;
  pi.resize(f.problem.num_contacts());
  ft.resize(2 * f.problem.num_contacts());
  blocks.resize(9 * f.problem.num_contacts());
  for (auto _ : state) {
    kernels::CalcContactForces(budget, model, f.problem.stiffness, f.problem.dissipation, f.problem.friction,
                               f.problem.delta0, f.pi_frozen, f.vn, f.vt, &pi, &ft, &blocks);
    benchmark::DoNotOptimize(blocks.data());
  }
  f.SetCounters(state);
}

/// A alone (one-way coupling, exact solves), or with its symmetric part in the same pass (`symmetric` = 1: two-way
/// coupling's default NewtonSolve::kSymmetricPreconditioner).
void BM_NewtonMatrixAssembly(benchmark::State& state) {
  const KernelFixture f(static_cast<int>(state.range(0)), true);
  const kernels::ThreadBudget budget(static_cast<int>(state.range(1)));
  const kernels::ContactModel model{f.problem.time_step, kStictionTolerance, FrictionRegularization::kLinear, true};
  Eigen::VectorXd pi, ft, blocks;
  kernels::CalcContactForces(budget, model, f.problem.stiffness, f.problem.dissipation, f.problem.friction,
                             f.problem.delta0, f.pi_frozen, f.vn, f.vt, &pi, &ft, &blocks);
  kernels::NewtonMatrixPattern pattern(budget, f.problem.M, f.J);
  const bool symmetric = state.range(2) != 0;
  std::vector<double> values(pattern.nnz()), symmetric_values(symmetric ? pattern.nnz() : 0);
  for (auto _ : state) {
    pattern.Assemble(budget, f.problem.M, f.J, f.problem.time_step, blocks, values.data(),
                     symmetric ? symmetric_values.data() : nullptr);
    benchmark::DoNotOptimize(values.data());
    benchmark::DoNotOptimize(symmetric_values.data());
  }
  f.SetCounters(state);
  state.counters["nnz"] = pattern.nnz();
}

/// Building the pattern (once per contact structure).
void BM_NewtonMatrixPattern(benchmark::State& state) {
  const KernelFixture f(static_cast<int>(state.range(0)), true);
  const kernels::ThreadBudget budget(static_cast<int>(state.range(1)));
  long long nnz = 0;
  for (auto _ : state) {
    kernels::NewtonMatrixPattern pattern(budget, f.problem.M, f.J);
    nnz = pattern.nnz();
    benchmark::DoNotOptimize(nnz);
  }
  f.SetCounters(state);
  state.counters["nnz"] = static_cast<double>(nnz);
}

void BM_TalsLimit(benchmark::State& state) {
  const KernelFixture f(static_cast<int>(state.range(0)), false);
  const kernels::ThreadBudget budget(static_cast<int>(state.range(1)));
  // A Newton update that reverses every sliding velocity: many contacts cross the stiction disk.
  const Eigen::VectorXd dvt = -1.5 * f.vt + 1e-3 * Eigen::VectorXd::Random(f.vt.size());
  int limited = 0;
  for (auto _ : state) {
    const kernels::TalsLimit limit = kernels::CalcTalsLimit(budget, f.vt, dvt, kStictionTolerance, 1.0471975511965976);
    limited = limit.limited_contacts;
    benchmark::DoNotOptimize(limit.alpha);
  }
  f.SetCounters(state);
  state.counters["limited"] = limited;
}

void BM_ContactJacobianMultiply(benchmark::State& state) {
  const KernelFixture f(static_cast<int>(state.range(0)), true);
  const kernels::ThreadBudget budget(static_cast<int>(state.range(1)));
  Eigen::VectorXd vn, vt;
  for (auto _ : state) {
    f.J.Multiply(budget, f.v, &vn, &vt);
    benchmark::DoNotOptimize(vt.data());
  }
  f.SetCounters(state);
  state.counters["nnz"] = static_cast<double>(f.problem.Jn.nonZeros() + f.problem.Jt.nonZeros());
}

void BM_ContactJacobianMultiplyTranspose(benchmark::State& state) {
  const KernelFixture f(static_cast<int>(state.range(0)), true);
  const kernels::ThreadBudget budget(static_cast<int>(state.range(1)));
  const Eigen::VectorXd fn = Eigen::VectorXd::Random(f.problem.num_contacts());
  const Eigen::VectorXd ft = Eigen::VectorXd::Random(2 * f.problem.num_contacts());
  Eigen::VectorXd tau;
  for (auto _ : state) {
    f.J.MultiplyTranspose(budget, fn, ft, &tau);
    benchmark::DoNotOptimize(tau.data());
  }
  f.SetCounters(state);
  state.counters["nnz"] = static_cast<double>(f.problem.Jn.nonZeros() + f.problem.Jt.nonZeros());
}

/// The same products with Eigen's sparse matrices, for comparison (serial).
void BM_EigenSparseJacobianMultiply(benchmark::State& state) {
  const KernelFixture f(static_cast<int>(state.range(0)), true);
  Eigen::VectorXd vn, vt;
  for (auto _ : state) {
    vn.noalias() = f.problem.Jn * f.v;
    vt.noalias() = f.problem.Jt * f.v;
    benchmark::DoNotOptimize(vt.data());
  }
  f.SetCounters(state);
  state.counters["nnz"] = static_cast<double>(f.problem.Jn.nonZeros() + f.problem.Jt.nonZeros());
}

/// nc = 1,000 … 100,000 at 1 and 2 threads; at nc = 100,000 also 4, 8, … up to the hardware threads.
template <typename Add>
void ForContactsAndThreads(Add add) {
  for (int nc : {1000, 10000, 100000})
    for (int threads : bench::ThreadCounts())
      if (threads <= 2 || nc == 100000) add(nc, threads);
}

void ContactsAndThreads(benchmark::internal::Benchmark* b) {
  b->ArgNames({"nc", "threads"});
  ForContactsAndThreads([b](int nc, int threads) { b->Args({nc, threads}); });
}

/// ContactsAndThreads, each without (0) and with (1) the symmetric part.
void ContactsThreadsAndSymmetric(benchmark::internal::Benchmark* b) {
  b->ArgNames({"nc", "threads", "symmetric"});
  ForContactsAndThreads([b](int nc, int threads) {
    for (int symmetric : {0, 1}) b->Args({nc, threads, symmetric});
  });
}

BENCHMARK(BM_ContactForces)->Apply(ContactsAndThreads);
BENCHMARK(BM_NewtonMatrixAssembly)->Apply(ContactsThreadsAndSymmetric);
BENCHMARK(BM_NewtonMatrixPattern)
    ->ArgNames({"nc", "threads"})
    ->ArgsProduct({{1000, 10000, 100000}, {1, 2}})
    ->UseRealTime();
BENCHMARK(BM_TalsLimit)->Apply(ContactsAndThreads);
BENCHMARK(BM_ContactJacobianMultiply)->Apply(ContactsAndThreads);
BENCHMARK(BM_ContactJacobianMultiplyTranspose)->Apply(ContactsAndThreads);
BENCHMARK(BM_EigenSparseJacobianMultiply)->ArgNames({"nc"})->Arg(1000)->Arg(10000)->Arg(100000);

}  // namespace
}  // namespace tamsi
