#include <tamsi/tamsi_solver.h>

#include "linear_solver.h"

#include <tamsi/kernels/contact_kernels.h>
#include <tamsi/kernels/parallel.h>
#include <tamsi/newton_system.h>

#include <chrono>
#include <stdexcept>
#include <utility>

namespace tamsi {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

/// max over contacts of ‖x_{2i..2i+1}‖ (dim 2, tangential) or |x_i| (dim 1, normal).
double MaxContactNorm(const Eigen::VectorXd& x, int dim) {
  double worst = 0.0;
  for (Eigen::Index i = 0; i < x.size(); i += dim)
    worst = std::max(worst, dim == 2 ? x.segment<2>(i).norm() : std::abs(x[i]));
  return worst;
}

}  // namespace

struct TamsiSolver::Impl {
  explicit Impl(int num_threads) : budget(num_threads) {}
  kernels::ThreadBudget budget;
  // The Newton-matrix backend and the pattern its symbolic analysis belongs to.
  std::unique_ptr<internal::LinearSolver> linear_solver;
  LinearSolverType linear_solver_type{LinearSolverType::kAuto};
  std::vector<int> analyzed_col_ptr, analyzed_row_index;
  bool analyzed{false};
  // Workspaces.
  Eigen::VectorXd rhs, dv, dvn, dvt, vt_first;
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
  impl_->analyzed = false;
  impl_->linear_solver.reset();
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
  s = Summary();
  s.num_velocities = nv;
  s.num_contacts = nc;
  s.coupling = o.coupling;
  s.num_threads_given = o.num_threads;
  s.num_threads_used = w.budget.num_threads();
  s.linear_solver_given = o.linear_solver;
  LinearSolverType type = o.linear_solver;
  if (type == LinearSolverType::kAuto) {
    type = nv <= o.dense_threshold ? LinearSolverType::kDense
           : two_way               ? LinearSolverType::kUmfpack
                                   : LinearSolverType::kCholmod;
  }
  s.linear_solver_used = type;

  // Structure: per-contact Jacobian blocks and the Newton matrix pattern. The symbolic analysis is kept while the
  // pattern and the backend hold, across iterations and across solves.
  Clock::time_point t = Clock::now();
  NewtonSystem system(problem, two_way, o.stiction_tolerance, o.regularization, w.budget);
  const kernels::NewtonMatrixPattern& pattern = system.pattern();
  const bool reuse = w.analyzed && w.linear_solver && w.linear_solver_type == type &&
                     pattern.col_ptr() == w.analyzed_col_ptr && pattern.row_index() == w.analyzed_row_index;
  if (!reuse) {
    w.linear_solver = internal::MakeLinearSolver(type, /*symmetric=*/!two_way);
    w.linear_solver_type = type;
    w.analyzed = false;
  }
  s.newton_matrix_nnz = pattern.nnz();
  s.time_assembly += Seconds(t);

  auto finish = [&](Status status, Eigen::VectorXd v) {
    t = Clock::now();
    system.Evaluate(v);
    s.time_residual += Seconds(t);
    if (w.vt_first.size() == system.vt().size())
      for (int i = 0; i < nc; ++i)
        s.stick_slip_transitions += (w.vt_first.segment<2>(2 * i).norm() < o.stiction_tolerance) !=
                                    (system.vt().segment<2>(2 * i).norm() < o.stiction_tolerance);
    result->v = std::move(v);
    result->vn = system.vn();
    result->vt = system.vt();
    result->fn = system.fn();
    result->ft = system.ft();
    s.status = status;
    s.time_total = Seconds(start);
    return status;
  };

  // Initial iterate: the caller's guess, else the free motion v* = M⁻¹ p*.
  Eigen::VectorXd v = problem.v_guess ? *problem.v_guess : Eigen::VectorXd::Zero(nv);
  w.vt_first.resize(0);
  if (nv == 0) return finish(Status::kSuccess, std::move(v));
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
      return finish(Status::kLinearSolverFailed, Eigen::VectorXd::Zero(nv));
    }
  }

  const internal::CscView A{nv, pattern.col_ptr().data(), pattern.row_index().data(), system.values().data()};
  const double tolerance = o.relative_tolerance * o.stiction_tolerance;
  for (int k = 0; k < o.max_iterations; ++k) {
    t = Clock::now();
    system.Evaluate(v);
    if (k == 0) w.vt_first = system.vt();
    s.time_residual += Seconds(t);
    if (!system.residual().allFinite()) return finish(Status::kNonFiniteValues, std::move(v));

    t = Clock::now();
    system.Assemble();
    s.time_assembly += Seconds(t);
    if (!w.analyzed) {
      t = Clock::now();
      if (!w.linear_solver->Analyze(A, &s.message)) return finish(Status::kLinearSolverFailed, std::move(v));
      w.analyzed = true;
      w.analyzed_col_ptr = pattern.col_ptr();
      w.analyzed_row_index = pattern.row_index();
      ++s.symbolic_factorizations;
      s.time_symbolic += Seconds(t);
    }
    t = Clock::now();
    const bool factored = w.linear_solver->Factor(A, &s.message);
    ++s.numeric_factorizations;
    s.time_numeric += Seconds(t);
    if (!factored) return finish(Status::kLinearSolverFailed, std::move(v));
    t = Clock::now();
    w.rhs = -system.residual();
    const bool solved = w.linear_solver->Solve(w.rhs, &w.dv, &s.message);
    s.time_solve += Seconds(t);
    if (!solved) return finish(Status::kLinearSolverFailed, std::move(v));
    if (!w.dv.allFinite()) return finish(Status::kNonFiniteValues, std::move(v));

    // TALS (Sec. III-A): α = minᵢ αᵢ over the contacts' tangential updates.
    t = Clock::now();
    system.contact_jacobian().Multiply(w.budget, w.dv, &w.dvn, &w.dvt);
    kernels::TalsLimit limit{1.0, 0};
    if (o.use_tals) limit = kernels::CalcTalsLimit(w.budget, system.vt(), w.dvt, o.stiction_tolerance, o.max_angle);
    v += limit.alpha * w.dv;
    s.time_tals += Seconds(t);

    const double vt_residual = MaxContactNorm(w.dvt, 2);
    const double vn_residual = MaxContactNorm(w.dvn, 1);
    s.vt_residual.push_back(vt_residual);
    s.vn_residual.push_back(vn_residual);
    s.alpha.push_back(limit.alpha);
    s.tals_limited_contacts.push_back(limit.limited_contacts);
    s.iterations = k + 1;
    // Converged when the full Newton update of every contact is below the tolerance, tangential and normal alike.
    if (vt_residual <= tolerance && vn_residual <= tolerance) return finish(Status::kSuccess, std::move(v));
  }
  return finish(Status::kMaxIterationsReached, std::move(v));
}

}  // namespace tamsi
