#include <tamsi/kernels/contact_kernels.h>
#include <tamsi/kernels/parallel.h>
#include <tamsi/newton_system.h>
#include <tamsi/tamsi_solver.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "islands.h"
#include "krylov.h"
#include "line_search.h"
#include "linear_solver.h"

namespace tamsi {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

/// Worst outcome first: a non-finite value, then a failed factorization, then the iteration cap.
int Severity(Status status) {
  switch (status) {
    case Status::kNonFiniteValues:
      return 3;
    case Status::kLinearSolverFailed:
      return 2;
    case Status::kMaxIterationsReached:
      return 1;
    case Status::kSuccess:
      return 0;
  }
  return 0;
}

/// Resets `s` for a new solve, keeping the capacity of its history vectors (reserved for `max_iterations`), so that
/// a steady-state solve allocates nothing.
void ResetSummary(int max_iterations, Summary* s) {
  auto keep = [max_iterations](auto* from, auto* to) {
    from->clear();
    from->reserve(static_cast<size_t>(max_iterations));
    *to = std::move(*from);
  };
  Summary fresh;
  keep(&s->vt_residual, &fresh.vt_residual);
  keep(&s->vn_residual, &fresh.vn_residual);
  keep(&s->alpha, &fresh.alpha);
  keep(&s->tals_limited_contacts, &fresh.tals_limited_contacts);
  keep(&s->line_search_evaluations, &fresh.line_search_evaluations);
  keep(&s->tals_fallbacks, &fresh.tals_fallbacks);
  keep(&s->secant_islands, &fresh.secant_islands);
  s->message.clear();
  fresh.message = std::move(s->message);
  *s = std::move(fresh);
}

}  // namespace

/// Newton state of one island. Islands are independent: each has its own factorization, α and convergence test.
struct IslandSolver {
  std::unique_ptr<internal::LinearSolver> linear_solver;
  LinearSolverType type{LinearSolverType::kDense};
  std::unique_ptr<internal::LinearSolver> symmetric_solver;  // CHOLMOD on M + h(W_nn + W_tt), the preconditioner
  bool symmetric_analyzed{false};
  Eigen::VectorXd symmetric_values;
  bool analyzed{false};
  int analyses_now{0};        // symbolic analyses in this iteration
  bool factorized{false};     // holds a numeric factorization (of this or an earlier matrix of the pattern)
  int factorizations_now{0};  // numeric factorizations in this iteration
  bool refactor{false};       // the kept factorization no longer preconditions well
  int krylov_iterations{0};   // in this iteration
  bool krylov_solved{false};  // this iteration's Newton system was solved by GMRES
  bool done{false};
  /// Secant safeguard phase (Options::secant_safeguard): Newton until a cut step, secant, then Newton to the end.
  enum class Phase { kNewton, kSecant, kFinalNewton } phase{Phase::kNewton};
  Status status{Status::kMaxIterationsReached};
  std::string message;
  Eigen::VectorXd values, rhs, dv;
  // This iteration's record.
  double vt_residual{0}, vn_residual{0}, alpha{1};
  int limited{0};
  int line_search_evaluations{0};
  bool tals_fallback{false};
  double time_symbolic{0}, time_numeric{0}, time_solve{0}, time_line_search{0};
};

struct TamsiSolver::Impl {
  explicit Impl(int num_threads) : budget(num_threads) {}
  kernels::ThreadBudget budget;
  // The Newton system, its islands and their solvers (with symbolic analyses), kept while the pattern holds.
  std::unique_ptr<NewtonSystem> system;
  internal::IslandPartition partition;
  std::vector<IslandSolver> islands;
  Eigen::VectorXd v, vt_first, dv, dvn, dvt, symmetric_values;
  std::vector<int> active;           // islands still iterating
  std::vector<std::uint8_t> secant;  // per contact: secant friction block (its island is in the secant phase)
};

TamsiSolver::TamsiSolver(const Options& options) { set_options(options); }
TamsiSolver::~TamsiSolver() = default;
TamsiSolver::TamsiSolver(TamsiSolver&&) noexcept = default;
TamsiSolver& TamsiSolver::operator=(TamsiSolver&&) noexcept = default;

void TamsiSolver::set_options(const Options& options) {
  std::string error;
  if (!options.IsValid(&error)) throw std::invalid_argument(error);
  const bool same_threads = impl_ && options.num_threads == options_.num_threads;
  options_ = options;
  if (!same_threads) impl_ = std::make_unique<Impl>(options.num_threads);
  impl_->system.reset();  // forget the structure and symbolic analyses: the scheme or backend may have changed
  impl_->islands.clear();
}

Status TamsiSolver::Solve(const ContactProblem& problem, Result* result) {
  if (result == nullptr) throw std::invalid_argument("TamsiSolver::Solve: result must not be null");
  problem.Validate();
  const Clock::time_point start = Clock::now();
  Impl& w = *impl_;
  const Options& o = options_;
  const int nv = problem.num_velocities();
  const int nc = problem.num_contacts();
  const bool two_way = o.coupling == Coupling::kTwoWay;

  Summary& s = result->summary;
  ResetSummary(o.max_iterations, &s);
  s.num_velocities = nv;
  s.num_contacts = nc;
  s.coupling = o.coupling;
  s.line_search = o.line_search;
  s.newton_solve = o.newton_solve;
  s.num_threads_given = o.num_threads;
  s.num_threads_used = w.budget.num_threads();
  s.linear_solver_given = o.linear_solver;

  // Structure: per-contact Jacobian blocks, the Newton matrix pattern and its islands. Islands, their backends and
  // symbolic analyses are kept while the pattern holds, across iterations and across solves.
  Clock::time_point t = Clock::now();
  s.structure_reused = w.system && w.system->Reset(problem);
  if (!w.system) {
    w.system = std::make_unique<NewtonSystem>(problem, two_way, o.stiction_tolerance, o.regularization, w.budget);
  }
  NewtonSystem& system = *w.system;
  const kernels::NewtonMatrixPattern& pattern = system.pattern();
  const kernels::ContactJacobian& J = system.contact_jacobian();
  if (!s.structure_reused) {
    w.partition = internal::FindIslands(pattern, J, o.use_islands);
    w.islands.clear();
    w.islands.resize(w.partition.num_islands);
    for (int k = 0; k < w.partition.num_islands; ++k) {
      LinearSolverType type = o.linear_solver;
      if (type == LinearSolverType::kAuto) {
        type = w.partition.num_velocities(k) <= o.dense_threshold ? LinearSolverType::kDense
               : two_way                                          ? LinearSolverType::kUmfpack
                                                                  : LinearSolverType::kCholmod;
      }
      w.islands[k].type = type;
      w.islands[k].linear_solver = internal::MakeLinearSolver(type, /*symmetric=*/!two_way);
    }
  }
  const internal::IslandPartition& P = w.partition;
  s.newton_matrix_nnz = pattern.nnz();
  s.num_islands = P.num_islands;
  int largest = -1;
  for (int k = 0; k < P.num_islands; ++k)
    if (largest < 0 || P.num_velocities(k) > P.num_velocities(largest)) largest = k;
  s.largest_island = largest < 0 ? 0 : P.num_velocities(largest);
  s.linear_solver_used = largest < 0 ? LinearSolverType::kDense : w.islands[largest].type;
  s.time_assembly += Seconds(t);

  Eigen::VectorXd& v = w.v;
  auto finish = [&](Status status) {
    t = Clock::now();
    system.Evaluate(v);
    s.time_residual += Seconds(t);
    if (w.vt_first.size() == system.vt().size())
      for (int i = 0; i < nc; ++i)
        s.stick_slip_transitions += (w.vt_first.segment<2>(2 * i).norm() < o.stiction_tolerance) !=
                                    (system.vt().segment<2>(2 * i).norm() < o.stiction_tolerance);
    result->v = v;
    result->vn = system.vn();
    result->vt = system.vt();
    result->fn = system.fn();
    result->ft = system.ft();
    s.status = status;
    s.time_total = Seconds(start);
    return status;
  };

  // Initial iterate: the caller's guess, else the free motion v* = M⁻¹ p*.
  if (problem.v_guess) {
    v = *problem.v_guess;
  } else {
    v.setZero(nv);
  }
  w.vt_first.resize(0);
  if (nv == 0) return finish(Status::kSuccess);
  if (!problem.v_guess) {
    t = Clock::now();
    const SparseMatrix& M = system.mass_matrix();
    const internal::CscView view{nv, M.outerIndexPtr(), M.innerIndexPtr(), M.valuePtr()};
    auto mass_solver = internal::MakeLinearSolver(
        nv <= o.dense_threshold ? LinearSolverType::kDense : LinearSolverType::kCholmod, /*symmetric=*/true);
    const bool ok = mass_solver->Analyze(view, &s.message) && mass_solver->Factor(view, &s.message) &&
                    mass_solver->Solve(problem.p_star, &v, &s.message);
    s.time_numeric += Seconds(t);
    if (!ok) {
      s.message = "free-motion solve M v* = p*: " + s.message;
      v.setZero();
      return finish(Status::kLinearSolverFailed);
    }
  }

  for (IslandSolver& island : w.islands) {
    island.done = false;
    island.status = Status::kMaxIterationsReached;
    island.phase = IslandSolver::Phase::kNewton;
  }
  w.secant.assign(nc, 0);
  w.dv.resize(nv);
  w.dvn.resize(nc);
  w.dvt.resize(2 * nc);
  const double tolerance = o.relative_tolerance * o.stiction_tolerance;
  const bool symmetric_preconditioner = two_way && o.newton_solve == NewtonSolve::kSymmetricPreconditioner;

  // One Newton iteration of island k: factor its block, solve for Δv, limit with TALS, update v, test convergence.
  auto iterate = [&](int k) {
    IslandSolver& I = w.islands[k];
    const int n = P.num_velocities(k);
    const int* dofs = P.velocities.data() + P.velocity_ptr[k];
    const int* entries = P.value_source.data() + P.entry_ptr[k];
    const int num_entries = P.entry_ptr[k + 1] - P.entry_ptr[k];
    I.values.resize(num_entries);
    for (int e = 0; e < num_entries; ++e) I.values[e] = system.values()[entries[e]];
    const internal::CscView A{n, P.local_col_ptr.data() + P.column_ptr[k], P.local_row_index.data() + P.entry_ptr[k],
                              I.values.data()};
    auto fail = [&](Status status) {
      I.status = status;
      I.done = true;
    };
    Clock::time_point ti = Clock::now();
    I.rhs.resize(n);
    for (int a = 0; a < n; ++a) I.rhs[a] = -system.residual()[dofs[a]];
    I.factorizations_now = 0;
    I.krylov_iterations = 0;
    bool solved = false;
    // Symmetric preconditioner: a fresh Cholesky of M + h(W_nn + W_tt) on the island's pattern, then GMRES on the
    // full matrix. Not positive definite, or GMRES short of its tolerance: the exact factorization below.
    if (symmetric_preconditioner && I.type != LinearSolverType::kDense) {
      I.symmetric_values.resize(num_entries);
      for (int e = 0; e < num_entries; ++e) I.symmetric_values[e] = w.symmetric_values[entries[e]];
      const internal::CscView S{n, A.col_ptr, A.row_index, I.symmetric_values.data()};
      if (!I.symmetric_solver) I.symmetric_solver = internal::MakeLinearSolver(LinearSolverType::kCholmod, true);
      if (!I.symmetric_analyzed) {
        I.symmetric_analyzed = I.symmetric_solver->Analyze(S, nullptr);
        I.analyses_now += 1;
        I.time_symbolic += Seconds(ti);
        ti = Clock::now();
      }
      if (I.symmetric_analyzed) {
        const bool factored = I.symmetric_solver->Factor(S, nullptr);
        I.factorizations_now += 1;
        I.time_numeric += Seconds(ti);
        ti = Clock::now();
        if (factored) {
          solved = internal::SolveWithKrylov(A, *I.symmetric_solver, o.max_krylov_iterations, o.krylov_tolerance, I.rhs,
                                             &I.dv, &I.krylov_iterations);
        }
        I.time_solve = Seconds(ti);
      }
    }
    // Factorization reuse: GMRES on this iteration's matrix, preconditioned by the island's last factorization
    // (from an earlier iteration or an earlier solve of the same pattern). Refactor when GMRES does not meet its
    // tolerance within its budget, or took more than half of it last time.
    if (o.newton_solve == NewtonSolve::kReuseFactorization && I.factorized && !I.refactor) {
      solved = internal::SolveWithKrylov(A, *I.linear_solver, o.max_krylov_iterations, o.krylov_tolerance, I.rhs, &I.dv,
                                         &I.krylov_iterations);
      I.refactor = !solved || 2 * I.krylov_iterations > o.max_krylov_iterations;
      I.time_solve = Seconds(ti);
    }
    I.krylov_solved = solved;
    if (!solved) {
      ti = Clock::now();  // a GMRES attempt that fell short is already in time_solve
      if (!I.analyzed) {
        if (!I.linear_solver->Analyze(A, &I.message)) return fail(Status::kLinearSolverFailed);
        I.analyzed = true;
        I.analyses_now += 1;
        I.time_symbolic += Seconds(ti);
        ti = Clock::now();
      }
      I.factorized = I.linear_solver->Factor(A, &I.message);
      I.factorizations_now += 1;
      I.refactor = false;
      I.time_numeric += Seconds(ti);
      if (!I.factorized) return fail(Status::kLinearSolverFailed);
      ti = Clock::now();
      solved = I.linear_solver->Solve(I.rhs, &I.dv, &I.message);
      I.time_solve += Seconds(ti);
      if (!solved) return fail(Status::kLinearSolverFailed);
    }
    if (!I.dv.allFinite()) return fail(Status::kNonFiniteValues);
    // TALS (Sec. III-A) over the island's contacts: α = minᵢ αᵢ. The update is scattered into v below, after all
    // contact velocity changes are computed from the island's Δv.
    ti = Clock::now();
    // Islands own disjoint velocities and their contacts touch only those: sharing w.dv is race-free.
    for (int a = 0; a < n; ++a) w.dv[dofs[a]] = I.dv[a];
    I.alpha = 1.0;
    I.limited = 0;
    I.line_search_evaluations = 0;
    I.tals_fallback = false;
    I.vt_residual = I.vn_residual = 0.0;
    const int* contacts = P.contacts.data() + P.contact_ptr[k];
    const int num_contacts = P.contact_ptr[k + 1] - P.contact_ptr[k];
    for (int c = 0; c < num_contacts; ++c) {  // contact velocity changes, kept in w.dvn, w.dvt (race-free too)
      const int i = contacts[c];
      const Eigen::Vector3d dvc = J.MultiplyContact(i, w.dv);
      w.dvn[i] = dvc[0];
      w.dvt.segment<2>(2 * i) = dvc.tail<2>();
      I.vn_residual = std::max(I.vn_residual, std::abs(dvc[0]));
      I.vt_residual = std::max(I.vt_residual, dvc.tail<2>().norm());
    }
    auto tals = [&] {
      const kernels::TalsLimit limit = kernels::CalcTalsLimit(w.budget, system.vt(), w.dvt, o.stiction_tolerance,
                                                              o.max_angle, contacts, num_contacts);
      I.alpha = limit.alpha;
      I.limited = limit.limited_contacts;
    };
    if (o.line_search == LineSearch::kTals) tals();
    if (o.line_search == LineSearch::kExact) {
      const double exact = internal::ExactLineSearch(system, v, w.dv, dofs, n, contacts, num_contacts, w.dvn, w.dvt,
                                                     &I.line_search_evaluations);
      tals();
      I.tals_fallback = exact <= 0.0;
      I.alpha = std::max(I.alpha, exact);
    }
    for (int a = 0; a < n; ++a) v[dofs[a]] += I.alpha * I.dv[a];
    I.time_line_search = Seconds(ti);
    // Converged when the full Newton update of every contact is below the tolerance, tangential and normal alike.
    if (I.vt_residual <= tolerance && I.vn_residual <= tolerance) {
      I.status = Status::kSuccess;
      I.done = true;
    }
  };

  std::vector<int>& active = w.active;
  for (int iteration = 0; iteration < o.max_iterations; ++iteration) {
    active.clear();
    for (int k = 0; k < P.num_islands; ++k)
      if (!w.islands[k].done) active.push_back(k);
    if (active.empty()) break;

    // Secant safeguard: each island's phase from its previous iteration's α and ‖Δvt‖.
    int secant_islands = 0;
    if (o.secant_safeguard && iteration > 0) {
      const double exit = o.secant_exit_factor * o.stiction_tolerance;
      for (int k : active) {
        IslandSolver& I = w.islands[k];
        const IslandSolver::Phase before = I.phase;
        if (I.phase == IslandSolver::Phase::kNewton && I.alpha < o.secant_entry_alpha && I.vt_residual > exit)
          I.phase = IslandSolver::Phase::kSecant;
        else if (I.phase == IslandSolver::Phase::kSecant && I.vt_residual <= exit)
          I.phase = IslandSolver::Phase::kFinalNewton;
        if (I.phase != before) {
          const std::uint8_t flag = I.phase == IslandSolver::Phase::kSecant;
          for (int c = P.contact_ptr[k]; c < P.contact_ptr[k + 1]; ++c) w.secant[P.contacts[c]] = flag;
        }
        secant_islands += I.phase == IslandSolver::Phase::kSecant;
      }
    }

    // Residual r(v) = M v − p* − h (Jnᵀ π + Jtᵀ ft) (eq. 21; eq. 12 with π frozen) and the Newton matrix.
    t = Clock::now();
    system.Evaluate(v, secant_islands > 0 ? w.secant.data() : nullptr);
    if (iteration == 0) w.vt_first = system.vt();
    s.time_residual += Seconds(t);
    if (!system.residual().allFinite()) return finish(Status::kNonFiniteValues);
    t = Clock::now();
    system.Assemble(symmetric_preconditioner ? &w.symmetric_values : nullptr);
    s.time_assembly += Seconds(t);

    // Islands in parallel: each writes only its own velocities and its own IslandSolver.
    w.budget.For(static_cast<int>(active.size()), 1, [&](int begin, int end) {
      for (int a = begin; a < end; ++a) iterate(active[a]);
    });

    double vt_residual = 0.0, vn_residual = 0.0, alpha = 1.0;
    int limited = 0, evaluations = 0, fallbacks = 0;
    for (int k : active) {
      const IslandSolver& I = w.islands[k];
      vt_residual = std::max(vt_residual, I.vt_residual);
      vn_residual = std::max(vn_residual, I.vn_residual);
      alpha = std::min(alpha, I.alpha);
      limited += I.limited;
      evaluations += I.line_search_evaluations;
      fallbacks += I.tals_fallback;
      s.time_symbolic += I.time_symbolic;
      s.time_numeric += I.time_numeric;
      s.time_solve += I.time_solve;
      s.time_line_search += I.time_line_search;
      s.symbolic_factorizations += I.analyses_now;
      s.numeric_factorizations += I.factorizations_now;
      s.krylov_iterations += I.krylov_iterations;
      s.newton_systems += 1;
      s.krylov_solves += I.krylov_solved;
    }
    s.vt_residual.push_back(vt_residual);
    s.vn_residual.push_back(vn_residual);
    s.alpha.push_back(alpha);
    s.tals_limited_contacts.push_back(limited);
    s.line_search_evaluations.push_back(evaluations);
    s.tals_fallbacks.push_back(fallbacks);
    s.secant_islands.push_back(secant_islands);
    s.secant_iterations += secant_islands > 0;
    s.iterations = iteration + 1;
    for (int k : active) {
      IslandSolver& I = w.islands[k];
      I.analyses_now = 0;
      I.time_symbolic = I.time_numeric = I.time_solve = 0.0;
    }
  }

  Status status = Status::kSuccess;
  for (int k = 0; k < P.num_islands; ++k) {
    const IslandSolver& I = w.islands[k];
    if (Severity(I.status) > Severity(status)) {
      status = I.status;
      s.message = I.message.empty() ? "" : "island " + std::to_string(k) + ": " + I.message;
    }
  }
  return finish(status);
}

}  // namespace tamsi
