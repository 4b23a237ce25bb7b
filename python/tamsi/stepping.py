"""``tamsi.step(model, data)``: MuJoCo's own ``mujoco.MjData`` stepped with TAMSI in place, as ``mujoco.mj_step`` does.

A loop written for MuJoCo switches engine in one line::

    model = mujoco.MjModel.from_xml_path("scene.xml")
    data = mujoco.MjData(model)
    while data.time < 1.0:
        data.ctrl[:] = controller(data)
        tamsi.step(model, data)          # was: mujoco.mj_step(model, data)

Each call runs the C++ simulator of ``tamsi run MODEL.xml`` (the same front end, solver and defaults, bitwise the same
states) on a ``tamsi.Stepper`` kept per model: a copy of the model with the front end's tables, the solver's kept
symbolic analyses and workspaces, so that repeated calls are cheap. The cache holds each model weakly (an entry goes
when its model does) and is rebuilt

- for a model seen for the first time, or after ``forget(model)``;
- when the keyword settings differ from the previous call's for that model (keep them the same from call to call; an
  equal ``options`` object counts as the same, though the same object is the cheaper check);
- when ``model.opt`` (timestep, gravity, flags, ...) changed since the previous step.

Other edits of the model (masses, friction, gains, ...) are not seen by a cached copy: call ``forget(model)`` after
them. ``data`` gets the new ``qpos``, ``qvel``, ``act`` and ``time`` and, as after ``mujoco.mj_step``, the front end's
kinematics, contacts and forces at the step's start state (see ``tamsi.Stepper``).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Dict, Optional, Tuple

from . import _tamsi
from ._tamsi import Options, Stepper, StepInfo

if TYPE_CHECKING:  # MuJoCo's bindings ship no type information; mujoco is a dependency, not needed to import tamsi
    import mujoco

__all__ = ["forget", "last_step", "step"]

_steppers: "weakref.WeakKeyDictionary[Any, Tuple[Tuple[Tuple[Any, ...], Optional[Options]], Stepper]]" = (
    weakref.WeakKeyDictionary())

if TYPE_CHECKING:  # the keywords' types for checkers; the function itself is C++ (tamsi._tamsi.step)
    def step(model: "mujoco.MjModel", data: "mujoco.MjData", *, solver: str = "tamsi", narrow_phase: str = "analytic",
             stiffness: Optional[float] = None, dissipation: Optional[float] = None,
             stiction_tolerance: Optional[float] = None, threads: Optional[int] = None,
             max_iterations: Optional[int] = None, options: Optional[Options] = None) -> None: ...
else:
    step = _tamsi.step


def last_step(model: "mujoco.MjModel") -> StepInfo:
    """The ``tamsi.StepInfo`` of the last ``step`` of ``model`` (with its current cached stepper); ValueError when
    ``model`` has none (never stepped, or forgotten since)."""
    try:
        entry = _steppers.get(model)
    except TypeError:  # not weakly referenceable, so not a mujoco.MjModel
        entry = None
    if entry is None:
        raise ValueError("last_step: this model has no step with tamsi.step since it was made or forgotten")
    return entry[1].last_step


def _cached_stepper(model: "mujoco.MjModel", keywords: "Dict[str, Any]") -> Stepper:
    """The cached Stepper of ``model`` for ``step``'s keyword values (options equal by identity or by value), made if
    none is; ``step`` calls it when its model or keywords differ from its previous call's."""
    settings = tuple(keywords[name] for name in ("solver", "narrow_phase", "stiffness", "dissipation",
                                                 "stiction_tolerance", "threads", "max_iterations"))
    options = keywords["options"]
    try:
        entry = _steppers.get(model)
    except TypeError:  # not weakly referenceable, so not a mujoco.MjModel: Stepper below says so
        entry = None
    if entry is None or not _same(entry[0], settings, options):
        entry = ((settings, options), Stepper(model, **keywords))
        _steppers[model] = entry
    return entry[1]


def _same(key: "Tuple[Tuple[Any, ...], Optional[Options]]", settings: "Tuple[Any, ...]",
          options: Optional[Options]) -> bool:
    """Whether a cached stepper's (settings, options) are these; the options by identity, else by value (repr)."""
    return key[0] == settings and (key[1] is options or repr(key[1]) == repr(options))


def forget(model: "Optional[mujoco.MjModel]" = None) -> None:
    """Drops the cached ``tamsi.Stepper`` of ``model`` (of every model when None): the next ``step`` copies the model
    afresh (after edits of its masses, friction, gains, ...)."""
    _tamsi._forget_last_step()
    if model is None:
        _steppers.clear()
    else:
        _steppers.pop(model, None)
