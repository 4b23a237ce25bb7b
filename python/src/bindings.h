#pragma once
/// @file
/// The parts of the Python module tamsi._tamsi, one function per C++ library bound, and what they share.

#include <mujoco/mujoco.h>
#include <pybind11/pybind11.h>
#include <tamsi/scenes/mujoco_model.h>
#include <tamsi/scenes/run_settings.h>
#include <tamsi/tamsi_solver.h>

#include <optional>
#include <string>

namespace tamsi::python {

/// ContactProblem, Options (and their enums), Summary, Result, TamsiSolver, the problem file IO.
void BindSolver(pybind11::module_& m);
/// Simulator over a built-in scene, an MJCF file or a mujoco.MjModel, its step information, statistics and contacts.
void BindSimulator(pybind11::module_& m);
/// Stepper: MuJoCo's own Python objects (mujoco.MjModel, mujoco.MjData) stepped with TAMSI in place.
void BindMujoco(pybind11::module_& m);
/// The quasi-static examples (submodule quasistatic).
void BindQuasistatic(pybind11::module_& m);

/// The mjModel behind a mujoco.MjModel of MuJoCo's own Python bindings (its `_address`; the same libmujoco is loaded
/// once, so the struct is ours to read). Raises TypeError "`what` must be a mujoco.MjModel, got T" for anything else.
bool IsMjModel(pybind11::handle object);
const mjModel* MjModelAddress(pybind11::handle model, const char* what);
/// The mjData behind a mujoco.MjData made from `model` (or from a model of the same sizes); TypeError as above,
/// ValueError when its model's sizes differ.
mjData* MjDataAddress(pybind11::handle data, const mjModel& model, const char* what);
/// A deep copy of `model` (mj_copyModel), with MuJoCo's errors routed to exceptions.
scenes::ModelPtr CopyModel(const mjModel& model);

/// A SolveCounters as a dict {name: value} (ForEachField), in declaration order.
pybind11::dict CountersDict(const SolveCounters& counters);

/// Binds the SolveCounters member `counters` of T: a read-only property `counters` (CountersDict) and one read-only
/// property per field, named as in ForEachCounter (e.g. summary.krylov_iterations). A name T binds already (StepInfo's
/// own time_solve, the solves' wall time) keeps T's meaning; its counter is then read from the dict.
template <typename T>
void BindCounters(pybind11::class_<T>& c, SolveCounters T::*counters) {
  c.def_property_readonly(
      "counters", [counters](const T& x) { return CountersDict(x.*counters); },
      "the solver's counters and phase times (s) as a dict");
  ForEachCounter([&](const char* name, auto member) {
    if (!pybind11::hasattr(c, name))
      c.def_property_readonly(name, [counters, member](const T& x) { return (x.*counters).*member; });
  });
}

/// The settings tamsi.Simulator and tamsi.Stepper share by keyword (scenes::RunSettings; None leaves the scene's).
/// `options` may give stiction_tolerance, num_threads and max_iterations too: a field that differs from Options()'s
/// counts as given, and is used unless the keyword gives it; the same setting given both ways with different values
/// throws std::invalid_argument naming it, and so does a one-way options.coupling with solver "tamsi". Threads: 1 when
/// neither gives them.
scenes::RunSettings SolverSettings(const std::string& solver, const std::string& narrow_phase,
                                   std::optional<double> stiffness, std::optional<double> dissipation,
                                   std::optional<double> stiction_tolerance, std::optional<int> threads,
                                   std::optional<int> max_iterations, const std::optional<Options>& options);

}  // namespace tamsi::python
