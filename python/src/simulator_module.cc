#include <mujoco/mujoco.h>
#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <tamsi/scenes/mujoco_frontend.h>
#include <tamsi/scenes/mujoco_model.h>
#include <tamsi/scenes/run.h>
#include <tamsi/scenes/run_settings.h>
#include <tamsi/scenes/scene_library.h>
#include <tamsi/scenes/simulator.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.h"

namespace py = pybind11;

namespace tamsi::python {
namespace {

using scenes::RunStatistics;
using scenes::StepInfo;

/// What a run does with Python between steps, with the GIL taken: raises Python's pending signals (Ctrl-C), and
/// moves a progress bar (tamsi._progress) at most every kProgressInterval.
class PythonHooks : public scenes::RunObserver {
 public:
  static constexpr double kProgressInterval = 0.1;  // s (wall clock)

  void OnStep(const scenes::Run& run) override {
    py::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (!bar_ || bar_->is_none()) return;
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last_update_).count() < kProgressInterval) return;
    last_update_ = now;
    bar_->attr("update")(run.time() - start_time_);
  }

  /// Shows the progress of the steps from `start_time` (s) on `bar` (a tamsi._progress.Bar, or None for none) until
  /// Unwatch.
  void Watch(py::object* bar, double start_time) {
    bar_ = bar;
    start_time_ = start_time;
  }
  void Unwatch() { bar_ = nullptr; }

 private:
  py::object* bar_{nullptr};
  double start_time_{0.0};
  std::chrono::steady_clock::time_point last_update_;
};

/// The state a controller must leave alone (qpos, qvel, act, time): saved before it runs, compared bitwise after.
class StateGuard {
 public:
  void Save(const mjModel& m, const mjData& d) {
    qpos_.assign(d.qpos, d.qpos + m.nq);
    qvel_.assign(d.qvel, d.qvel + m.nv);
    act_.assign(d.act, d.act + m.na);
    time_ = d.time;
  }
  /// The name of the first of qpos, qvel, act and time that differs from the saved one; null when none does.
  const char* Changed(const mjModel& m, const mjData& d) const {
    if (std::memcmp(qpos_.data(), d.qpos, sizeof(double) * m.nq) != 0) return "qpos";
    if (std::memcmp(qvel_.data(), d.qvel, sizeof(double) * m.nv) != 0) return "qvel";
    if (m.na > 0 && std::memcmp(act_.data(), d.act, sizeof(double) * m.na) != 0) return "act";
    if (std::memcmp(&time_, &d.time, sizeof(double)) != 0) return "time";
    return nullptr;
  }
  void Restore(mjData* d) const {
    std::copy(qpos_.begin(), qpos_.end(), d->qpos);
    std::copy(qvel_.begin(), qvel_.end(), d->qvel);
    std::copy(act_.begin(), act_.end(), d->act);
    d->time = time_;
  }

 private:
  std::vector<double> qpos_, qvel_, act_;
  double time_{0.0};
};

/// A scene being simulated: its scenes::Run (the scene's controller, sensor and checks wired), with the Python
/// controller after the scene's. Steps release the GIL and take it back only to call the Python controller, to
/// check for signals and to move the progress bar.
class Simulation {
 public:
  /// `friction` replaces every geom's sliding friction before the simulator is built.
  Simulation(scenes::Scene scene, scenes::RunRequest request, std::optional<double> friction, py::object controller)
      : controller_(std::move(controller)) {
    if (friction) SetFriction(&scene, *friction);
    if (!controller_.is_none()) {
      request.controller = [this](const mjModel& model, mjData* data) {
        py::gil_scoped_acquire acquire;
        guard_.Save(model, *data);
        controller_(py::cast(this, py::return_value_policy::reference));
        if (const char* field = guard_.Changed(model, *data)) {
          guard_.Restore(data);
          throw std::runtime_error(std::string("controller: changed ") + field +
                                   "; a controller may only set ctrl and applied forces (qfrc_applied, "
                                   "xfrc_applied): the state is left as before the step");
        }
      };
    }
    run_ = std::make_unique<scenes::Run>(std::move(scene), request);
    auto hooks = std::make_unique<PythonHooks>();
    hooks_ = hooks.get();
    run_->AddObserver(std::move(hooks));
  }

  StepInfo Step() {
    py::gil_scoped_release release;
    return run_->Step();
  }

  /// Steps until `duration` (s) more has been simulated (at least one step); the scene's duration when None.
  /// Raises ValueError unless `duration` is finite, > 0 and at most 1e12 steps; Python's signals (Ctrl-C) are seen
  /// between steps. On a terminal (stderr) a progress bar shows runs longer than a second.
  const RunStatistics& Run(std::optional<double> duration) {
    const double span = duration.value_or(run_->duration());
    py::object bar = py::module_::import("tamsi._progress").attr("terminal_bar")(span, "s simulated");
    hooks_->Watch(&bar, time());
    try {
      py::gil_scoped_release release;
      run_->Advance(span);
    } catch (...) {
      Finish(&bar);
      throw;
    }
    Finish(&bar);
    return simulator().statistics();
  }

  /// Back to the start (scenes::Run::Reset): the keyframe the simulator was made from when None.
  void Reset(const std::optional<std::string>& keyframe) { run_->Reset(keyframe); }

  const mjModel& model() const { return run_->model(); }
  mjData& data() { return simulator().data(); }
  double time() const { return run_->time(); }
  double time_step() const { return run_->time_step(); }
  const scenes::Scene& scene() const { return run_->scene(); }
  const scenes::Simulator& simulator() const { return run_->simulator(); }
  scenes::Simulator& simulator() { return run_->simulator(); }
  /// Whether a step was taken since the simulator was made or reset.
  bool stepped() const { return run_->step() > 0; }

  /// The id of the model's `type` object `name`; ValueError listing the names when there is none.
  int Id(mjtObj type, const std::string& name, const char* what) const {
    const int id = mj_name2id(&model(), type, name.c_str());
    if (id < 0) throw std::invalid_argument(std::string("no ") + what + " '" + name + "' in the model");
    return id;
  }

 private:
  /// Replaces the sliding friction of every geom (MJCF friction[0]; a contact takes the larger of its geoms').
  static void SetFriction(scenes::Scene* scene, double mu) {
    if (!(mu >= 0.0) || !std::isfinite(mu))
      throw std::invalid_argument("friction: must be finite and >= 0, got " + std::to_string(mu));
    for (int g = 0; g < scene->model->ngeom; ++g) scene->model->geom_friction[3 * g] = mu;
  }

  /// Ends a run's progress bar.
  void Finish(py::object* bar) {
    hooks_->Unwatch();
    if (!bar->is_none()) bar->attr("clear")();
  }

  py::object controller_;
  StateGuard guard_;
  std::unique_ptr<scenes::Run> run_;
  PythonHooks* hooks_{nullptr};  // owned by run_
};

/// The scene `scene` names: a built-in scene's name or a model file's path (str or os.PathLike), or a copy of a
/// mujoco.MjModel (with the defaults of a model file). TypeError (one line) for anything else.
scenes::Scene LoadScene(py::handle scene, scenes::RunRequest& request) {
  if (py::isinstance<py::str>(scene) || py::hasattr(scene, "__fspath__")) {
    request.scene = py::str(py::module_::import("os").attr("fspath")(scene)).cast<std::string>();
    return scenes::LoadScene(request.scene, request.scene_options);
  }
  if (!IsMjModel(scene)) {
    throw py::type_error("Simulator: scene must be a scene name, a model file's path or a mujoco.MjModel, got " +
                         py::str(py::type::of(scene).attr("__qualname__")).cast<std::string>());
  }
  return scenes::SceneFromModel(CopyModel(*MjModelAddress(scene, "scene")), "mujoco.MjModel");
}

Eigen::VectorXd Copy(const double* values, int size) { return Eigen::Map<const Eigen::VectorXd>(values, size); }

/// Throws ValueError naming `field` and the first entry of values[0, n) that is not finite or beyond `bound` in
/// magnitude.
void CheckValues(const double* values, Eigen::Index n, const char* field, double bound) {
  for (Eigen::Index i = 0; i < n; ++i)
    if (!std::isfinite(values[i]) || std::abs(values[i]) > bound)
      throw std::invalid_argument(std::string(field) + "[" + std::to_string(i) + "]: must be finite" +
                                  (std::isinf(bound) ? "" : " and at most 1e10 in magnitude (MuJoCo's mjMAXVAL)") +
                                  ", got " + std::to_string(values[i]));
}

/// Copies `values` (finite, at most `bound` in magnitude) into target[0, size).
void Assign(double* target, const Eigen::VectorXd& values, int size, const char* field,
            double bound = std::numeric_limits<double>::infinity()) {
  if (values.size() != size)
    throw std::invalid_argument(std::string(field) + ": expected " + std::to_string(size) + " values, got " +
                                std::to_string(values.size()));
  CheckValues(values.data(), values.size(), field, bound);
  Eigen::Map<Eigen::VectorXd>(target, size) = values;
}

std::vector<std::string> Names(const mjModel& model, mjtObj type, int count) {
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) {
    const char* name = mj_id2name(&model, type, i);
    names.push_back(name ? name : "");
  }
  return names;
}

/// The number of qpos and qvel entries of joint j.
int JointPositions(const mjModel& model, int j) {
  const int type = model.jnt_type[j];
  return type == mjJNT_FREE ? 7 : type == mjJNT_BALL ? 4 : 1;
}
int JointVelocities(const mjModel& model, int j) {
  const int type = model.jnt_type[j];
  return type == mjJNT_FREE ? 6 : type == mjJNT_BALL ? 3 : 1;
}

/// The last step's contacts as arrays, from either engine (scenes::Simulator::LastContacts).
py::dict Contacts(const Simulation& s) {
  if (!s.stepped()) throw std::runtime_error("contacts: no step yet (since the simulator was made or reset)");
  const std::vector<scenes::ContactRecord> records = s.simulator().LastContacts();
  const int n = static_cast<int>(records.size());
  Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor> position(n, 3), normal(n, 3);
  Eigen::Matrix<double, Eigen::Dynamic, 2, Eigen::RowMajor> ft(n, 2);
  Eigen::VectorXd penetration(n), fn(n);
  std::vector<int> geom1(n), geom2(n), object(n);
  std::vector<std::string> kind(n);
  for (int i = 0; i < n; ++i) {
    const scenes::ContactRecord& r = records[i];
    position.row(i) = r.info.position.transpose();
    normal.row(i) = r.info.normal.transpose();
    ft.row(i) << r.ft1, r.ft2;
    penetration[i] = r.penetration;
    fn[i] = r.fn;
    geom1[i] = r.info.geom1;
    geom2[i] = r.info.geom2;
    object[i] = r.info.object;
    kind[i] = scenes::ToString(r.info.kind);
  }
  py::dict d;
  d["kind"] = kind;
  d["geom1"] = py::array_t<int>(n, geom1.data());
  d["geom2"] = py::array_t<int>(n, geom2.data());
  d["object"] = py::array_t<int>(n, object.data());
  d["position"] = position;
  d["normal"] = normal;
  d["penetration"] = penetration;
  d["fn"] = fn;
  d["ft"] = ft;
  return d;
}

/// The (rows, 6) row-major array `values` copied into `target`; ValueError naming `field` for another shape.
void AssignRows6(double* target, const py::array_t<double, py::array::c_style | py::array::forcecast>& values, int rows,
                 const char* field) {
  if (values.ndim() != 2 || values.shape(0) != rows || values.shape(1) != 6) {
    std::string shape;
    for (py::ssize_t k = 0; k < values.ndim(); ++k) shape += (k ? ", " : "") + std::to_string(values.shape(k));
    throw std::invalid_argument(std::string(field) + ": expected shape (" + std::to_string(rows) + ", 6), got (" +
                                shape + (values.ndim() == 1 ? ",)" : ")"));
  }
  CheckValues(values.data(), 6 * rows, field, std::numeric_limits<double>::infinity());
  std::copy_n(values.data(), 6 * rows, target);
}

constexpr const char* kSimulatorDoc = R"doc(
Simulates a built-in scene (tamsi.scenes()), an MJCF/URDF file or a mujoco.MjModel (copied, with a model file's
defaults) with TAMSI or MuJoCo's own engine, as `tamsi run`.

Simulator(scene="gripper_mug_shake", *, solver="tamsi", mujoco_solver="", narrow_phase="analytic", dt=None,
          stiffness=None, dissipation=None, stiction_tolerance=None, threads=None, max_iterations=None, options=None,
          keyframe="", bodies=200, seed=1, drop_speed=0.0, friction=None, controller=None)

  solver              "tamsi", "mujoco" (MuJoCo's own solver), or "tamsi-oneway" (tamsi with coupling one_way)
  mujoco_solver       with solver "mujoco": "newton", "cg" or "pgs" ("" keeps the model's)
  dt                  time step h (s); the model's when None
  stiffness, dissipation
                      per-geom Hunt-Crossley k (N/m) and d (s/m) overriding MJCF user data
  stiction_tolerance  v_s (m/s); options.stiction_tolerance, else the scene's, when None
  threads             solver threads (0: all); options.num_threads, else 1, when None
  max_iterations      Newton iteration cap; options.max_iterations, else Options()'s, when None
  options             a tamsi.Options for the Newton iteration (newton_solve, friction_newton, krylov_tolerance,
                      secant_safeguard, coupling, ...). Its stiction_tolerance, num_threads and max_iterations
                      count where they differ from Options()'s: a keyword above giving another value raises ValueError
                      naming it
  bodies, seed, drop_speed
                      clutter_bin: number of free bodies, their seed, initial downward speed (m/s)
  friction            Coulomb mu of every geom (MJCF friction[0]), replacing the model's
  controller          callable(sim) run at the start of every step (after the scene's own controller): it may read
                      the state and set inputs (sim.set_control, sim.ctrl, sim.qfrc_applied, sim.xfrc_applied); a
                      controller that changes qpos, qvel, act or time makes the step raise RuntimeError (one line,
                      the state left as before the step)

Raises TypeError (one line naming the argument) for an argument of the wrong type, ValueError for an unknown scene
or setting (named), ModelLoadError for a file MuJoCo cannot load,
RuntimeError (one line naming TAMSI_MODELS_DIR) for a robot scene without the models folder (README, "Models").
step() raises StepFailedError (the state is that before the step) when every substep retry failed.
)doc";

void BindStepInfo(py::module_& m) {
  py::class_<StepInfo> s(m, "StepInfo", "What one step did.");
  s.def_readonly("substeps", &StepInfo::substeps);
  s.def_readonly("iterations", &StepInfo::iterations, "Newton iterations (MuJoCo: its solver iterations)");
  s.def_readonly("contacts", &StepInfo::contacts, "geom contacts");
  s.def_readonly("limit_rows", &StepInfo::limit_rows);
  s.def_readonly("equality_rows", &StepInfo::equality_rows);
  s.def_readonly("failed_solves", &StepInfo::failed_solves);
  s.def_readonly("time_frontend", &StepInfo::time_frontend, "s");
  s.def_readonly("time_solve", &StepInfo::time_solve, "s");
  s.def_readonly("wall_time", &StepInfo::wall_time, "s, the step's own wall time (measured even untimed)");
  s.def_readonly("fast_bodies", &StepInfo::fast_bodies, "free bodies at risk of tunnelling");
  BindCounters(s, &StepInfo::counters);

  py::class_<RunStatistics> r(m, "RunStatistics", "Totals over the steps taken; str() is the end-of-run summary.");
  r.def_readonly("steps", &RunStatistics::steps);
  r.def_readonly("sim_time", &RunStatistics::sim_time, "s");
  r.def_readonly("wall_time", &RunStatistics::wall_time, "s in step()");
  r.def_readonly("time_frontend", &RunStatistics::time_frontend, "s");
  r.def_readonly("time_solve", &RunStatistics::time_solve, "s");
  r.def_readonly("iterations_total", &RunStatistics::iterations_total);
  r.def_readonly("iterations_max", &RunStatistics::iterations_max);
  r.def_readonly("retried_steps", &RunStatistics::retried_steps);
  r.def_readonly("failed_solves", &RunStatistics::failed_solves);
  r.def_readonly("contacts_total", &RunStatistics::contacts_total);
  r.def_readonly("contacts_max", &RunStatistics::contacts_max);
  r.def_readonly("solves", &RunStatistics::solves);
  r.def_readonly("structure_reuses", &RunStatistics::structure_reuses);
  r.def_readonly("tunnelling_steps", &RunStatistics::tunnelling_steps);
  BindCounters(r, &RunStatistics::counters);
  r.def_property_readonly("iterations_mean", &RunStatistics::iterations_mean);
  r.def_property_readonly("contacts_mean", &RunStatistics::contacts_mean);
  r.def_property_readonly("real_time_rate", &RunStatistics::real_time_rate, "simulated s per wall-clock s");
  r.def("report", &RunStatistics::Report);
  r.def("__str__", &RunStatistics::Report);
}

void BindSimulation(py::module_& m) {
  py::class_<Simulation> s(m, "Simulator", kSimulatorDoc);
  s.def(py::init([](py::object scene, const std::string& solver, const std::string& mujoco_solver,
                    const std::string& narrow_phase, std::optional<double> dt, std::optional<double> stiffness,
                    std::optional<double> dissipation, std::optional<double> stiction_tolerance,
                    std::optional<int> threads, std::optional<int> max_iterations, std::optional<Options> options,
                    const std::string& keyframe, int bodies, std::uint32_t seed, double drop_speed,
                    std::optional<double> friction, py::object controller) {
          scenes::RunRequest request;
          request.settings = SolverSettings(solver, narrow_phase, stiffness, dissipation, stiction_tolerance, threads,
                                            max_iterations, options);
          request.settings.mujoco_solver = mujoco_solver;
          request.settings.time_step = dt;
          request.keyframe = keyframe;
          request.scene_options.clutter_bodies = bodies;
          request.scene_options.clutter_seed = seed;
          request.scene_options.clutter_drop_speed = drop_speed;
          return std::make_unique<Simulation>(LoadScene(scene, request), std::move(request), friction,
                                              std::move(controller));
        }),
        py::arg("scene") = scenes::DefaultSceneName(), py::kw_only(), py::arg("solver") = scenes::RunSettings().solver,
        py::arg("mujoco_solver") = scenes::RunSettings().mujoco_solver,
        py::arg("narrow_phase") = scenes::RunSettings().narrow_phase, py::arg("dt") = py::none(),
        py::arg("stiffness") = py::none(), py::arg("dissipation") = py::none(),
        py::arg("stiction_tolerance") = py::none(), py::arg("threads") = py::none(),
        py::arg("max_iterations") = py::none(), py::arg("options") = py::none(), py::arg("keyframe") = "",
        py::arg("bodies") = 200, py::arg("seed") = 1, py::arg("drop_speed") = 0.0, py::arg("friction") = py::none(),
        py::arg("controller") = py::none());
  s.def("step", &Simulation::Step, "Advances one time step h (GIL released); returns its StepInfo.");
  s.def(
      "run", &Simulation::Run, py::arg("duration") = py::none(), py::return_value_policy::copy,
      "Steps until `duration` s more is simulated (the scene's duration when None); returns the statistics. On a "
      "terminal (stderr a TTY) a progress bar shows runs that take longer than a second. Raises ValueError unless "
      "duration is finite, > 0 and at most 1e12 steps, KeyboardInterrupt on Ctrl-C (between steps), StepFailedError.");
  s.def_property_readonly("name", [](const Simulation& sim) { return sim.scene().name; });
  s.def_property_readonly(
      "duration", [](const Simulation& sim) { return sim.scene().duration; }, "the scene's default duration (s)");
  s.def_property_readonly("time", &Simulation::time, "simulated time (s)");
  s.def_property_readonly("time_step", &Simulation::time_step, "h (s)");
  s.def_property_readonly("nq", [](const Simulation& sim) { return sim.model().nq; });
  s.def_property_readonly("nv", [](const Simulation& sim) { return sim.model().nv; });
  s.def_property_readonly("nu", [](const Simulation& sim) { return sim.model().nu; });
  s.def_property(
      "qpos", [](Simulation& sim) { return Copy(sim.data().qpos, sim.model().nq); },
      [](Simulation& sim, const Eigen::VectorXd& q) { Assign(sim.data().qpos, q, sim.model().nq, "qpos"); },
      "generalized positions (nq; m, rad, quaternions), a copy; assign to set");
  s.def_property(
      "qvel", [](Simulation& sim) { return Copy(sim.data().qvel, sim.model().nv); },
      [](Simulation& sim, const Eigen::VectorXd& v) { Assign(sim.data().qvel, v, sim.model().nv, "qvel"); },
      "generalized velocities (nv; m/s, rad/s), a copy; assign to set");
  s.def_property(
      "ctrl", [](Simulation& sim) { return Copy(sim.data().ctrl, sim.model().nu); },
      [](Simulation& sim, const Eigen::VectorXd& u) { Assign(sim.data().ctrl, u, sim.model().nu, "ctrl", mjMAXVAL); },
      "actuator controls (nu), a copy; assign to set");
  s.def_property(
      "qfrc_applied", [](Simulation& sim) { return Copy(sim.data().qfrc_applied, sim.model().nv); },
      [](Simulation& sim, const Eigen::VectorXd& f) {
        Assign(sim.data().qfrc_applied, f, sim.model().nv, "qfrc_applied");
      },
      "applied generalized forces (nv; N or N m), a copy; assign an (nv,) array to set them for the following steps "
      "(ValueError for another length)");
  s.def_property(
      "xfrc_applied",
      [](Simulation& sim) {
        const int nbody = sim.model().nbody;
        return Eigen::Matrix<double, Eigen::Dynamic, 6, Eigen::RowMajor>(
            Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, 6, Eigen::RowMajor>>(sim.data().xfrc_applied, nbody,
                                                                                        6));
      },
      [](Simulation& sim, const py::array_t<double, py::array::c_style | py::array::forcecast>& f) {
        AssignRows6(sim.data().xfrc_applied, f, sim.model().nbody, "xfrc_applied");
      },
      "applied Cartesian wrenches (nbody x 6; row b: force (N) then torque (N m), world frame, at body b's center of "
      "mass, as MuJoCo's mjData.xfrc_applied), a copy; assign an (nbody, 6) array to set them for the following "
      "steps (ValueError for another shape)");
  s.def_property_readonly(
      "sensordata", [](Simulation& sim) { return Copy(sim.simulator().Sensors(), sim.model().nsensordata); },
      "MuJoCo's sensor readings at the current state and inputs (nsensordata; each sensor's units), as mj_forward "
      "computes them, a copy; computing them leaves the state and the last step's contacts unchanged. Force, touch "
      "and acceleration sensors read MuJoCo's constraint solution at that state, not TAMSI's forces.");
  s.def(
      "sensor",
      [](Simulation& sim, const std::string& name) {
        const int id = sim.Id(mjOBJ_SENSOR, name, "sensor");
        return Copy(sim.simulator().Sensors() + sim.model().sensor_adr[id], sim.model().sensor_dim[id]);
      },
      py::arg("name"),
      "The sensor's readings at the current state (its sensor_dim values, e.g. 3 for a framepos, 1 for a touch), "
      "as in sensordata. Raises ValueError for an unknown name.");
  s.def_property_readonly("sensor_names",
                          [](const Simulation& sim) { return Names(sim.model(), mjOBJ_SENSOR, sim.model().nsensor); });
  s.def("reset", &Simulation::Reset, py::arg("keyframe") = py::none(),
        "Starts afresh, as MuJoCo's mj_resetData / mj_resetDataKeyframe: keyframe None returns to the state the "
        "simulator was made from (its keyframe argument: the model's first keyframe when \"\", qpos0 at rest without "
        "one), a name to that keyframe. Time 0; ctrl, qfrc_applied, xfrc_applied and activations from the keyframe "
        "or zero; statistics, checks and the scene's controller as new. The steps that follow equal a new "
        "simulator's, bitwise. Raises ValueError for an unknown keyframe (naming the model's).");
  s.def_property_readonly("joint_names",
                          [](const Simulation& sim) { return Names(sim.model(), mjOBJ_JOINT, sim.model().njnt); });
  s.def_property_readonly("actuator_names",
                          [](const Simulation& sim) { return Names(sim.model(), mjOBJ_ACTUATOR, sim.model().nu); });
  s.def_property_readonly("body_names",
                          [](const Simulation& sim) { return Names(sim.model(), mjOBJ_BODY, sim.model().nbody); });
  s.def_property_readonly("geom_names",
                          [](const Simulation& sim) { return Names(sim.model(), mjOBJ_GEOM, sim.model().ngeom); });
  s.def(
      "joint_qpos",
      [](Simulation& sim, const std::string& name) {
        const int j = sim.Id(mjOBJ_JOINT, name, "joint");
        return Copy(sim.data().qpos + sim.model().jnt_qposadr[j], JointPositions(sim.model(), j));
      },
      py::arg("name"), "the joint's positions (1 for hinge/slide, 4 ball, 7 free; m or rad)");
  s.def(
      "joint_qvel",
      [](Simulation& sim, const std::string& name) {
        const int j = sim.Id(mjOBJ_JOINT, name, "joint");
        return Copy(sim.data().qvel + sim.model().jnt_dofadr[j], JointVelocities(sim.model(), j));
      },
      py::arg("name"), "the joint's velocities (1 for hinge/slide, 3 ball, 6 free; m/s or rad/s)");
  s.def(
      "control",
      [](Simulation& sim, const std::string& name) {
        return sim.data().ctrl[sim.Id(mjOBJ_ACTUATOR, name, "actuator")];
      },
      py::arg("name"), "the actuator's control");
  s.def(
      "set_control",
      [](Simulation& sim, const std::string& name, double value) {
        const int a = sim.Id(mjOBJ_ACTUATOR, name, "actuator");
        if (!(std::abs(value) <= mjMAXVAL))
          throw std::invalid_argument("set_control: '" + name +
                                      "': the value must be finite and at most 1e10 in magnitude (MuJoCo's mjMAXVAL), "
                                      "got " +
                                      std::to_string(value));
        sim.data().ctrl[a] = value;
      },
      py::arg("name"), py::arg("value"),
      "sets the actuator's control (finite, |value| <= 1e10, MuJoCo's mjMAXVAL; ValueError otherwise)");
  s.def(
      "actuator_force",
      [](Simulation& sim, const std::string& name) {
        return sim.data().actuator_force[sim.Id(mjOBJ_ACTUATOR, name, "actuator")];
      },
      py::arg("name"), "the actuator's force of the last step (N or N m)");
  s.def(
      "body_pose",
      [](Simulation& sim, const std::string& name) {
        const int b = sim.Id(mjOBJ_BODY, name, "body");
        sim.simulator().UpdateKinematics();
        return std::make_pair(Copy(sim.data().xpos + 3 * b, 3), Copy(sim.data().xquat + 4 * b, 4));
      },
      py::arg("name"), "(position (3, m), orientation quaternion (4, w x y z)) of the body in the world");
  s.def("contacts", &Contacts,
        "The last step's contacts, at the positions it started from, as a dict of arrays of n rows, the same fields "
        "and shapes for either engine: kind ('geoms', 'joint_limit', 'tendon_limit'; MuJoCo's engine: geoms only), "
        "geom1, geom2 (n; -1 for limits), object (n; joint/tendon id of limits, else -1), position (n x 3, m, world), "
        "normal (n x 3, from geom1 to geom2), penetration (n, m, > 0 overlapping), fn (n, N, >= 0, pushing the geoms "
        "apart), ft (n x 2, N, along the contact frame's two tangents; `tamsi run --contacts` columns ft1, ft2). "
        "TAMSI: its fn and ft; MuJoCo: mj_contactForce. Raises RuntimeError before the first step (or after reset).");
  s.def(
      "normal_force_between",
      [](const Simulation& sim, const std::string& body_a, const std::string& body_b) {
        return sim.simulator().NormalForceBetween(sim.Id(mjOBJ_BODY, body_a, "body"),
                                                  sim.Id(mjOBJ_BODY, body_b, "body"));
      },
      py::arg("body_a"), py::arg("body_b"), "the last step's normal force between two bodies' geoms (N)");
  s.def_property_readonly(
      "statistics", [](const Simulation& sim) { return sim.simulator().statistics(); }, "RunStatistics so far");
  s.def(
      "reset_statistics", [](Simulation& sim) { sim.simulator().ResetStatistics(); },
      "Starts the statistics afresh; the state stays.");
  s.def(
      "checks",
      [](const Simulation& sim) {
        py::list checks;
        if (!sim.scene().checks) return checks;
        for (const scenes::CheckResult& c : sim.scene().checks->Results()) {
          py::dict d;
          d["name"] = c.name;
          d["value"] = c.value;
          d["bound"] = c.bound;
          d["passed"] = c.passed;
          checks.append(d);
        }
        return checks;
      },
      "The scene's success checks over the steps taken: a list of dicts {name, value, bound, passed}.");
  s.def_property_readonly(
      "last_problem", [](const Simulation& sim) { return sim.simulator().last_problem(); },
      "the last ContactProblem built (a copy)");
  s.def_property_readonly(
      "last_result", [](const Simulation& sim) { return sim.simulator().last_result(); },
      "the last successful TAMSI Result (a copy)");
}

}  // namespace

void BindSimulator(py::module_& m) {
  py::register_exception<scenes::StepFailedError>(m, "StepFailedError", PyExc_RuntimeError);
  py::register_exception<scenes::ModelLoadError>(m, "ModelLoadError", PyExc_ValueError);
  py::register_exception<scenes::UnknownSceneError>(m, "UnknownSceneError", PyExc_ValueError);
  py::register_exception<scenes::MujocoError>(m, "MujocoError", PyExc_RuntimeError);
  m.def(
      "scenes",
      [] {
        std::vector<std::pair<std::string, std::string>> list;
        for (const scenes::SceneDescription& d : scenes::BuiltinScenes()) list.emplace_back(d.name, d.description);
        return list;
      },
      "The built-in scenes: a list of (name, description), the default first.");
  BindStepInfo(m);
  BindSimulation(m);
}

}  // namespace tamsi::python
