// A steady-state solve (same sparsity pattern as the previous one, new values) allocates nothing on the C++ heap.
// Counted by replacing the global operator new in this test binary. SuiteSparse allocates through malloc, which
// this does not see: UMFPACK mallocs its numeric factor on every factorization, whereas KLU (refactor) and CHOLMOD
// (numeric factorization into the existing factor) reuse their memory.
#include <gtest/gtest.h>
#include <tamsi/tamsi_solver.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "random_problem.h"

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace tamsi {
namespace {

// The instrument itself: an allocation inside the window is seen.
TEST(AllocationCounter, SeesHeapAllocations) {
  allocations = 0;
  counting = true;
  auto* probe = new std::vector<double>(16);
  counting = false;
  delete probe;
  EXPECT_EQ(allocations.load(), 2);  // the vector object and its buffer
}

struct AllocationCase {
  const char* name;
  int nv, nc;
  Coupling coupling;
  LinearSolverType backend;
};

class SteadyStateAllocationTest : public ::testing::TestWithParam<AllocationCase> {};

TEST_P(SteadyStateAllocationTest, SolveWithAnUnchangedPatternAllocatesNothing) {
  const AllocationCase c = GetParam();
  ContactProblem problem = testing::RandomProblem(c.nv, c.nc, 7);
  Options options;
  options.coupling = c.coupling;
  options.linear_solver = c.backend;
  TamsiSolver solver(options);
  Result result;
  ASSERT_EQ(solver.Solve(problem, &result), Status::kSuccess);  // warm-up: structure, analyses, workspaces
  problem.p_star *= 1.1;                                        // new values, same pattern
  ASSERT_EQ(solver.Solve(problem, &result), Status::kSuccess);
  problem.p_star *= 0.95;
  problem.Jt.coeffs() *= 1.05;
  (*problem.v_guess)[0] += 1e-3;
  allocations = 0;
  counting = true;
  const Status status = solver.Solve(problem, &result);
  counting = false;
  ASSERT_EQ(status, Status::kSuccess);
  EXPECT_TRUE(result.summary.structure_reused);
  EXPECT_GT(result.summary.iterations, 1);
  EXPECT_EQ(allocations.load(), 0) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Backends, SteadyStateAllocationTest,
    ::testing::Values(AllocationCase{"dense", 24, 8, Coupling::kTwoWay, LinearSolverType::kAuto},
                      AllocationCase{"klu", 120, 40, Coupling::kTwoWay, LinearSolverType::kKlu},
                      AllocationCase{"cholmod", 120, 40, Coupling::kOneWay, LinearSolverType::kCholmod},
                      AllocationCase{"umfpack", 120, 40, Coupling::kTwoWay, LinearSolverType::kUmfpack}),
    [](const ::testing::TestParamInfo<AllocationCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tamsi
