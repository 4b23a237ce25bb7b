#include <tamsi/kernels/contact_kernels.h>
#include <tamsi/kernels/parallel.h>
#include <tamsi/newton_system.h>
#include <tamsi/tamsi_solver.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "island_newton.h"
#include "islands.h"
#include "linear_solver.h"
#include "mass_factorization.h"
#include "phase_clock.h"

namespace tamsi {
namespace {

using internal::PhaseClock;

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

constexpr int kReservedIterations = 1000;

/// Resets `s` for a new solve, keeping the capacity of its history vectors (reserved for `max_iterations`, at most
/// kReservedIterations), so that a steady-state solve allocates nothing.
void ResetSummary(int max_iterations, Summary* s) {
  auto keep = [max_iterations](auto* from, auto* to) {
    from->clear();
    // Capped: a huge iteration cap must not allocate its whole history up front (histories past the cap grow).
    from->reserve(static_cast<size_t>(std::min(max_iterations, kReservedIterations)));
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

struct TamsiSolver::Impl {
  explicit Impl(int num_threads) : budget(num_threads) {}

  /// Per-contact Jacobian blocks, the Newton matrix pattern and its islands (with their backends and symbolic
  /// analyses): kept while the pattern holds, across iterations and across solves.
  void CalcStructure(const ContactProblem& problem, const Options& o, Summary* s);
  /// The Cholesky factorization of M (NewtonSystem::mass_matrix, the bilateral constraints folded in), analysed
  /// while its pattern holds. It proves M positive definite, which ContactProblem requires and Validate's O(nnz)
  /// checks (symmetry, positive diagonal) cannot see: throws std::invalid_argument naming M when it is not.
  void CalcMassFactorization(Summary* s);
  /// The first iterate: the caller's guess, else the free motion v* = M⁻¹ p* (with the bilateral constraints), from
  /// the factorization of M. False when that solve fails.
  bool CalcInitialIterate(const ContactProblem& problem, Summary* s);
  /// Starts every island in the phase Options::friction_newton asks for, flags its contacts' sliding blocks, and
  /// starts the duals at the caller's ContactProblem::w_guess, else at the first iterate: wᵢ = vtᵢ/max(v_s, ‖vtᵢ‖).
  void StartIslands(const ContactProblem& problem, const Options& o);
  /// Moves each active island's phase on (IslandNewton::UpdatePhase) and flags its contacts' sliding blocks; counts
  /// primal–dual fallbacks in `s`; returns the islands in the secant phase.
  int UpdatePhases(const Options& o, Summary* s);
  /// Appends one iteration's record, combined over the active islands, to `s`.
  void RecordIteration(int iteration, int secant_islands, Summary* s) const;
  /// The worst status over islands, and its message.
  Status CombineStatus(Summary* s) const;
  /// Fills `result` at the final iterate.
  Status Finish(Status status, PhaseClock::TimePoint start, const Options& o, Result* result);
  /// Seconds since the last lap (or the solve's start) to now, where the next lap starts: one clock read ends a
  /// phase and starts the next.
  double Lap() {
    const PhaseClock::TimePoint now = clock.Now();
    const double seconds = PhaseClock::Seconds(lap, now);
    lap = now;
    return seconds;
  }

  PhaseClock clock{true};  // Options::time_phases of the solve at hand
  PhaseClock::TimePoint lap;

  kernels::ThreadBudget budget;
  std::unique_ptr<NewtonSystem> system;
  internal::MassFactorization mass;  // M's factorization (CalcMassFactorization)
  bool mass_analyzed{false};
  internal::IslandPartition partition;
  internal::Components bodies;  // FindBodies of M (NewtonSystem::mass_matrix) and the contact Jacobian
  std::vector<internal::IslandNewton> islands;
  std::vector<int> islands_col_ptr, islands_row_index;  // the Newton matrix pattern `islands` were built for
  Eigen::VectorXd v, vt_first, dv, dvn, dvt, symmetric_values;
  bool has_vt_first{false};                          // vt_first holds this solve's first iterate's vt
  std::vector<int> active;                           // islands still iterating
  std::vector<kernels::SlidingBlock> sliding_block;  // per contact: as its island's phase asks
  Eigen::VectorXd dual;                              // per contact: the primal–dual w (2nc)
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
  impl_->mass_analyzed = false;
  impl_->islands.clear();
  impl_->islands_col_ptr.clear();
}

void TamsiSolver::Impl::CalcStructure(const ContactProblem& problem, const Options& o, Summary* s) {
  const bool two_way = o.coupling == Coupling::kTwoWay;
  s->structure_reused = system && system->Reset(problem);
  if (!system)
    system = std::make_unique<NewtonSystem>(problem, two_way, o.stiction_tolerance, o.regularization, budget);
  if (!s->structure_reused) {
    partition = internal::FindIslands(system->pattern(), system->contact_jacobian(), o.use_islands);
    SparseMatrix M = system->mass_matrix();  // a compressed copy: a caller's M may be uncompressed
    M.makeCompressed();
    bodies = internal::FindBodies(static_cast<int>(M.cols()), M.outerIndexPtr(), M.innerIndexPtr(),
                                  system->contact_jacobian());
  }
  // Other contacts often leave the Newton matrix's pattern as it was (the same pairs of bodies touch): the islands
  // and their backends' symbolic analyses depend on nothing else, so they are kept.
  const kernels::NewtonMatrixPattern& pattern = system->pattern();
  const bool keep_islands = s->structure_reused ||
                            (system->mass_pattern_kept() && static_cast<int>(islands.size()) == partition.num_islands &&
                             pattern.col_ptr() == islands_col_ptr && pattern.row_index() == islands_row_index);
  if (!keep_islands) {
    islands_col_ptr = pattern.col_ptr();
    islands_row_index = pattern.row_index();
    islands.clear();
    islands.reserve(partition.num_islands);
    for (int k = 0; k < partition.num_islands; ++k) {
      LinearSolverType type = o.linear_solver;
      if (type == LinearSolverType::kAuto) {
        type = partition.num_velocities(k) <= o.dense_threshold ? LinearSolverType::kDense
               : two_way                                        ? LinearSolverType::kUmfpack
                                                                : LinearSolverType::kCholmod;
      }
      // An island holding most of the velocities is factored with the whole budget; smaller ones run in parallel.
      const bool dominant = 2 * partition.num_velocities(k) > system->pattern().size();
      const bool schwarz = two_way && o.newton_solve == NewtonSolve::kSymmetricPreconditioner &&
                           type != LinearSolverType::kDense && partition.num_velocities(k) >= o.schwarz_threshold;
      islands.emplace_back(k, type, /*symmetric=*/!two_way, dominant ? budget.num_threads() : 1, schwarz);
    }
  }
  s->newton_matrix_nnz = system->pattern().nnz();
  s->num_islands = partition.num_islands;
  int largest = -1;
  for (int k = 0; k < partition.num_islands; ++k)
    if (largest < 0 || partition.num_velocities(k) > partition.num_velocities(largest)) largest = k;
  s->largest_island = largest < 0 ? 0 : partition.num_velocities(largest);
  s->linear_solver_used = largest < 0 ? LinearSolverType::kDense : islands[largest].type();
  s->counters.time_assembly += Lap();
}

void TamsiSolver::Impl::CalcMassFactorization(Summary* s) {
  const SparseMatrix& M = system->mass_matrix();
  std::string message;
  if (!mass_analyzed || !system->mass_pattern_kept()) {
    mass_analyzed = mass.Analyze(M, budget.num_threads(), &message);
    if (!mass_analyzed) throw std::invalid_argument("ContactProblem.M: " + message);
  }
  const bool ok = mass.Factor(M, &message);
  s->counters.time_numeric += Lap();
  if (!ok) throw std::invalid_argument("ContactProblem.M: must be positive definite (" + message + ")");
}

bool TamsiSolver::Impl::CalcInitialIterate(const ContactProblem& problem, Summary* s) {
  const int nv = problem.num_velocities();
  if (problem.v_guess) {
    v = *problem.v_guess;
    return true;
  }
  v.setZero(nv);
  if (nv == 0) return true;
  const bool ok = mass.Solve(system->p_star(), &v, &s->message);
  s->counters.time_numeric += Lap();
  if (!ok) {
    s->message = "free-motion solve M v* = p*: " + s->message;
    v.setZero();
  }
  return ok;
}

void TamsiSolver::Impl::StartIslands(const ContactProblem& problem, const Options& o) {
  // Every contact, those that touch no velocity (in no island, a zero row of Jn and Jt) included.
  const int nc = system->contact_jacobian().num_contacts();
  sliding_block.assign(nc, kernels::SlidingBlock{});
  for (int k = 0; k < partition.num_islands; ++k) {
    islands[k].Start(o);
    for (int c = partition.contact_ptr[k]; c < partition.contact_ptr[k + 1]; ++c)
      sliding_block[partition.contacts[c]] = islands[k].sliding_block();
  }
  system->contact_jacobian().Multiply(budget, v, &dvn, &dvt);  // also sizes dvn, dvt for the iterations
  if (problem.w_guess) {
    dual = *problem.w_guess;
    return;
  }
  dual.resize(2 * nc);
  for (int i = 0; i < nc; ++i)
    dual.segment<2>(2 * i) = kernels::PrimalDualAt(dvt.segment<2>(2 * i), o.stiction_tolerance);
}

int TamsiSolver::Impl::UpdatePhases(const Options& o, Summary* s) {
  int secant_islands = 0;
  for (int k : active) {
    internal::IslandNewton& island = islands[k];
    const internal::IslandNewton::Phase before = island.phase();
    if (island.UpdatePhase(o)) {
      s->counters.primal_dual_fallbacks += before == internal::IslandNewton::Phase::kPrimalDual;
      for (int c = partition.contact_ptr[k]; c < partition.contact_ptr[k + 1]; ++c)
        sliding_block[partition.contacts[c]] = island.sliding_block();
    }
    secant_islands += island.phase() == internal::IslandNewton::Phase::kSecant;
  }
  return secant_islands;
}

void TamsiSolver::Impl::RecordIteration(int iteration, int secant_islands, Summary* s) const {
  double vt_residual = 0.0, vn_residual = 0.0, alpha = 1.0;
  int limited = 0, evaluations = 0, fallbacks = 0;
  for (int k : active) {
    const internal::IslandIterationRecord& r = islands[k].record();
    vt_residual = std::max(vt_residual, r.vt_residual);
    vn_residual = std::max(vn_residual, r.vn_residual);
    alpha = std::min(alpha, r.alpha);
    limited += r.tals_limited_contacts;
    evaluations += r.line_search_evaluations;
    fallbacks += r.tals_fallback;
    s->counters += r.counters;
  }
  s->vt_residual.push_back(vt_residual);
  s->vn_residual.push_back(vn_residual);
  s->alpha.push_back(alpha);
  s->tals_limited_contacts.push_back(limited);
  s->line_search_evaluations.push_back(evaluations);
  s->tals_fallbacks.push_back(fallbacks);
  s->secant_islands.push_back(secant_islands);
  s->counters.secant_iterations += secant_islands > 0;
  s->iterations = iteration + 1;
}

Status TamsiSolver::Impl::CombineStatus(Summary* s) const {
  Status status = Status::kSuccess;
  for (int k = 0; k < partition.num_islands; ++k) {
    const internal::IslandNewton& island = islands[k];
    if (Severity(island.status()) > Severity(status)) {
      status = island.status();
      s->message = island.message().empty() ? "" : "island " + std::to_string(k) + ": " + island.message();
    }
  }
  return status;
}

Status TamsiSolver::Impl::Finish(Status status, PhaseClock::TimePoint start, const Options& o, Result* result) {
  Summary& s = result->summary;
  const PhaseClock::TimePoint t = clock.Now();
  system->EvaluateForces(v);
  s.counters.time_residual += clock.Since(t);
  if (has_vt_first)
    for (int i = 0; i < s.num_contacts; ++i)
      s.stick_slip_transitions += (vt_first.segment<2>(2 * i).norm() < o.stiction_tolerance) !=
                                  (system->vt().segment<2>(2 * i).norm() < o.stiction_tolerance);
  result->v = v;
  result->vn = system->vn();
  result->vt = system->vt();
  result->fn = system->fn();
  result->ft = system->ft();
  system->CalcConstraintForces(v, &result->constraint_forces, &s.max_constraint_violation);
  for (const internal::IslandNewton& island : islands) {
    s.counters.schwarz_islands += island.schwarz_subdomains() > 0;
    s.counters.schwarz_subdomains += island.schwarz_subdomains();
  }
  s.status = status;
  s.counters.time_total = clock.Since(start);
  return status;
}

Status TamsiSolver::Solve(const ContactProblem& problem, Result* result) {
  if (result == nullptr) throw std::invalid_argument("TamsiSolver::Solve: result must not be null");
  Impl& w = *impl_;
  const Options& o = options_;
  w.clock = PhaseClock(o.time_phases);
  const PhaseClock::TimePoint start = w.clock.Now();
  problem.Validate();
  w.lap = start;
  const int nc = problem.num_contacts();
  Summary& s = result->summary;
  ResetSummary(o.max_iterations, &s);
  s.num_velocities = problem.num_velocities();
  s.num_contacts = nc;
  s.num_constraints = problem.num_constraints();
  s.coupling = o.coupling;
  s.line_search = o.line_search;
  s.newton_solve = o.newton_solve;
  s.friction_newton = o.friction_newton;
  s.num_threads_given = o.num_threads;
  s.num_threads_used = w.budget.num_threads();
  s.linear_solver_given = o.linear_solver;

  w.CalcStructure(problem, o, &s);
  w.CalcMassFactorization(&s);
  w.has_vt_first = false;
  if (!w.CalcInitialIterate(problem, &s)) return w.Finish(Status::kLinearSolverFailed, start, o, result);
  if (problem.num_velocities() == 0) return w.Finish(Status::kSuccess, start, o, result);

  w.dv.resize(problem.num_velocities());
  w.StartIslands(problem, o);
  // The symmetric part is assembled only where an island will factor it (dense islands are factored exactly).
  const bool symmetric_preconditioner =
      o.coupling == Coupling::kTwoWay && o.newton_solve == NewtonSolve::kSymmetricPreconditioner &&
      std::any_of(w.islands.begin(), w.islands.end(),
                  [](const internal::IslandNewton& island) { return island.type() != LinearSolverType::kDense; });
  if (!symmetric_preconditioner) w.symmetric_values.resize(0);
  // The whole system's values are needed unless every island assembles its own block densely (small scenes).
  const bool assemble_values =
      symmetric_preconditioner || std::any_of(w.islands.begin(), w.islands.end(),
                                              [&](const internal::IslandNewton& i) { return !i.AssemblesDensely(o); });
  NewtonSystem& system = *w.system;
  const internal::IslandIterationData data{o,   system, w.partition, w.budget, w.clock, w.bodies, w.symmetric_values,
                                           w.v, w.dv,   w.dvn,       w.dvt,    w.dual};

  for (int iteration = 0; iteration < o.max_iterations; ++iteration) {
    w.active.clear();
    for (int k = 0; k < w.partition.num_islands; ++k)
      if (!w.islands[k].done()) w.active.push_back(k);
    if (w.active.empty()) break;
    const int secant_islands = iteration > 0 ? w.UpdatePhases(o, &s) : 0;

    // Residual r(v) = M v − p* − h (Jnᵀ π + Jtᵀ ft) (eq. 21; eq. 12 with π frozen) and the Newton matrix.
    const PhaseClock::TimePoint t = w.clock.Now();
    system.Evaluate(w.v, w.sliding_block.data(), &w.dual);
    if (iteration == 0) {
      w.vt_first = system.vt();
      w.has_vt_first = true;
    }
    const PhaseClock::TimePoint evaluated = w.clock.Now();  // one clock read ends a phase and starts the next
    s.counters.time_residual += PhaseClock::Seconds(t, evaluated);
    if (!system.residual().allFinite()) return w.Finish(Status::kNonFiniteValues, start, o, result);
    if (assemble_values) {
      system.Assemble(symmetric_preconditioner ? &w.symmetric_values : nullptr);
      s.counters.time_assembly += w.clock.Since(evaluated);
    }

    // Islands in parallel: each writes only its own velocities, contacts and IslandNewton.
    w.budget.For(static_cast<int>(w.active.size()), 1, [&](int begin, int end) {
      for (int a = begin; a < end; ++a) w.islands[w.active[a]].Iterate(data);
    });
    w.RecordIteration(iteration, secant_islands, &s);
  }
  return w.Finish(w.CombineStatus(&s), start, o, result);
}

}  // namespace tamsi
