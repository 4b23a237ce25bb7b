// A steady-state solve (same sparsity pattern as the previous one, new values) allocates nothing in tamsi's code.
// Counted by interposing the C library's allocation functions in this test binary, so operator new (libstdc++ calls
// malloc), Eigen's allocations and those of SuiteSparse and the OpenMP runtime are all seen; each is booked by the
// library its caller lives in (dladdr). The dense backend, KLU (refactor with the kept pivots) and the default Newton
// solve (GMRES on tamsi's block Cholesky of the symmetric part, or on Schwarz) allocate nothing at all. SuiteSparse as
// Debian packages it does, inside its own calls (tested, so the counter is seen to see them): UMFPACK mallocs its
// numeric factor in every factorization; CHOLMOD's numeric factorization copies the permuted matrix
// (cholmod_ptranspose), allocates a dense workspace, each of its OpenMP regions has libgomp allocate a thread team
// (with one thread too), and OpenBLAS allocates inside the BLAS calls of its supernodes.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <tamsi/tamsi_solver.h>

#include <Eigen/Core>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "random_problem.h"

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
}

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};              // all, while counting
std::atomic<long> third_party_allocations{0};  // of those, made by SuiteSparse or the OpenMP runtime

bool IsThirdParty(const void* caller) {
  Dl_info info;
  if (!dladdr(caller, &info) || !info.dli_fname) return false;
  for (const char* library :
       {"libcholmod", "libumfpack", "libklu", "libamd", "libcolamd", "libsuitesparse", "libgomp", "blas", "lapack"})
    if (std::strstr(info.dli_fname, library)) return true;
  return false;
}

__attribute__((noinline)) void Count(const void* caller) {
  if (!counting.load(std::memory_order_relaxed)) return;
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (IsThirdParty(caller)) third_party_allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

extern "C" {
void* malloc(std::size_t size) {
  Count(__builtin_return_address(0));
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) {
  Count(__builtin_return_address(0));
  return __libc_calloc(count, size);
}
void* realloc(void* p, std::size_t size) {
  Count(__builtin_return_address(0));
  return __libc_realloc(p, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
  Count(__builtin_return_address(0));
  return __libc_memalign(alignment, size);
}
void* memalign(std::size_t alignment, std::size_t size) {
  Count(__builtin_return_address(0));
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** p, std::size_t alignment, std::size_t size) {
  Count(__builtin_return_address(0));
  *p = __libc_memalign(alignment, size);
  return *p ? 0 : 12;  // ENOMEM
}
}

namespace tamsi {
namespace {

// The instrument itself: operator new, the C library's malloc and Eigen's allocations inside the window are seen.
TEST(AllocationCounter, SeesNewMallocAndEigen) {
  allocations = 0;
  counting = true;
  auto* probe = new std::vector<double>(16);
  void* raw = std::malloc(64);
  Eigen::VectorXd eigen(100);
  counting = false;
  delete probe;
  std::free(raw);
  EXPECT_EQ(allocations.load(), 4);  // the vector object and its buffer, the malloc, Eigen's buffer
  EXPECT_EQ(third_party_allocations.load(), 0);
}

struct AllocationCase {
  const char* name;
  int nv, nc;
  Coupling coupling;
  LinearSolverType backend;
  NewtonSolve newton_solve;
  bool suitesparse_allocates;  // inside SuiteSparse's (and libgomp's) own calls: UMFPACK and CHOLMOD
  int constraints{0};          // bilateral constraint rows (ContactProblem::Jb)
  int schwarz_part_bodies{0};  // > 0: M of 6 × 6 bodies, every island preconditioned by Schwarz with these parts
  bool body_masses{false};     // M of 6 × 6 bodies (else one dense-patterned M, which CHOLMOD factors past 256)
};

/// A block-diagonal SPD mass matrix of nv / 6 bodies (the random contacts couple them into one island).
SparseMatrix BodiesMassMatrix(int nv, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<Eigen::Triplet<double, int>> t;
  for (int b = 0; b < nv / 6; ++b) {
    Eigen::Matrix<double, 6, 6> B = Eigen::Matrix<double, 6, 6>::NullaryExpr([&] { return unit(rng); });
    const Eigen::Matrix<double, 6, 6> block = B * B.transpose() + 2.0 * Eigen::Matrix<double, 6, 6>::Identity();
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) t.emplace_back(6 * b + i, 6 * b + j, block(i, j));
  }
  SparseMatrix M(nv, nv);
  M.setFromTriplets(t.begin(), t.end());
  M.makeCompressed();
  return M;
}

class SteadyStateAllocationTest : public ::testing::TestWithParam<AllocationCase> {};

TEST_P(SteadyStateAllocationTest, SolveWithAnUnchangedPatternAllocatesNothing) {
  const AllocationCase c = GetParam();
  ContactProblem problem = testing::RandomProblem(c.nv, c.nc, 7);
  if (c.schwarz_part_bodies > 0 || c.body_masses) problem.M = BodiesMassMatrix(c.nv, 9);
  if (c.constraints > 0) {
    std::mt19937 rng(8);
    problem.Jb = testing::RandomSparse(c.constraints, c.nv, 3, rng);
    problem.g0 = Eigen::VectorXd::Constant(c.constraints, 1e-3);
    problem.constraint_stiffness = Eigen::VectorXd::Constant(c.constraints, 1e4);
    problem.constraint_damping = Eigen::VectorXd::Constant(c.constraints, 10.0);
  }
  Options options;
  options.coupling = c.coupling;
  options.linear_solver = c.backend;
  options.newton_solve = c.newton_solve;
  if (c.schwarz_part_bodies > 0) {
    options.schwarz_threshold = 1;
    options.cholesky_flops_per_velocity = 0.0;
    options.schwarz_part_bodies = c.schwarz_part_bodies;
  }
  TamsiSolver solver(options);
  Result result;
  ASSERT_EQ(solver.Solve(problem, &result), Status::kSuccess);  // warm-up: structure, analyses, workspaces
  problem.p_star *= 1.1;                                        // new values, same pattern
  ASSERT_EQ(solver.Solve(problem, &result), Status::kSuccess);
  problem.p_star *= 0.95;
  problem.Jt.coeffs() *= 1.05;
  problem.g0 *= 0.5;  // new constraint values, same pattern
  (*problem.v_guess)[0] += 1e-3;
  allocations = 0;
  third_party_allocations = 0;
  counting = true;
  const Status status = solver.Solve(problem, &result);
  counting = false;
  ASSERT_EQ(status, Status::kSuccess);
  EXPECT_TRUE(result.summary.structure_reused);
  EXPECT_GT(result.summary.iterations, 1);
  EXPECT_EQ(allocations.load() - third_party_allocations.load(), 0) << c.name;  // none in tamsi, Eigen or libstdc++
  if (c.suitesparse_allocates) {
    EXPECT_GE(third_party_allocations.load(), result.summary.counters.numeric_factorizations) << c.name;
  } else {
    EXPECT_EQ(third_party_allocations.load(), 0) << c.name;
  }
  if (c.newton_solve == NewtonSolve::kSymmetricPreconditioner) {
    EXPECT_EQ(result.summary.counters.krylov_solves,
              result.summary.counters.newton_systems);  // GMRES solved every system
  }
  if (c.schwarz_part_bodies > 0) {
    EXPECT_GE(result.summary.counters.schwarz_subdomains, 120 / 6 / c.schwarz_part_bodies);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Backends, SteadyStateAllocationTest,
    ::testing::Values(
        AllocationCase{"dense", 24, 8, Coupling::kTwoWay, LinearSolverType::kAuto, NewtonSolve::kExact, false},
        AllocationCase{"klu", 120, 40, Coupling::kTwoWay, LinearSolverType::kKlu, NewtonSolve::kExact, false},
        AllocationCase{"cholmod", 120, 40, Coupling::kOneWay, LinearSolverType::kCholmod, NewtonSolve::kExact, true},
        // The default: GMRES on the block Cholesky of S, which allocates nothing either.
        AllocationCase{"symmetric", 120, 40, Coupling::kTwoWay, LinearSolverType::kAuto,
                       NewtonSolve::kSymmetricPreconditioner, false},
        // … with wide supernodes (random contacts among 100 bodies fill the factor), whose single-precision
        // triangular solves below the diagonal blocks run in Eigen's stack buffers.
        AllocationCase{"symmetric_wide_supernodes", 600, 240, Coupling::kTwoWay, LinearSolverType::kAuto,
                       NewtonSolve::kSymmetricPreconditioner, false, 0, 0, true},
        AllocationCase{"umfpack", 120, 40, Coupling::kTwoWay, LinearSolverType::kUmfpack, NewtonSolve::kExact, true},
        AllocationCase{"constrained", 24, 8, Coupling::kTwoWay, LinearSolverType::kAuto, NewtonSolve::kExact, false, 6},
        // Schwarz's subdomains are factored by tamsi's block Cholesky, which allocates nothing either: with small
        // supernodes, and with wide ones (random contacts among 100 bodies fill the factors of parts of 50 bodies).
        AllocationCase{"schwarz", 120, 40, Coupling::kTwoWay, LinearSolverType::kAuto,
                       NewtonSolve::kSymmetricPreconditioner, false, 0, 4},
        AllocationCase{"schwarz_wide_supernodes", 600, 240, Coupling::kTwoWay, LinearSolverType::kAuto,
                       NewtonSolve::kSymmetricPreconditioner, false, 0, 50}),
    [](const ::testing::TestParamInfo<AllocationCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tamsi
