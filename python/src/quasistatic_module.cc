#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <tamsi/quasistatic_examples/examples.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.h"

namespace py = pybind11;

namespace tamsi::python {
namespace {

namespace qs = tamsi::quasistatic;

/// Rows of `rows` (each of `width` entries) as one row-major matrix.
template <typename Vector>
Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> Stack(const std::vector<Vector>& rows,
                                                                             int width) {
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> matrix(rows.size(), width);
  for (size_t i = 0; i < rows.size(); ++i) matrix.row(i) = rows[i].transpose();
  return matrix;
}

/// A copy of `values` as a NumPy array.
Eigen::VectorXd Column(const std::vector<double>& values) {
  return Eigen::Map<const Eigen::VectorXd>(values.data(), values.size());
}

py::dict RunExample(const std::string& name, std::optional<double> epsilon) {
  const qs::scenes::Example example = epsilon ? qs::scenes::MakeExample(name, *epsilon) : qs::scenes::MakeExample(name);
  qs::SimulationResult result;
  {
    py::gil_scoped_release release;
    result = example.Run();
  }
  const qs::Trajectory& t = result.trajectory;
  const int nm = static_cast<int>(example.manipulator0.size());
  py::dict d;
  d["name"] = example.info.name;
  d["epsilon"] = example.parameters.epsilon;
  d["time"] = Column(t.time);
  d["object"] = Stack(t.object, 3);
  d["manipulator"] = Stack(t.manipulator, nm);
  d["manipulator_names"] = example.manipulator_names;
  d["min_gap"] = Column(t.min_gap);
  d["max_normal_impulse"] = Column(t.max_normal_impulse);
  d["num_contacts"] = py::array(py::cast(t.num_contacts));
  d["status"] = qs::ToString(result.summary.status);
  d["steps_requested"] = result.summary.steps_requested;
  d["steps_solved"] = result.summary.steps_solved;
  d["total_pivots"] = result.summary.total_pivots;
  d["max_lcp_size"] = result.summary.max_lcp_size;
  d["summary"] = result.summary.BriefReport();
  d["report"] = result.summary.FullReport();
  return d;
}

}  // namespace

void BindQuasistatic(py::module_& m) {
  py::module_ q = m.def_submodule(
      "quasistatic", "The quasi-static planar examples (Halm & Posa 2018 finite feedback; `tamsi quasistatic`).");
  q.def(
      "examples",
      [] {
        std::vector<std::tuple<std::string, std::string, double>> list;
        for (const qs::scenes::ExampleInfo& info : qs::scenes::ListExamples())
          list.emplace_back(info.name, info.description, info.default_epsilon);
        return list;
      },
      "The built-in examples: a list of (name, description, default epsilon).");
  q.def("run", &RunExample, py::arg("name"), py::arg("epsilon") = py::none(),
        "Runs example `name` with feedback scaling epsilon >= 0 (its default when None; GIL released) and returns "
        "its trajectory as arrays, N + 1 states (entry 0 the initial one): time (s), object (N+1 x 3: x, y (m), "
        "theta (rad)), manipulator (N+1 x n_m, m), manipulator_names, min_gap (m), max_normal_impulse (N s), "
        "num_contacts; with status ('completed', 'no_solution', 'solver_failure'), steps_requested, steps_solved, "
        "total_pivots, max_lcp_size (the largest LCP, 4m), summary (one line) and report. "
        "Raises ValueError for an unknown name (listing the known ones) or a negative epsilon.");
}

}  // namespace tamsi::python
