#include <pybind11/eigen.h>
#include <pybind11/stl.h>
#include <tamsi/contact_problem.h>
#include <tamsi/problem_io.h>
#include <tamsi/tamsi_solver.h>

#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include "bindings.h"

namespace py = pybind11;

namespace tamsi::python {
namespace {

/// Binds enum E with the library's own names (ToString) as its Python members.
template <typename E>
py::enum_<E> BindEnum(py::module_& m, const char* name, const char* doc) {
  py::enum_<E> binding(m, name, doc);
  for (E value : AllValues(E{})) binding.value(ToString(value), value);
  return binding;
}

/// BindEnum for a setting, with E.from_string(name): the member named `name` (FromString), else ValueError naming
/// the value and the accepted names.
template <typename E>
void BindSettingEnum(py::module_& m, const char* name, const char* doc) {
  BindEnum<E>(m, name, doc)
      .def_static("from_string", &FromString<E>, py::arg("name"),
                  "The member named `name`; ValueError naming the accepted names otherwise.");
}

constexpr const char* kProblemDoc = R"doc(
One TAMSI time step with positions frozen at q0 (Castro, Qu et al. 2020, Sec. V); SI units.

The unknown is the vector of generalized velocities v (nv) at the end of the step. Contact i has the normal row i of
Jn and the tangent rows 2i, 2i+1 of Jt. vn = Jn v is the separation velocity, positive when the bodies move apart
(penetration rate -vn, eq. 19); the generalized contact force is Jn^T fn + Jt^T ft with fn >= 0.

Keyword arguments (matrices: scipy.sparse or dense arrays, stored as CSC; vectors: 1-D arrays):
  time_step   h (s), > 0
  M           nv x nv, mass matrix M0 (kg or kg m^2), symmetric positive definite
  Jn          nc x nv, normal velocity Jacobian (vn = Jn v, m/s)
  Jt          2nc x nv, tangential velocity Jacobian (vt = Jt v, m/s)
  p_star      nv, free-motion momentum p* = M0 v0 + h tau(q0, v0) (N s)
  delta0      nc, penetration at q0 (m), positive when overlapping
  stiffness   nc, Hunt-Crossley k (N/m), >= 0 (eq. 5)
  dissipation nc, Hunt-Crossley d (s/m), >= 0 (eq. 5)
  friction    nc, Coulomb mu, >= 0 (eq. 6-7)
  v0          nv, optional start-of-step velocities (one-way: frozen normal forces, eq. 12)
  v_guess     nv, optional first Newton iterate (else v* = M0^-1 p*)
  w_guess     2nc, optional first friction duals w, |w_i| <= 1 (primal-dual; else vt_i / max(v_s, |vt_i|))
  Jb          nb x nv, optional bilateral constraint Jacobian (dg/dt = Jb v)
  g0, constraint_stiffness, constraint_damping
              nb each: constraint values at q0 (m or rad), spring k and damper c

Raises ValueError naming the bad field, e.g. "ContactProblem.Jt: expected 6 x 12, got 6 x 11".
)doc";

/// A matrix argument (any scipy.sparse format or a dense 2-D array) as CSC in scipy's canonical form: duplicate
/// entries summed, as scipy means them (Eigen would keep them apart), and row indices sorted. The caller's object is
/// left as it was. Raises ValueError naming `field` for anything else.
SparseMatrix ToSparse(const py::object& value, const char* field) {
  // Sizes are bounded as in problem files (kMaxProblemSize velocities, 2 kMaxProblemSize rows: Jt's 2 nc) before
  // scipy allocates the compressed columns.
  if (py::hasattr(value, "shape")) {
    const py::tuple shape = py::tuple(value.attr("shape"));
    if (shape.size() == 2 &&
        (shape[0].cast<double>() > 2.0 * kMaxProblemSize || shape[1].cast<double>() > kMaxProblemSize)) {
      throw std::invalid_argument(
          std::string("ContactProblem.") + field + ": " + py::str(shape[0]).cast<std::string>() + " x " +
          py::str(shape[1]).cast<std::string>() + " is more than tamsi reads (" +
          std::to_string(2LL * kMaxProblemSize) + " rows, " + std::to_string(kMaxProblemSize) + " columns)");
    }
  }
  if (py::hasattr(value, "dtype")) {  // complex numbers, strings and Python objects would be cast, not refused
    const std::string kind = py::str(value.attr("dtype").attr("kind"));
    if (kind == "c" || kind == "S" || kind == "U" || kind == "O")
      throw std::invalid_argument(std::string("ContactProblem.") + field + ": expected real numbers, got dtype " +
                                  py::str(value.attr("dtype")).cast<std::string>());
  }
  try {
    py::object csc = py::module_::import("scipy.sparse").attr("csc_matrix")(value, py::arg("copy") = true);
    csc.attr("sum_duplicates")();
    return csc.cast<SparseMatrix>();
  } catch (const py::error_already_set& e) {  // scipy's own message, without the traceback e.what() appends
    throw std::invalid_argument(std::string("ContactProblem.") + field +
                                ": expected a scipy.sparse matrix or a 2-D array of numbers (" +
                                py::str(e.value()).cast<std::string>() + ")");
  } catch (const py::cast_error& e) {
    throw std::invalid_argument(std::string("ContactProblem.") + field + ": " + e.what());
  }
}

ContactProblem MakeProblem(double time_step, const py::object& M, const py::object& Jn, const py::object& Jt,
                           const Eigen::VectorXd& p_star, const Eigen::VectorXd& delta0,
                           const Eigen::VectorXd& stiffness, const Eigen::VectorXd& dissipation,
                           const Eigen::VectorXd& friction, std::optional<Eigen::VectorXd> v0,
                           std::optional<Eigen::VectorXd> v_guess, std::optional<Eigen::VectorXd> w_guess,
                           const py::object& Jb, std::optional<Eigen::VectorXd> g0,
                           std::optional<Eigen::VectorXd> constraint_stiffness,
                           std::optional<Eigen::VectorXd> constraint_damping) {
  ContactProblem problem;
  problem.time_step = time_step;
  problem.M = ToSparse(M, "M");
  problem.Jn = ToSparse(Jn, "Jn");
  problem.Jt = ToSparse(Jt, "Jt");
  problem.p_star = p_star;
  problem.delta0 = delta0;
  problem.stiffness = stiffness;
  problem.dissipation = dissipation;
  problem.friction = friction;
  problem.v0 = std::move(v0);
  problem.v_guess = std::move(v_guess);
  problem.w_guess = std::move(w_guess);
  problem.Jb = Jb.is_none() ? SparseMatrix(0, problem.M.cols()) : ToSparse(Jb, "Jb");
  problem.g0 = g0.value_or(Eigen::VectorXd());
  problem.constraint_stiffness = constraint_stiffness.value_or(Eigen::VectorXd());
  problem.constraint_damping = constraint_damping.value_or(Eigen::VectorXd());
  problem.Validate();
  return problem;
}

/// A field of ContactProblem as a read-write property whose getter returns a copy: a view into the problem's memory
/// would dangle once the field is assigned anew. Sparse fields take any matrix argument (ToSparse).
template <SparseMatrix ContactProblem::*field>
void SparseProperty(py::class_<ContactProblem>& c, const char* name, const char* doc) {
  c.def_property(
      name, [](const ContactProblem& p) { return p.*field; },
      [name](ContactProblem& p, const py::object& value) { p.*field = ToSparse(value, name); }, doc);
}
template <typename T, T ContactProblem::*field>
void CopyProperty(py::class_<ContactProblem>& c, const char* name, const char* doc) {
  c.def_property(
      name, [](const ContactProblem& p) { return T(p.*field); }, [](ContactProblem& p, T value) { p.*field = value; },
      doc);
}

void BindProblem(py::module_& m) {
  py::class_<ContactProblem> c(m, "ContactProblem", kProblemDoc);
  c.def(py::init(&MakeProblem), py::kw_only(), py::arg("time_step"), py::arg("M"), py::arg("Jn"), py::arg("Jt"),
        py::arg("p_star"), py::arg("delta0"), py::arg("stiffness"), py::arg("dissipation"), py::arg("friction"),
        py::arg("v0") = py::none(), py::arg("v_guess") = py::none(), py::arg("w_guess") = py::none(),
        py::arg("Jb") = py::none(), py::arg("g0") = py::none(), py::arg("constraint_stiffness") = py::none(),
        py::arg("constraint_damping") = py::none());
  c.def_readwrite("time_step", &ContactProblem::time_step, "h (s), > 0");
  SparseProperty<&ContactProblem::M>(c, "M", "nv x nv mass matrix M0 (scipy.sparse.csc_matrix)");
  SparseProperty<&ContactProblem::Jn>(c, "Jn", "nc x nv normal velocity Jacobian");
  SparseProperty<&ContactProblem::Jt>(c, "Jt", "2nc x nv tangential velocity Jacobian");
  SparseProperty<&ContactProblem::Jb>(c, "Jb", "nb x nv bilateral constraint Jacobian");
  CopyProperty<Eigen::VectorXd, &ContactProblem::p_star>(c, "p_star", "nv, p* (N s)");
  CopyProperty<Eigen::VectorXd, &ContactProblem::delta0>(c, "delta0", "nc, penetration (m)");
  CopyProperty<Eigen::VectorXd, &ContactProblem::stiffness>(c, "stiffness", "nc, Hunt-Crossley k (N/m)");
  CopyProperty<Eigen::VectorXd, &ContactProblem::dissipation>(c, "dissipation", "nc, Hunt-Crossley d (s/m)");
  CopyProperty<Eigen::VectorXd, &ContactProblem::friction>(c, "friction", "nc, Coulomb mu");
  CopyProperty<std::optional<Eigen::VectorXd>, &ContactProblem::v0>(c, "v0",
                                                                    "nv or None, start-of-step velocities (m/s)");
  CopyProperty<std::optional<Eigen::VectorXd>, &ContactProblem::v_guess>(c, "v_guess",
                                                                         "nv or None, first Newton iterate (m/s)");
  CopyProperty<std::optional<Eigen::VectorXd>, &ContactProblem::w_guess>(
      c, "w_guess", "2nc or None, first friction duals w (ft_i = -mu_i pi_i w_i, |w_i| <= 1)");
  CopyProperty<Eigen::VectorXd, &ContactProblem::g0>(c, "g0", "nb, constraint values at q0 (m or rad)");
  CopyProperty<Eigen::VectorXd, &ContactProblem::constraint_stiffness>(c, "constraint_stiffness", "nb, spring k");
  CopyProperty<Eigen::VectorXd, &ContactProblem::constraint_damping>(c, "constraint_damping", "nb, damper c");
  c.def_property_readonly("num_velocities", &ContactProblem::num_velocities, "nv");
  c.def_property_readonly("num_contacts", &ContactProblem::num_contacts, "nc");
  c.def_property_readonly("num_constraints", &ContactProblem::num_constraints, "nb");
  c.def("validate", &ContactProblem::Validate, "Checks every field; raises ValueError naming the bad one.");
  c.def("to_json", &ProblemToJson, "The problem file's JSON text (doubles round-trip exactly).");
  c.def_static("from_json", &ProblemFromJson, py::arg("text"),
               "Parses a problem file's JSON text; raises ProblemFormatError naming the bad field.");
  c.def("write", &WriteProblem, py::arg("path"), "Writes the problem file (JSON).");
  c.def_static("read", &ReadProblem, py::arg("path"), "Reads a problem file; raises ProblemFormatError.");
  c.def("__repr__", [](const ContactProblem& p) {
    return "ContactProblem(nv=" + std::to_string(p.num_velocities()) + ", nc=" + std::to_string(p.num_contacts()) +
           ", nb=" + std::to_string(p.num_constraints()) + ", h=" + std::to_string(p.time_step) + ")";
  });
}

void BindOptions(py::module_& m) {
  BindSettingEnum<Coupling>(m, "Coupling",
                            "How normal forces enter Newton: two_way (TAMSI, eq. 23) or one_way (eq. 17).");
  BindSettingEnum<FrictionRegularization>(m, "FrictionRegularization", "linear (eq. 7) or smooth (C1).");
  BindSettingEnum<LineSearch>(m, "LineSearch", "none, tals (Sec. III-A) or exact (TALS and an exact line search).");
  BindSettingEnum<NewtonSolve>(m, "NewtonSolve", "How each island's Newton system is solved for dv.");
  BindSettingEnum<FrictionNewton>(m, "FrictionNewton", "tangent (the paper's eq. 16) or primal_dual (the default).");
  BindSettingEnum<LinearSolverType>(m, "LinearSolverType", "Backend of the Newton system.");
  BindEnum<Status>(m, "Status", "Outcome of a solve.");

  py::class_<Options> o(
      m, "Options",
      "Solver options; defaults follow the paper (v_s = 1e-4 m/s, theta_max = pi/3). "
      "tamsi.make_options(**fields) sets fields by name; validate() raises ValueError naming a bad one.");
  o.def(py::init<>());
  o.def_readwrite("coupling", &Options::coupling);
  o.def_readwrite("regularization", &Options::regularization);
  o.def_readwrite("stiction_tolerance", &Options::stiction_tolerance, "v_s (m/s), > 0 (eq. 7)");
  o.def_readwrite("relative_tolerance", &Options::relative_tolerance, "converged when |dv| < this * v_s, in (0, 1)");
  o.def_readwrite("max_iterations", &Options::max_iterations, "Newton iteration cap, >= 1");
  o.def_readwrite("line_search", &Options::line_search);
  o.def_readwrite("max_angle", &Options::max_angle, "TALS theta_max (rad)");
  o.def_readwrite("secant_safeguard", &Options::secant_safeguard);
  o.def_readwrite("secant_entry_alpha", &Options::secant_entry_alpha);
  o.def_readwrite("secant_exit_factor", &Options::secant_exit_factor);
  o.def_readwrite("friction_newton", &Options::friction_newton);
  o.def_readwrite("primal_dual_max_alpha", &Options::primal_dual_max_alpha);
  o.def_readwrite("primal_dual_stall_iterations", &Options::primal_dual_stall_iterations);
  o.def_readwrite("primal_dual_max_non_descent", &Options::primal_dual_max_non_descent);
  o.def_readwrite("use_islands", &Options::use_islands);
  o.def_readwrite("linear_solver", &Options::linear_solver);
  o.def_readwrite("newton_solve", &Options::newton_solve);
  o.def_readwrite("krylov_tolerance", &Options::krylov_tolerance);
  o.def_readwrite("keep_preconditioner_update", &Options::keep_preconditioner_update,
                  "symmetric: reuse the last Cholesky of S once the Newton update is at most this many v_s, >= 0");
  o.def_readwrite("max_krylov_iterations", &Options::max_krylov_iterations);
  o.def_readwrite("schwarz_threshold", &Options::schwarz_threshold);
  o.def_readwrite("cholesky_flops_per_velocity", &Options::cholesky_flops_per_velocity,
                  "symmetric: islands above schwarz_threshold keep the Cholesky at most this many flops per velocity");
  o.def_readwrite("schwarz_part_bodies", &Options::schwarz_part_bodies);
  o.def_readwrite("schwarz_refactor_tolerance", &Options::schwarz_refactor_tolerance);
  o.def_readwrite("schwarz_krylov_tolerance", &Options::schwarz_krylov_tolerance);
  o.def_readwrite("max_schwarz_krylov_iterations", &Options::max_schwarz_krylov_iterations);
  o.def_readwrite("time_phases", &Options::time_phases,
                  "read the clock around each solver phase (SolveCounters.time_*); False: no clock reads, times 0");
  o.def_readwrite("dense_threshold", &Options::dense_threshold);
  o.def_readwrite("num_threads", &Options::num_threads, "thread budget (<= 0: all); results bitwise identical");
  o.def("validate", [](const Options& options) {
    std::string error;
    if (!options.IsValid(&error)) throw std::invalid_argument(error);
  });
}

/// A vector of two entries per contact (Result::ft, vt: 2nc) as an nc x 2 array, one row per contact.
Eigen::Matrix<double, Eigen::Dynamic, 2, Eigen::RowMajor> PerContact(const Eigen::VectorXd& pairs) {
  return Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, 2, Eigen::RowMajor>>(pairs.data(), pairs.size() / 2, 2);
}

void BindResult(py::module_& m) {
  py::class_<Summary> s(m, "Summary", "Statistics of one solve; str() is its brief report.");
  s.def_readonly("status", &Summary::status);
  s.def_readonly("iterations", &Summary::iterations);
  s.def_readonly("vt_residual", &Summary::vt_residual, "per iteration: max ||dvt_i|| (m/s)");
  s.def_readonly("vn_residual", &Summary::vn_residual, "per iteration: max |dvn_i| (m/s)");
  s.def_readonly("alpha", &Summary::alpha, "per iteration: the step length applied");
  s.def_readonly("tals_limited_contacts", &Summary::tals_limited_contacts);
  s.def_readonly("line_search_evaluations", &Summary::line_search_evaluations);
  s.def_readonly("tals_fallbacks", &Summary::tals_fallbacks);
  s.def_readonly("secant_islands", &Summary::secant_islands);
  s.def_readonly("num_islands", &Summary::num_islands);
  s.def_readonly("largest_island", &Summary::largest_island);
  s.def_readonly("stick_slip_transitions", &Summary::stick_slip_transitions);
  s.def_readonly("num_velocities", &Summary::num_velocities);
  s.def_readonly("num_contacts", &Summary::num_contacts);
  s.def_readonly("num_constraints", &Summary::num_constraints);
  s.def_readonly("max_constraint_violation", &Summary::max_constraint_violation);
  s.def_readonly("structure_reused", &Summary::structure_reused);
  s.def_readonly("newton_matrix_nnz", &Summary::newton_matrix_nnz);
  s.def_readonly("num_threads_given", &Summary::num_threads_given);
  s.def_readonly("num_threads_used", &Summary::num_threads_used);
  s.def_readonly("linear_solver_given", &Summary::linear_solver_given);
  s.def_readonly("linear_solver_used", &Summary::linear_solver_used);
  s.def_readonly("coupling", &Summary::coupling);
  s.def_readonly("line_search", &Summary::line_search);
  s.def_readonly("newton_solve", &Summary::newton_solve);
  s.def_readonly("friction_newton", &Summary::friction_newton);
  s.def_readonly("message", &Summary::message, "the backend's words when status is linear_solver_failed");
  BindCounters(s, &Summary::counters);
  s.def("brief_report", &Summary::BriefReport, "One line: status, iterations, final residuals, time.");
  s.def("full_report", &Summary::FullReport, "A table of every field with the per-iteration history.");
  s.def("__str__", &Summary::BriefReport);

  py::class_<Result> r(m, "Result", "The solution of one step (read-only NumPy arrays).");
  r.def_readonly("v", &Result::v, "nv, generalized velocities (m/s or rad/s)");
  r.def_readonly("fn", &Result::fn, "nc, normal forces pi (N, >= 0) at v (eq. 5, 19)");
  r.def_property_readonly(
      "ft", [](const Result& result) { return PerContact(result.ft); },
      "nc x 2, friction forces (N) at v (eq. 6), row i along contact i's two tangents (rows 2i, 2i+1 of Jt)");
  r.def_readonly("vn", &Result::vn, "nc, separation velocities Jn v (m/s)");
  r.def_property_readonly(
      "vt", [](const Result& result) { return PerContact(result.vt); },
      "nc x 2, tangential velocities (m/s): Jt v with row i = (vt[2i], vt[2i+1])");
  r.def_readonly("constraint_forces", &Result::constraint_forces, "nb, bilateral constraint forces (N or N m)");
  r.def_readonly("summary", &Result::summary);
  r.def_property_readonly("ok", &Result::ok, "True when the status is success");
  r.def("to_json", &ResultToJson, "The solution document of `tamsi solve --output`.");
}

/// TamsiSolver for Python: solves run without the GIL, so a mutex keeps two Python threads from sharing one solver's
/// workspaces at once (the second waits); each solve reads its own copy of the problem, which Python code may change
/// meanwhile.
class LockedSolver {
 public:
  explicit LockedSolver(const Options& options) : solver_(options) {}
  Options options() {
    std::lock_guard<std::mutex> lock(mutex_);
    return solver_.options();
  }
  void set_options(const Options& options) {
    std::lock_guard<std::mutex> lock(mutex_);
    solver_.set_options(options);
  }
  Result Solve(const ContactProblem& problem) {
    const ContactProblem copy = problem;  // with the GIL held
    Result result;
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    solver_.Solve(copy, &result);
    return result;
  }

 private:
  TamsiSolver solver_;
  std::mutex mutex_;
};

void BindSolverClass(py::module_& m) {
  py::class_<LockedSolver> s(m, "TamsiSolver",
                             "Newton-Raphson on v with TALS (Sec. III-A, V). Keeps workspaces and symbolic "
                             "factorizations across solves: reuse one per time-stepping loop. Safe to share between "
                             "threads (their solves take turns); one per thread solves in parallel.");
  s.def(py::init<const Options&>(), py::arg_v("options", Options(), "Options()"),
        "Raises ValueError for invalid options (the message names the field).");
  s.def_property("options", &LockedSolver::options, &LockedSolver::set_options,
                 "A copy of the options; assign Options to change them (validated, ValueError naming the field).");
  s.def("solve", &LockedSolver::Solve, py::arg("problem"),
        "Solves one step (the GIL is released meanwhile). Raises ValueError for an invalid problem; numerical "
        "trouble is result.summary.status, never raised.");
}

}  // namespace

py::dict CountersDict(const SolveCounters& counters) {
  py::dict d;
  ForEachField(counters, [&](const char* name, auto value) { d[name] = value; });
  return d;
}

void BindSolver(py::module_& m) {
  py::register_exception<ProblemFormatError>(m, "ProblemFormatError", PyExc_ValueError);
  BindProblem(m);
  BindOptions(m);
  BindResult(m);
  BindSolverClass(m);
}

}  // namespace tamsi::python
