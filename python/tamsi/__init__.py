"""tamsi: compliant contact with regularized friction, sparse and parallel (Castro, Qu et al. 2020, RA-L).

The solver (one time step, SI units): ``ContactProblem`` built from NumPy arrays and ``scipy.sparse`` matrices,
``Options``, ``TamsiSolver.solve(problem) -> Result`` (``v``, ``fn``, ``ft``, ``vn``, ``vt`` and ``summary``).
The simulator: ``Simulator(scene_or_mjcf, ...)`` with ``step()``, ``run()``, the state, controls by name, contacts
and a Python controller callback. ``tamsi.quasistatic.run(name)``: the quasi-static examples as arrays.
``tamsi.sweep``: parameter sweeps on a Dask cluster (``tamsi sweep SPEC.json``).
MuJoCo's own Python objects: ``step(model, data)`` advances a ``mujoco.MjData`` in place with TAMSI, returning None as
``mujoco.mj_step`` does (``last_step(model)``: its ``StepInfo``; ``Stepper`` for explicit control),
``Simulator(mujoco.MjModel)`` simulates a copy of the model.
"""

import warnings
from typing import Any

from ._tamsi import (ContactProblem, Coupling, FrictionNewton, FrictionRegularization, LinearSolverType,
                     LineSearch, ModelLoadError, MujocoError, NewtonSolve, Options, ProblemFormatError, Result,
                     RunStatistics, Simulator, Status, StepFailedError, Stepper, StepInfo, Summary, TamsiSolver,
                     UnknownSceneError, _openblas_core_type_for_this_cpu, openblas_core, quasistatic, scenes)
from ._arguments import one_line_type_errors
from .stepping import forget, last_step, step

__all__ = ["ContactProblem", "Coupling", "FrictionNewton", "FrictionRegularization", "LinearSolverType", "LineSearch",
           "ModelLoadError", "MujocoError", "NewtonSolve", "Options", "ProblemFormatError", "Result", "RunStatistics",
           "Simulator", "Status", "StepFailedError", "StepInfo", "Stepper", "Summary", "TamsiSolver",
           "UnknownSceneError", "forget", "last_step", "make_options", "openblas_core", "quasistatic", "scenes",
           "step"]


def _warn_of_generic_blas_kernels() -> None:
    """OpenBLAS chose its kernels when it loaded with the module, from OPENBLAS_CORETYPE if set; the `tamsi` command
    restarts itself with the right one, an interpreter cannot, so the user is told (at their import line) unless
    they chose the kernels themselves (then nothing is named)."""
    core_type = _openblas_core_type_for_this_cpu()
    if core_type:
        warnings.warn("tamsi: the loaded OpenBLAS does not know this CPU and runs its generic SSE3 kernels "
                      f"(factorizations about 2x slower); set OPENBLAS_CORETYPE={core_type} before tamsi is imported",
                      RuntimeWarning, stacklevel=3)


_warn_of_generic_blas_kernels()

_ENUM_FIELDS = {"coupling": Coupling, "regularization": FrictionRegularization, "line_search": LineSearch,
                "newton_solve": NewtonSolve, "friction_newton": FrictionNewton, "linear_solver": LinearSolverType}


def make_options(**fields):
    """Options with the given fields set; enum fields also take their names as strings, e.g.
    ``make_options(friction_newton="tangent", newton_solve="exact")``. Raises ValueError naming a bad field."""
    options = Options()
    for name, value in fields.items():
        if name.startswith("_") or not hasattr(options, name) or callable(getattr(options, name)):
            raise ValueError(f"Options.{name}: no such field")
        enum = _ENUM_FIELDS.get(name)
        if enum is not None and isinstance(value, str):
            try:
                value = enum.from_string(value)
            except ValueError as error:
                raise ValueError(f"Options.{name}: {error}") from None
        try:
            setattr(options, name, value)
        except TypeError:
            raise ValueError(f"Options.{name}: expected {type(getattr(options, name)).__name__}, "
                             f"got {value!r}") from None
    options.validate()
    return options


def _fields(obj: Any) -> "list[str]":
    """The names of the data fields (properties) of a bound class's instance, in declaration order."""
    return [name for name, value in vars(type(obj)).items() if isinstance(value, property)]


def _options_repr(self: Options) -> str:
    fields = ", ".join(f"{name}={getattr(self, name)!s}" if name in _ENUM_FIELDS else f"{name}={getattr(self, name)!r}"
                       for name in _fields(self))
    return f"Options({fields})"


def _result_repr(self: Result) -> str:
    s = self.summary
    return (f"Result(status={s.status!s}, iterations={s.iterations}, nv={len(self.v)}, nc={len(self.fn)}, "
            f"nb={len(self.constraint_forces)}, time_total={s.time_total:.3g} s)")


Options.__repr__ = _options_repr  # type: ignore[method-assign,assignment]
Result.__repr__ = _result_repr  # type: ignore[method-assign,assignment]
for _class in (ContactProblem, Options, Simulator, Stepper, TamsiSolver):
    one_line_type_errors(_class, f"tamsi.{_class.__name__}")
del _class
