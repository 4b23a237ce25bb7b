#include <tamsi/kernels/parallel.h>
#include <tamsi/tamsi_solver.h>

#include <cmath>
#include <sstream>
#include <vector>

namespace tamsi {

const char* ToString(Status status) {
  switch (status) {
    case Status::kSuccess:
      return "success";
    case Status::kMaxIterationsReached:
      return "max_iterations_reached";
    case Status::kLinearSolverFailed:
      return "linear_solver_failed";
    case Status::kNonFiniteValues:
      return "non_finite_values";
  }
  return "unknown";
}

const char* ToString(LinearSolverType type) {
  switch (type) {
    case LinearSolverType::kAuto:
      return "auto";
    case LinearSolverType::kUmfpack:
      return "umfpack";
    case LinearSolverType::kCholmod:
      return "cholmod";
    case LinearSolverType::kKlu:
      return "klu";
    case LinearSolverType::kDense:
      return "dense";
  }
  return "unknown";
}

const char* ToString(Coupling coupling) { return coupling == Coupling::kTwoWay ? "two_way" : "one_way"; }

const char* ToString(FrictionRegularization regularization) {
  return regularization == FrictionRegularization::kLinear ? "linear" : "smooth";
}

const char* ToString(LineSearch line_search) {
  switch (line_search) {
    case LineSearch::kNone:
      return "none";
    case LineSearch::kTals:
      return "tals";
    case LineSearch::kExact:
      return "exact";
  }
  return "unknown";
}

const char* ToString(NewtonSolve newton_solve) {
  switch (newton_solve) {
    case NewtonSolve::kExact:
      return "exact";
    case NewtonSolve::kReuseFactorization:
      return "reuse_factorization";
    case NewtonSolve::kSymmetricPreconditioner:
      return "symmetric_preconditioner";
  }
  return "unknown";
}

const char* ToString(FrictionNewton friction_newton) {
  return friction_newton == FrictionNewton::kTangent ? "tangent" : "primal_dual";
}

std::vector<Status> AllValues(Status) {
  return {Status::kSuccess, Status::kMaxIterationsReached, Status::kLinearSolverFailed, Status::kNonFiniteValues};
}

std::vector<LinearSolverType> AllValues(LinearSolverType) {
  return {LinearSolverType::kAuto, LinearSolverType::kUmfpack, LinearSolverType::kKlu, LinearSolverType::kCholmod,
          LinearSolverType::kDense};
}

std::vector<Coupling> AllValues(Coupling) { return {Coupling::kTwoWay, Coupling::kOneWay}; }

std::vector<FrictionRegularization> AllValues(FrictionRegularization) {
  return {FrictionRegularization::kLinear, FrictionRegularization::kSmooth};
}

std::vector<LineSearch> AllValues(LineSearch) { return {LineSearch::kNone, LineSearch::kTals, LineSearch::kExact}; }

std::vector<NewtonSolve> AllValues(NewtonSolve) {
  return {NewtonSolve::kExact, NewtonSolve::kReuseFactorization, NewtonSolve::kSymmetricPreconditioner};
}

std::vector<FrictionNewton> AllValues(FrictionNewton) {
  return {FrictionNewton::kTangent, FrictionNewton::kPrimalDual};
}

bool Options::IsValid(std::string* error) const {
  std::ostringstream os;
  if (!(stiction_tolerance > 0.0) || !std::isfinite(stiction_tolerance)) {
    os << "Options.stiction_tolerance: must be finite and > 0 m/s, got " << stiction_tolerance;
  } else if (!(relative_tolerance > 0.0 && relative_tolerance < 1.0)) {
    os << "Options.relative_tolerance: must be in (0, 1), got " << relative_tolerance;
  } else if (max_iterations < 1) {
    os << "Options.max_iterations: must be ≥ 1, got " << max_iterations;
  } else if (!(max_angle > 0.0 && max_angle < M_PI)) {
    os << "Options.max_angle: must be in (0, π) rad, got " << max_angle;
  } else if (!(secant_entry_alpha > 0.0 && secant_entry_alpha <= 1.0)) {
    os << "Options.secant_entry_alpha: must be in (0, 1], got " << secant_entry_alpha;
  } else if (!(secant_exit_factor >= 1.0) || !std::isfinite(secant_exit_factor)) {
    os << "Options.secant_exit_factor: must be finite and ≥ 1 (a multiple of v_s), got " << secant_exit_factor;
  } else if (!(primal_dual_max_alpha >= 1.0) || !std::isfinite(primal_dual_max_alpha)) {
    os << "Options.primal_dual_max_alpha: must be finite and ≥ 1, got " << primal_dual_max_alpha;
  } else if (primal_dual_stall_iterations < 1) {
    os << "Options.primal_dual_stall_iterations: must be ≥ 1, got " << primal_dual_stall_iterations;
  } else if (primal_dual_max_non_descent < 1) {
    os << "Options.primal_dual_max_non_descent: must be ≥ 1, got " << primal_dual_max_non_descent;
  } else if (!(krylov_tolerance > 0.0 && krylov_tolerance < 1.0)) {
    os << "Options.krylov_tolerance: must be in (0, 1), got " << krylov_tolerance;
  } else if (max_krylov_iterations < 1) {
    os << "Options.max_krylov_iterations: must be ≥ 1, got " << max_krylov_iterations;
  } else if (!(keep_preconditioner_update >= 0.0) || !std::isfinite(keep_preconditioner_update)) {
    os << "Options.keep_preconditioner_update: must be finite and ≥ 0 (a multiple of v_s), got "
       << keep_preconditioner_update;
  } else if (schwarz_threshold < 1) {
    os << "Options.schwarz_threshold: must be ≥ 1 velocity, got " << schwarz_threshold;
  } else if (!(cholesky_flops_per_velocity >= 0.0) || !std::isfinite(cholesky_flops_per_velocity)) {
    os << "Options.cholesky_flops_per_velocity: must be finite and ≥ 0, got " << cholesky_flops_per_velocity;
  } else if (schwarz_part_bodies < 1) {
    os << "Options.schwarz_part_bodies: must be ≥ 1, got " << schwarz_part_bodies;
  } else if (!(schwarz_krylov_tolerance > 0.0 && schwarz_krylov_tolerance < 1.0)) {
    os << "Options.schwarz_krylov_tolerance: must be in (0, 1), got " << schwarz_krylov_tolerance;
  } else if (max_schwarz_krylov_iterations < 1) {
    os << "Options.max_schwarz_krylov_iterations: must be ≥ 1, got " << max_schwarz_krylov_iterations;
  } else if (!(schwarz_refactor_tolerance >= 0.0) || !std::isfinite(schwarz_refactor_tolerance)) {
    os << "Options.schwarz_refactor_tolerance: must be finite and ≥ 0, got " << schwarz_refactor_tolerance;
  } else if (dense_threshold < 0) {
    os << "Options.dense_threshold: must be ≥ 0, got " << dense_threshold;
  } else if (num_threads < 0 || num_threads > kernels::MaxThreads()) {
    os << "Options.num_threads: must be in [0, " << kernels::MaxThreads() << "] (0: all hardware threads), got "
       << num_threads;
  } else if (linear_solver == LinearSolverType::kCholmod && coupling == Coupling::kTwoWay) {
    os << "Options.linear_solver: cholmod needs the SPD one-way Newton matrix (eq. 17); the two-way matrix (eq. 23) "
          "is nonsymmetric: use umfpack, dense or auto";
  }
  const std::string message = os.str();
  if (error) *error = message;
  return message.empty();
}

}  // namespace tamsi
