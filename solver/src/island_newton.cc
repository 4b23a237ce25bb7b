#include "island_newton.h"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>

#include "block_cholesky.h"
#include "krylov.h"
#include "line_search.h"

namespace tamsi::internal {

IslandNewton::IslandNewton(int k, LinearSolverType type, bool symmetric, int num_threads, bool schwarz)
    : k_(k),
      type_(type),
      schwarz_(schwarz ? std::make_unique<SchwarzPreconditioner>() : nullptr),
      parallel_cholesky_(num_threads > 1) {
  if (type == LinearSolverType::kDense) {
    auto dense = std::make_unique<DenseSolver>(symmetric);
    dense_solver_ = dense.get();
    linear_solver_ = std::move(dense);
  } else {
    linear_solver_ = MakeLinearSolver(type, symmetric, num_threads);
  }
}

bool IslandNewton::AssemblesDensely(const Options& o) const {
  return dense_solver_ != nullptr && o.newton_solve != NewtonSolve::kReuseFactorization;
}

void IslandNewton::Start(const Options& o) {
  done_ = false;
  status_ = Status::kMaxIterationsReached;
  message_.clear();  // an earlier solve's failure is not this one's
  phase_ = o.friction_newton == FrictionNewton::kPrimalDual ? Phase::kPrimalDual : Phase::kNewton;
  phase_iterations_ = 0;
  non_descent_ = 0;
  last_update_ = std::numeric_limits<double>::infinity();  // a solve's first iteration factors S
}

bool IslandNewton::UpdatePhase(const Options& o) {
  const Phase before = phase_;
  const double exit = o.secant_exit_factor * o.stiction_tolerance;
  if (phase_ == Phase::kPrimalDual) {
    if (phase_iterations_ >= o.primal_dual_stall_iterations || non_descent_ >= o.primal_dual_max_non_descent)
      phase_ = Phase::kNewton;
  } else if (o.secant_safeguard) {
    if (phase_ == Phase::kNewton && record_.alpha < o.secant_entry_alpha && record_.vt_residual > exit)
      phase_ = Phase::kSecant;
    else if (phase_ == Phase::kSecant && record_.vt_residual <= exit)
      phase_ = Phase::kFinalNewton;
  }
  if (phase_ == before) return false;
  phase_iterations_ = 0;
  return true;
}

kernels::SlidingBlock IslandNewton::sliding_block() const {
  switch (phase_) {
    case Phase::kPrimalDual:
      return kernels::SlidingBlock::kPrimalDual;
    case Phase::kSecant:
      return kernels::SlidingBlock::kSecant;
    case Phase::kNewton:
    case Phase::kFinalNewton:
      break;
  }
  return kernels::SlidingBlock::kTangent;
}

void IslandNewton::Iterate(const IslandIterationData& data) {
  record_ = IslandIterationRecord{};
  record_.counters.newton_systems = 1;
  ++phase_iterations_;
  CalcIslandSystem(data);
  if (!CalcSearchDirection(data)) return;
  if (!dv_.allFinite()) {
    Fail(Status::kNonFiniteValues);
    return;
  }
  const PhaseClock::TimePoint t = data.clock.Now();
  CalcContactVelocityChanges(data);
  CalcStepLength(data);
  if (phase_ == Phase::kPrimalDual) UpdateDuals(data);
  const IslandPartition& P = data.partition;
  const int* dofs = P.velocities.data() + P.velocity_ptr[k_];
  for (int a = 0; a < P.num_velocities(k_); ++a) data.v[dofs[a]] += record_.alpha * dv_[a];
  record_.counters.time_line_search = data.clock.Since(t);
  last_update_ = std::max(record_.vt_residual, record_.vn_residual);
  // Converged when the full Newton update of every contact is below the tolerance, tangential and normal alike.
  const double tolerance = data.options.relative_tolerance * data.options.stiction_tolerance;
  if (record_.vt_residual <= tolerance && record_.vn_residual <= tolerance) {
    status_ = Status::kSuccess;
    done_ = true;
  }
}

bool IslandNewton::UsesSymmetricPreconditioner(const IslandIterationData& data) const {
  return data.symmetric_values.size() > 0 && type_ != LinearSolverType::kDense;
}

void IslandNewton::CalcIslandSystem(const IslandIterationData& data) {
  const IslandPartition& P = data.partition;
  const int n = P.num_velocities(k_);
  const int* dofs = P.velocities.data() + P.velocity_ptr[k_];
  const int* col_ptr = P.local_col_ptr.data() + P.column_ptr[k_];
  const int* row_index = P.local_row_index.data() + P.entry_ptr[k_];
  const int* entries = P.value_source.data() + P.entry_ptr[k_];
  // GMRES, the block Cholesky and Schwarz read the island's entries of the whole system's values in place; the
  // backends that factor the matrix itself read a gathered copy (GatherValues).
  system_block_ = CscView{n, col_ptr, row_index, data.system.values().data(), entries};
  symmetric_block_ = CscView{n, col_ptr, row_index, data.symmetric_values.data(), entries};
  rhs_.resize(n);
  for (int a = 0; a < n; ++a) rhs_[a] = -data.system.residual()[dofs[a]];
}

bool IslandNewton::CalcSearchDirection(const IslandIterationData& data) {
  const Options& o = data.options;
  bool solved = false;
  if (UsesSymmetricPreconditioner(data)) solved = SolveWithSymmetricPreconditioner(data);
  if (o.newton_solve == NewtonSolve::kReuseFactorization && factorized_ && !refactor_)
    solved = SolveWithKeptFactorization(data);
  record_.counters.krylov_solves = solved;
  return solved || SolveExactly(data);
}

// This iteration's symmetric preconditioner of M + h(W_nn + W_tt), then GMRES on the full matrix; near convergence
// first GMRES on the last iteration's factorization (KeepsSymmetricFactorization). False when that part is not
// positive definite or GMRES falls short of its tolerance: the exact factorization follows.
bool IslandNewton::SolveWithSymmetricPreconditioner(const IslandIterationData& data) {
  const Options& o = data.options;
  const Preconditioner cholesky = [&](const Eigen::VectorXd& r, Eigen::VectorXd* z) {
    return SolveCholesky(data.budget, r, z);
  };
  if (KeepsSymmetricFactorization(o) && SolveWithGmres(data, cholesky, o.krylov_tolerance, kKeptFactorizationBudget))
    return true;
  symmetric_factored_ = FactorSymmetricPart(data);
  if (!symmetric_factored_) return false;
  if (schwarz_) {
    return SolveWithGmres(
        data, [&](const Eigen::VectorXd& r, Eigen::VectorXd* z) { return schwarz_->Apply(data.budget, r, z); },
        o.schwarz_krylov_tolerance, o.max_schwarz_krylov_iterations);
  }
  return SolveWithGmres(data, cholesky, o.krylov_tolerance, o.max_krylov_iterations);
}

bool IslandNewton::SolveCholesky(const kernels::ThreadBudget& budget, const Eigen::VectorXd& r, Eigen::VectorXd* z) {
  return parallel_cholesky_ ? symmetric_solver_->Solve(budget, r, z, nullptr) : symmetric_solver_->Solve(r, z, nullptr);
}

bool IslandNewton::KeepsSymmetricFactorization(const Options& o) const {
  return !schwarz_ && symmetric_factored_ && last_update_ <= o.keep_preconditioner_update * o.stiction_tolerance;
}

bool IslandNewton::FactorSymmetricPart(const IslandIterationData& data) {
  PhaseClock::TimePoint t = data.clock.Now();
  const CscView& S = symmetric_block_;
  if (!symmetric_analyzed_) {
    if (schwarz_ && EstimateCholeskyFlops(S) <= data.options.cholesky_flops_per_velocity * S.n) schwarz_.reset();
    if (schwarz_) {
      // The island's bodies, numbered from 0 in the order of their first velocity.
      const IslandPartition& P = data.partition;
      const int* dofs = P.velocities.data() + P.velocity_ptr[k_];
      std::vector<int> body(S.n), local(data.bodies.count, -1);
      int num_bodies = 0;
      for (int a = 0; a < S.n; ++a) {
        int& b = local[data.bodies.of[dofs[a]]];
        if (b < 0) b = num_bodies++;
        body[a] = b;
      }
      symmetric_analyzed_ = schwarz_->Analyze(data.budget, S, body, num_bodies,
                                              SchwarzPartBodies(data.options.schwarz_part_bodies, num_bodies), nullptr);
    } else {
      if (!symmetric_solver_) symmetric_solver_ = MakeBlockCholeskySolver(CholeskyPrecision::kSingle);
      symmetric_analyzed_ = symmetric_solver_->Analyze(S, nullptr);
    }
    record_.counters.symbolic_factorizations += 1;
    record_.counters.time_symbolic += data.clock.Since(t);
    t = data.clock.Now();
  }
  if (!symmetric_analyzed_) return false;
  int subdomains_factored = 0;
  const bool factored = schwarz_             ? schwarz_->Factor(data.budget, S, data.options.schwarz_refactor_tolerance,
                                                                &subdomains_factored, nullptr)
                        : parallel_cholesky_ ? symmetric_solver_->Factor(data.budget, S, nullptr)
                                             : symmetric_solver_->Factor(S, nullptr);
  record_.counters.numeric_factorizations += 1;
  record_.counters.schwarz_factorizations += subdomains_factored;
  record_.counters.time_numeric += data.clock.Since(t);
  return factored;
}

CscView IslandNewton::GatherValues(const kernels::ThreadBudget& budget) {
  const CscView& A = system_block_;
  const int num_entries = A.col_ptr[A.n];
  values_.resize(num_entries);
  budget.For(num_entries, 1 << 14, [&](int begin, int end) {
    for (int e = begin; e < end; ++e) values_[e] = A.values[A.slot(e)];
  });
  return CscView{A.n, A.col_ptr, A.row_index, values_.data()};
}

bool IslandNewton::SolveWithGmres(const IslandIterationData& data, const Preconditioner& precondition, double tolerance,
                                  int max_iterations) {
  const PhaseClock::TimePoint t = data.clock.Now();
  if (!gmres_analyzed_) gmres_.Analyze(system_block_);
  gmres_analyzed_ = true;
  int iterations = 0;
  const bool solved =
      gmres_.Solve(data.budget, system_block_.values, precondition, max_iterations, tolerance, rhs_, &dv_, &iterations);
  record_.counters.krylov_iterations += iterations;
  record_.counters.time_solve += data.clock.Since(t);
  return solved;
}

// GMRES on this iteration's matrix, preconditioned by the island's last factorization (from an earlier iteration or
// an earlier solve of the same pattern). Refactor when GMRES does not meet its tolerance within its budget, or took
// more than half of it.
bool IslandNewton::SolveWithKeptFactorization(const IslandIterationData& data) {
  const Options& o = data.options;
  const bool solved = SolveWithGmres(
      data, [&](const Eigen::VectorXd& r, Eigen::VectorXd* z) { return linear_solver_->Solve(r, z, nullptr); },
      o.krylov_tolerance, o.max_krylov_iterations);
  refactor_ = !solved || 2 * record_.counters.krylov_iterations > o.max_krylov_iterations;
  return solved;
}

bool IslandNewton::SolveExactly(const IslandIterationData& data) {
  PhaseClock::TimePoint t = data.clock.Now();
  if (AssemblesDensely(data.options)) {
    const IslandPartition& P = data.partition;
    data.system.AssembleDenseBlock(P.velocities.data() + P.velocity_ptr[k_], P.num_velocities(k_),
                                   P.contacts.data() + P.contact_ptr[k_], P.contact_ptr[k_ + 1] - P.contact_ptr[k_],
                                   P.local.data(), &dense_block_);
    const PhaseClock::TimePoint assembled = data.clock.Now();
    record_.counters.time_assembly += PhaseClock::Seconds(t, assembled);
    t = assembled;
    if (!analyzed_) record_.counters.symbolic_factorizations += 1;  // the dense backend's analysis is empty
    analyzed_ = true;
    factorized_ = dense_solver_->FactorMatrix(&dense_block_, &message_);
  } else {
    const CscView A = GatherValues(data.budget);
    if (!analyzed_) {
      if (!linear_solver_->Analyze(A, &message_)) return Fail(Status::kLinearSolverFailed);
      analyzed_ = true;
      record_.counters.symbolic_factorizations += 1;
      record_.counters.time_symbolic += data.clock.Since(t);
      t = data.clock.Now();
    }
    factorized_ = linear_solver_->Factor(A, &message_);
  }
  record_.counters.numeric_factorizations += 1;
  refactor_ = false;
  const PhaseClock::TimePoint factored = data.clock.Now();  // ends the factorization and starts the solve
  record_.counters.time_numeric += PhaseClock::Seconds(t, factored);
  if (!factorized_) return Fail(Status::kLinearSolverFailed);
  const bool solved = linear_solver_->Solve(rhs_, &dv_, &message_);
  record_.counters.time_solve += data.clock.Since(factored);
  return solved || Fail(Status::kLinearSolverFailed);
}

void IslandNewton::CalcContactVelocityChanges(const IslandIterationData& data) {
  const IslandPartition& P = data.partition;
  const int* dofs = P.velocities.data() + P.velocity_ptr[k_];
  for (int a = 0; a < P.num_velocities(k_); ++a) data.dv[dofs[a]] = dv_[a];
  const kernels::ContactJacobian& J = data.system.contact_jacobian();
  for (int c = P.contact_ptr[k_]; c < P.contact_ptr[k_ + 1]; ++c) {
    const int i = P.contacts[c];
    const Eigen::Vector3d dvc = J.MultiplyContact(i, data.dv);
    data.dvn[i] = dvc[0];
    data.dvt.segment<2>(2 * i) = dvc.tail<2>();
    record_.vn_residual = std::max(record_.vn_residual, std::abs(dvc[0]));
    record_.vt_residual = std::max(record_.vt_residual, dvc.tail<2>().norm());
  }
}

void IslandNewton::CalcStepLength(const IslandIterationData& data) {
  const Options& o = data.options;
  const IslandPartition& P = data.partition;
  const int* contacts = P.contacts.data() + P.contact_ptr[k_];
  const int num_contacts = P.contact_ptr[k_ + 1] - P.contact_ptr[k_];
  auto tals = [&] {
    const kernels::TalsLimit limit = kernels::CalcTalsLimit(data.budget, data.system.vt(), data.dvt,
                                                            o.stiction_tolerance, o.max_angle, contacts, num_contacts);
    record_.alpha = limit.alpha;
    record_.tals_limited_contacts = limit.limited_contacts;
  };
  auto exact = [&](double max_alpha, LineSearchSlope slope) {
    return ExactLineSearch(data.budget, data.system, data.v, data.dv, P.velocities.data() + P.velocity_ptr[k_],
                           P.num_velocities(k_), contacts, num_contacts, data.dvn, data.dvt, max_alpha, slope,
                           &record_.line_search_evaluations);
  };
  record_.alpha = 1.0;
  if (phase_ == Phase::kPrimalDual && o.line_search == LineSearch::kExact) {
    record_.alpha = exact(o.primal_dual_max_alpha, LineSearchSlope::kResidual);
    record_.tals_fallback = record_.alpha <= 0.0;
    if (record_.tals_fallback) tals();
    non_descent_ += record_.tals_fallback;
    return;
  }
  if (o.line_search == LineSearch::kTals) tals();
  if (o.line_search == LineSearch::kExact) {
    double alpha = exact(1.0, LineSearchSlope::kLaggedPotential);
    if (alpha <= 0.0 && UseSymmetricDirection(data)) alpha = exact(1.0, LineSearchSlope::kLaggedPotential);
    tals();
    record_.tals_fallback = alpha <= 0.0;
    record_.alpha = std::max(record_.alpha, alpha);
  }
}

bool IslandNewton::UseSymmetricDirection(const IslandIterationData& data) {
  bool applied = false;
  if (symmetric_factored_)
    applied = schwarz_ ? schwarz_->Apply(data.budget, rhs_, &symmetric_dv_)
                       : SolveCholesky(data.budget, rhs_, &symmetric_dv_);
  else if (type_ == LinearSolverType::kDense && data.symmetric_values.size() > 0)
    applied = SolveSymmetricPartDensely();
  if (!applied || !symmetric_dv_.allFinite()) return false;
  dv_.swap(symmetric_dv_);
  record_.vn_residual = record_.vt_residual = 0.0;
  CalcContactVelocityChanges(data);
  ++record_.counters.symmetric_directions;
  return true;
}

bool IslandNewton::SolveSymmetricPartDensely() {
  ScatterToDense(symmetric_block_, &dense_symmetric_);
  Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(dense_symmetric_);
  if (llt.info() != Eigen::Success) return false;
  symmetric_dv_ = llt.solve(rhs_);
  return true;
}

void IslandNewton::UpdateDuals(const IslandIterationData& data) const {
  const IslandPartition& P = data.partition;
  const Eigen::VectorXd& vt = data.system.vt();
  for (int c = P.contact_ptr[k_]; c < P.contact_ptr[k_ + 1]; ++c) {
    const int i = P.contacts[c];
    data.dual.segment<2>(2 * i) = kernels::UpdatePrimalDual(
        vt.segment<2>(2 * i), data.dvt.segment<2>(2 * i), data.dual.segment<2>(2 * i), data.options.stiction_tolerance);
  }
}

bool IslandNewton::Fail(Status status) {
  status_ = status;
  done_ = true;
  return false;
}

}  // namespace tamsi::internal
