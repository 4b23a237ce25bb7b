#include <mujoco/mujoco.h>
#include <pybind11/stl.h>
#include <tamsi/scenes/run_settings.h>
#include <tamsi/scenes/scene_library.h>
#include <tamsi/scenes/simulator.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>

#include "bindings.h"

namespace py = pybind11;

namespace tamsi::python {
namespace {

/// The type mujoco.<name> (MuJoCo's own Python bindings), or null when mujoco cannot be imported (then no object can
/// be one).
PyObject* MujocoType(const char* name) {
  try {
    return py::object(py::module_::import("mujoco").attr(name)).release().ptr();
  } catch (const py::error_already_set&) {
    return nullptr;
  }
}

/// mujoco.MjModel and mujoco.MjData, looked up at their first use and kept for the life of the process.
PyObject* MjModelType() {
  static PyObject* const type = MujocoType("MjModel");
  return type;
}
PyObject* MjDataType() {
  static PyObject* const type = MujocoType("MjData");
  return type;
}

bool IsInstance(py::handle object, PyObject* type) {
  return type != nullptr && PyObject_TypeCheck(object.ptr(), reinterpret_cast<PyTypeObject*>(type));
}

/// The raw MuJoCo struct behind `object`, a mujoco.<type_name>, read from its `_address`; TypeError (one line naming
/// `what` and the type given) for anything else.
template <typename T>
T* Address(py::handle object, PyObject* type, const char* type_name, const char* what) {
  if (!IsInstance(object, type)) {
    throw py::type_error(std::string(what) + " must be a mujoco." + type_name + ", got " +
                         py::str(py::type::of(object).attr("__qualname__")).cast<std::string>());
  }
  return reinterpret_cast<T*>(object.attr("_address").cast<std::uintptr_t>());
}

/// The number of entries of each mjData array a step reads or writes, which must agree between the model the stepper
/// copied and the model `data` was made from.
bool SameSizes(const mjModel& a, const mjModel& b) {
  return a.nq == b.nq && a.nv == b.nv && a.na == b.na && a.nu == b.nu && a.nbody == b.nbody && a.nmocap == b.nmocap &&
         a.neq == b.neq && a.nuserdata == b.nuserdata && a.npluginstate == b.npluginstate;
}

}  // namespace

bool IsMjModel(py::handle object) { return IsInstance(object, MjModelType()); }

const mjModel* MjModelAddress(py::handle model, const char* what) {
  return Address<const mjModel>(model, MjModelType(), "MjModel", what);
}

mjData* MjDataAddress(py::handle data, const mjModel& model, const char* what) {
  mjData* d = Address<mjData>(data, MjDataType(), "MjData", what);
  const mjModel* own = MjModelAddress(data.attr("model"), what);
  if (own != &model && !SameSizes(*own, model)) {
    throw py::value_error(std::string(what) + " was made from another model (nq " + std::to_string(own->nq) + ", nv " +
                          std::to_string(own->nv) + "; the model's: nq " + std::to_string(model.nq) + ", nv " +
                          std::to_string(model.nv) + ")");
  }
  return d;
}

namespace {

/// A setting given by keyword (`given`) and/or as the Options field `field` named `field_name` (which counts as given
/// when it differs from Options()'s value): the keyword's, else the options', else unset. Throws
/// std::invalid_argument when both give it with different values.
template <typename T>
std::optional<T> Merge(const char* keyword, const std::optional<T>& given, const Options& options, T Options::*field,
                       const char* field_name) {
  const T in_options = options.*field;
  if (in_options == Options().*field) return given;
  if (given && *given != in_options) {
    std::ostringstream message;
    message << keyword << ": " << *given << " given, and options." << field_name << " = " << in_options
            << ": give it once";
    throw std::invalid_argument(message.str());
  }
  return in_options;
}

}  // namespace

scenes::RunSettings SolverSettings(const std::string& solver, const std::string& narrow_phase,
                                   std::optional<double> stiffness, std::optional<double> dissipation,
                                   std::optional<double> stiction_tolerance, std::optional<int> threads,
                                   std::optional<int> max_iterations, const std::optional<Options>& options) {
  scenes::RunSettings settings;
  settings.solver = solver;
  settings.narrow_phase = narrow_phase;
  settings.stiffness = stiffness;
  settings.dissipation = dissipation;
  const Options given = options.value_or(Options());
  settings.iteration = given;
  settings.stiction_tolerance =
      Merge("stiction_tolerance", stiction_tolerance, given, &Options::stiction_tolerance, "stiction_tolerance");
  if (const auto t = Merge("threads", threads, given, &Options::num_threads, "num_threads"))
    settings.iteration.num_threads = *t;
  if (const auto m = Merge("max_iterations", max_iterations, given, &Options::max_iterations, "max_iterations"))
    settings.iteration.max_iterations = *m;
  return settings;
}

scenes::ModelPtr CopyModel(const mjModel& model) {
  scenes::InstallMujocoHandlers();
  return scenes::ModelPtr(mj_copyModel(nullptr, &model));
}

namespace {

/// The object `ref` refers to (null once it is gone, and for an empty weakref: never None, which a caller may pass),
/// for identity tests: read directly, where calling the weakref is a Python call.
PyObject* Referent(const py::weakref& ref) {
  if (!ref) return nullptr;
#if PY_VERSION_HEX >= 0x030D0000
  PyObject* object = nullptr;
  PyWeakref_GetRef(ref.ptr(), &object);  // a new reference (or null): released at once, the pointer only compared
  Py_XDECREF(object);
  return object;
#else
  PyObject* object = PyWeakref_GetObject(ref.ptr());
  return object == Py_None ? nullptr : object;
#endif
}

/// Steps a caller's mujoco.MjData in place with TAMSI, with the same C++ Simulator that `tamsi run MODEL.xml` and
/// tamsi.Simulator use, on a copy of the model taken at construction (the front end's tables, the solver's kept
/// analyses and workspaces live with it): Simulator::Step(mjData*) on data of the model itself, StepState (through
/// the simulator's own mjData) on data of another model with the same sizes.
class MujocoStepper {
 public:
  MujocoStepper(py::handle model, scenes::RunSettings settings)
      : settings_(std::move(settings)), source_address_(MjModelAddress(model, "model")) {
    source_ = py::weakref(model);
    Build(*source_address_);
  }

  /// The step, kept as last_step_ and returned (a copy taken under the lock: another thread may step next).
  scenes::StepInfo Step(py::handle model, py::handle data) {
    if (Referent(source_) != model.ptr()) {  // the type first, for its one-line TypeError
      MjModelAddress(model, "model");
      throw py::value_error("step: this Stepper was made for another model");
    }
    const mjModel* m = source_address_;  // a mujoco.MjModel keeps its mjModel for its whole life
    // The data's model is checked once per MjData object: the last one checked is held weakly.
    mjData* d = last_address_;
    if (Referent(last_data_) != data.ptr()) {
      d = MjDataAddress(data, *m, "data");
      last_data_ = py::weakref(data);
      last_address_ = d;
      last_in_place_ = MjModelAddress(data.attr("model"), "data") == m;
    }
    if (std::memcmp(&m->opt, &source_opt_, sizeof(mjOption)) != 0) Build(*m);
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    // Data of this very model is stepped in place; of another model with the same state sizes, through a copy.
    last_step_ = last_in_place_ ? simulator_->Step(d) : simulator_->StepState(d);
    return last_step_;
  }

  void Advance(py::handle model, py::handle data) { Step(model, data); }

  scenes::StepInfo last_step() {
    std::lock_guard<std::mutex> lock(mutex_);  // a step in another thread (GIL released) may be writing it
    return last_step_;
  }

  const scenes::Simulator& simulator() const { return *simulator_; }
  double time_step() const { return simulator_->time_step(); }

 private:
  /// (Re)builds the simulator on a fresh copy of the model: at construction, and when the model's options (mjOption:
  /// timestep, gravity, flags, ...) changed since.
  void Build(const mjModel& model) {
    scenes::Scene scene = scenes::SceneFromModel(CopyModel(model), "mujoco.MjModel");
    const scenes::SimulatorOptions options = scenes::MakeSimulatorOptions(settings_, scene);
    std::lock_guard<std::mutex> lock(mutex_);
    simulator_ = std::make_unique<scenes::Simulator>(std::move(scene.model), options);
    std::memcpy(&source_opt_, &model.opt, sizeof(mjOption));
  }

  scenes::RunSettings settings_;
  py::weakref source_, last_data_;
  const mjModel* source_address_;  // source_'s mjModel
  mjData* last_address_{nullptr};
  bool last_in_place_{false};  // last_data_ was made from source_ itself (then stepped in place)
  scenes::StepInfo last_step_;
  mjOption source_opt_{};
  std::unique_ptr<scenes::Simulator> simulator_;
  std::mutex mutex_;
};

/// The keywords of tamsi.step, in tamsi.Stepper's order.
constexpr const char* kStepKeywords[] = {"solver",  "narrow_phase",   "stiffness", "dissipation", "stiction_tolerance",
                                         "threads", "max_iterations", "options"};
constexpr int kNumStepKeywords = 8;

/// tamsi.step's previous call: its model (held weakly), its keyword values and the Stepper it stepped with, and the
/// number of forget() calls before it was made. Made once and never destroyed: it holds Python objects, which must
/// not be released after the interpreter ends. Read and written under the GIL.
struct LastStep {
  py::weakref model;
  py::object settings[kNumStepKeywords];
  py::object stepper;
  MujocoStepper* raw{nullptr};
};
LastStep& Last() {
  static LastStep* const last = new LastStep;
  return *last;
}
long long& Forgets() {
  static long long forgets = 0;
  return forgets;
}

/// tamsi.step: a call with the previous call's model and keyword values (each the same object or equal) goes
/// straight to its Stepper; any other gets the cached Stepper of its model and settings from tamsi.stepping. The
/// previous call's entry is compared and stepped through a copy (holding its Stepper): an __eq__ of a keyword value,
/// or another thread while the GIL is released, may forget or replace it meanwhile.
void Step(py::handle model, py::handle data, const py::object (&settings)[kNumStepKeywords]) {
  LastStep last = Last();
  bool same = last.raw != nullptr && Referent(last.model) == model.ptr();
  for (int k = 0; same && k < kNumStepKeywords; ++k)
    same = settings[k].is(last.settings[k]) || settings[k].equal(last.settings[k]);
  if (!same) {
    py::dict keywords;
    for (int k = 0; k < kNumStepKeywords; ++k) keywords[kStepKeywords[k]] = settings[k];
    const long long forgets = Forgets();
    last.stepper = py::module_::import("tamsi.stepping").attr("_cached_stepper")(model, keywords);
    last.raw = last.stepper.cast<MujocoStepper*>();
    last.model = py::weakref(model);
    std::copy(std::begin(settings), std::end(settings), std::begin(last.settings));
    if (forgets == Forgets()) Last() = last;  // a Stepper from before a forget() in between is not kept
  }
  last.raw->Advance(model, data);
}

/// The default value of each keyword of tamsi.step, RunSettings' as for tamsi.Stepper (made once, never destroyed,
/// as LastStep).
const py::object& StepDefault(int k) {
  static const py::object* const defaults = [] {
    const scenes::RunSettings settings;
    auto* values = new py::object[kNumStepKeywords];
    std::fill(values, values + kNumStepKeywords, py::none());
    values[0] = py::str(settings.solver);  // kStepKeywords' order
    values[1] = py::str(settings.narrow_phase);
    return values;
  }();
  return defaults[k];
}

/// Sets the Python error that pybind11 raises for the C++ exception `error` (its own translations and the module's
/// registered ones, e.g. StepFailedError): the exception is rethrown inside a bound function, whose call then fails.
void SetPythonError(std::exception_ptr error) {
  try {
    py::cpp_function([error] { std::rethrow_exception(error); })();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (...) {  // the bound function itself could not be made (out of memory): nothing may escape into CPython
    PyErr_SetString(PyExc_MemoryError, "tamsi.step: out of memory while raising its error");
  }
}

/// tamsi.step as a plain CPython function (vectorcall): a bound pybind11 function with these eight keywords spends
/// about 0.25 µs per call converting its defaults, 3–4 % of a 7 µs arm step.
PyObject* StepFunction(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* keyword_names) {
  try {
    if (nargs > 2)
      throw py::type_error("step() takes 2 arguments (model, data) but " + std::to_string(nargs) + " were given");
    PyObject* state[2] = {nargs > 0 ? args[0] : nullptr, nargs > 1 ? args[1] : nullptr};  // model, data
    constexpr const char* kStateNames[] = {"model", "data"};
    py::object settings[kNumStepKeywords];
    for (int k = 0; k < kNumStepKeywords; ++k) settings[k] = StepDefault(k);
    const Py_ssize_t num_keywords = keyword_names != nullptr ? PyTuple_GET_SIZE(keyword_names) : 0;
    for (Py_ssize_t i = 0; i < num_keywords; ++i) {
      PyObject* name = PyTuple_GET_ITEM(keyword_names, i);
      auto is = [name](const char* known) { return PyUnicode_CompareWithASCIIString(name, known) == 0; };
      const auto* setting = std::find_if(std::begin(kStepKeywords), std::end(kStepKeywords), is);
      const auto* argument = std::find_if(std::begin(kStateNames), std::end(kStateNames), is);
      if (setting != std::end(kStepKeywords)) {
        settings[setting - std::begin(kStepKeywords)] = py::reinterpret_borrow<py::object>(args[nargs + i]);
      } else if (argument != std::end(kStateNames) && state[argument - std::begin(kStateNames)] == nullptr) {
        state[argument - std::begin(kStateNames)] = args[nargs + i];
      } else {
        throw py::type_error(
            "step() got " +
            std::string(argument != std::end(kStateNames) ? "multiple values for" : "an unexpected keyword") +
            " argument '" + py::str(name).cast<std::string>() + "'");
      }
    }
    for (int a = 0; a < 2; ++a)
      if (state[a] == nullptr)
        throw py::type_error(std::string("step() missing required argument '") + kStateNames[a] + "'");
    Step(state[0], state[1], settings);
    Py_RETURN_NONE;
  } catch (...) {
    SetPythonError(std::current_exception());
    return nullptr;
  }
}

PyMethodDef kStepMethod = {
    "step", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(StepFunction)), METH_FASTCALL | METH_KEYWORDS,
    R"doc(step(model, data, *, solver='tamsi', narrow_phase='analytic', stiffness=None, dissipation=None, stiction_tolerance=None, threads=None, max_iterations=None, options=None)
--

Advances data (a mujoco.MjData of model) by one time step model.opt.timestep with TAMSI, in place, like
mujoco.mj_step(model, data), and like it returns None; the step's tamsi.StepInfo (Newton iterations, contacts,
times): tamsi.last_step(model).

Keywords as tamsi.Simulator's: solver ("tamsi", "tamsi-oneway"), narrow_phase ("analytic", "mujoco"), stiffness
(N/m) and dissipation (s/m) overriding MJCF user data, stiction_tolerance v_s (m/s; 1e-4 when None), threads (1 when
None), max_iterations, options (a tamsi.Options, whose stiction_tolerance, num_threads and max_iterations count where
they differ from Options()'s). Each model's tamsi.Stepper is cached (tamsi.stepping); a call with the previous call's
model and keyword values goes straight to it. Raises TypeError (one line) when model or data is not a
mujoco.MjModel / mujoco.MjData or a keyword has the wrong type, ValueError for data of another model, a bad setting or
one given both as a keyword and in options with different values, StepFailedError (the state of data unchanged) when
every substep retry failed.
)doc"};

constexpr const char* kStepperDoc = R"doc(
Steps MuJoCo's own mujoco.MjData with TAMSI, in place: the C++ simulator of `tamsi run MODEL.xml` (the same front end,
solver and defaults), on a copy of the model taken when the Stepper is made.

Stepper(model, *, solver="tamsi", narrow_phase="analytic", stiffness=None, dissipation=None,
        stiction_tolerance=None, threads=None, max_iterations=None, options=None)

  model               a mujoco.MjModel; its opt.timestep is the time step h
  keywords            as tamsi.Simulator's (solver "tamsi", "tamsi-oneway" or "mujoco"; stiffness and dissipation
                      override MJCF user data; stiction_tolerance v_s in m/s, 1e-4 when None; options a tamsi.Options
                      whose stiction_tolerance, num_threads and max_iterations count where they differ from
                      Options()'s, ValueError when a keyword gives another value)

step(model, data) advances data by one step h and returns the step's tamsi.StepInfo; advance(model, data) takes the
same step and returns None, as mujoco.mj_step does (its StepInfo: last_step). A step reads qpos, qvel, act, time and
the inputs ctrl, qfrc_applied, xfrc_applied, mocap_pos, mocap_quat, userdata, eq_active and plugin_state; writes the
new qpos, qvel, act and time.
Data made from this model is stepped in place and, as after mujoco.mj_step, holds what TAMSI's front end computed at
the step's start state: kinematics (xpos, site_xpos, ...), contacts, actuator and passive forces; not sensors nor
MuJoCo's constraint arrays (call mujoco.mj_forward for those, and for anything at the new state). Data made from
another model with the same sizes, or whose arena is too small for the step, is stepped through the Stepper's own
data: then only its qpos, qvel, act and time are the step's. Raises TypeError for objects that are not
mujoco.MjModel / mujoco.MjData, ValueError for data of another model, StepFailedError (data's state unchanged) when
every substep retry failed.

The copy keeps the front end's tables and the solver's analyses from step to step. It is rebuilt when model.opt
(timestep, gravity, flags, ...) changed since the last step; other edits of the model (masses, friction, gains) are
not seen by a Stepper made before them: make a new one (tamsi.step: tamsi.forget(model)).
)doc";

}  // namespace

void BindMujoco(py::module_& m) {
  py::class_<MujocoStepper> s(m, "Stepper", kStepperDoc);
  s.def(py::init([](py::handle model, const std::string& solver, const std::string& narrow_phase,
                    std::optional<double> stiffness, std::optional<double> dissipation,
                    std::optional<double> stiction_tolerance, std::optional<int> threads,
                    std::optional<int> max_iterations, std::optional<Options> options) {
          return std::make_unique<MujocoStepper>(
              model, SolverSettings(solver, narrow_phase, stiffness, dissipation, stiction_tolerance, threads,
                                    max_iterations, options));
        }),
        py::arg("model"), py::kw_only(), py::arg("solver") = scenes::RunSettings().solver,
        py::arg("narrow_phase") = scenes::RunSettings().narrow_phase, py::arg("stiffness") = py::none(),
        py::arg("dissipation") = py::none(), py::arg("stiction_tolerance") = py::none(),
        py::arg("threads") = py::none(), py::arg("max_iterations") = py::none(), py::arg("options") = py::none());
  s.def("step", &MujocoStepper::Step, py::arg("model"), py::arg("data"),
        "Advances data (a mujoco.MjData of model) by one time step h in place (GIL released); its StepInfo.");
  s.def("advance", &MujocoStepper::Advance, py::arg("model"), py::arg("data"),
        "step(model, data) without its return value (GIL released): None, as mujoco.mj_step returns; see last_step.");
  s.def_property_readonly("last_step", &MujocoStepper::last_step,
                          "The StepInfo of the last step or advance (a StepInfo of zeros before the first)");
  s.def_property_readonly("time_step", &MujocoStepper::time_step, "h (s): the model's opt.timestep");
  m.add_object("step",
               py::reinterpret_steal<py::object>(PyCFunction_NewEx(&kStepMethod, nullptr, m.attr("__name__").ptr())));
  m.def(
      "_forget_last_step",
      [] {
        ++Forgets();
        Last() = LastStep();
      },
      "Drops tamsi.step's previous-call shortcut (tamsi.forget calls it).");
  s.def_property_readonly(
      "statistics", [](const MujocoStepper& stepper) { return stepper.simulator().statistics(); },
      "RunStatistics over the steps this Stepper took (since its last rebuild)");
}

}  // namespace tamsi::python
