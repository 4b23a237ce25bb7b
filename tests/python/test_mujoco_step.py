"""MuJoCo's own Python objects stepped with TAMSI: tamsi.step(model, data) against the C++ simulator (tamsi.Simulator,
the simulator of `tamsi run MODEL.xml`) bitwise, a controller writing data.ctrl between steps, the per-model cache,
one libmujoco in the process, reprs, and errors."""

import gc
import math
import os
import subprocess
import sys

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")
import tamsi  # noqa: E402

SCENE_MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scenes", "models")
BOX = os.path.join(SCENE_MODELS, "box_stick_slip.xml")
GRIPPER = os.path.join(SCENE_MODELS, "gripper_mug_shake.xml")


def panda_scene():
    models = os.environ.get("TAMSI_MODELS_DIR")
    if not models:
        pytest.skip("TAMSI_MODELS_DIR is not set (README, 'Models'): no Menagerie panda")
    path = os.path.join(models, "menagerie_current", "franka_emika_panda", "scene.xml")
    if not os.path.exists(path):
        pytest.skip(f"no {path}")
    return path


def start(path):
    """A model and data at the state tamsi.Simulator starts from: the first keyframe, else qpos0 at rest."""
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    if model.nkey > 0:
        mujoco.mj_resetDataKeyframe(model, data, 0)
    return model, data


def state(qpos, qvel, act, time):
    return np.concatenate([qpos, qvel, act, [time]])


def sine_controls(nu, t):
    return np.array([0.3 * math.sin(2 * math.pi * (1 + i) * t) for i in range(nu)])


def assert_bitwise(a, b):
    np.testing.assert_array_equal(a, b)
    assert a.tobytes() == b.tobytes()  # also -0.0 against 0.0


def compare_with_simulator(path, steps, controls):
    """Steps `path` with tamsi.step and with tamsi.Simulator, both writing controls(nu, t) into ctrl before each step
    (a loop for MjData, the controller callback for the Simulator); returns the final states."""
    model, data = start(path)
    tamsi.forget(model)

    def controller(sim):
        sim.ctrl = controls(sim.nu, sim.time)

    sim = tamsi.Simulator(path, controller=controller)
    assert sim.time_step == model.opt.timestep
    for _ in range(steps):
        data.ctrl[:] = controls(model.nu, data.time)
        assert tamsi.step(model, data) is None  # as mujoco.mj_step
        info = sim.step()
        assert_bitwise(state(data.qpos, data.qvel, data.act, data.time), state(sim.qpos, sim.qvel, [], sim.time))
        assert tamsi.last_step(model).iterations == info.iterations
        assert tamsi.last_step(model).contacts == info.contacts
    assert info.iterations >= 1
    return data, sim


def test_step_matches_the_simulator_on_the_paper_box_with_a_push():
    def push(nu, t):
        return np.array([4.0 * math.sin(2 * math.pi * t)])  # the paper's f(t), N

    data, sim = compare_with_simulator(BOX, 150, push)
    assert data.time == pytest.approx(1.5)
    assert abs(data.qpos[0]) > 1e-3  # the push made it slide


def test_step_matches_the_simulator_on_the_gripper_model():
    data, _ = compare_with_simulator(GRIPPER, 100, sine_controls)
    assert np.all(np.isfinite(data.qpos))


def test_step_matches_the_simulator_on_a_menagerie_arm():
    path = panda_scene()
    data, _ = compare_with_simulator(path, 100, lambda nu, t: np.zeros(nu))


def test_a_loop_writing_ctrl_drives_the_arm_like_mj_step():
    path = panda_scene()
    model, data = start(path)
    home = data.qpos[:7].copy()
    target = home + np.array([0.3, -0.2, 0.2, 0.3, 0.0, 0.2, 0.3])
    for _ in range(500):  # 1 s at h = 2 ms
        data.ctrl[:7] = target  # the panda's actuators are PD servos to ctrl
        tamsi.step(model, data)
    tamsi_error = np.abs(data.qpos[:7] - target).max()
    model_mj, data_mj = start(path)
    for _ in range(500):
        data_mj.ctrl[:7] = target
        mujoco.mj_step(model_mj, data_mj)
    assert data.time == pytest.approx(data_mj.time)
    assert tamsi_error < 0.05 and np.abs(data.qpos[:7] - data_mj.qpos[:7]).max() < 0.05


def test_step_leaves_the_kinematics_and_contacts_of_the_steps_start_as_mj_step_does():
    """A step runs on the caller's MjData itself: afterwards it holds the kinematics and contacts the front end computed
    at the step's start state, as after mujoco.mj_step (whose xpos are those of the same start)."""
    model, data = start(GRIPPER)
    model_mj, data_mj = start(GRIPPER)
    tamsi.forget(model)
    for _ in range(20):
        tamsi.step(model, data)
    data_mj.qpos[:], data_mj.qvel[:], data_mj.time = data.qpos, data.qvel, data.time
    tamsi.step(model, data)
    mujoco.mj_step(model_mj, data_mj)
    assert data.time == pytest.approx(data_mj.time)
    assert_bitwise(data.xpos, data_mj.xpos)
    assert_bitwise(data.xquat, data_mj.xquat)
    assert data.ncon > 0 and {(c.geom1, c.geom2) for c in data.contact} >= {(c.geom1, c.geom2) for c in data_mj.contact}


def test_simulator_takes_a_mujoco_model():
    model, _ = start(GRIPPER)
    from_model = tamsi.Simulator(model)
    from_file = tamsi.Simulator(GRIPPER)
    assert from_model.name == "mujoco.MjModel"
    for _ in range(50):
        from_model.step()
        from_file.step()
    assert_bitwise(from_model.qpos, from_file.qpos)
    assert_bitwise(from_model.qvel, from_file.qvel)


def test_last_step_reports_the_cached_steppers_step_and_advance_returns_none():
    model, data = start(GRIPPER)
    tamsi.forget(model)
    with pytest.raises(ValueError, match="no step with tamsi.step"):
        tamsi.last_step(model)
    for _ in range(30):
        tamsi.step(model, data)
    stepper = tamsi.stepping._steppers[model][1]
    assert tamsi.last_step(model).contacts > 0 and tamsi.last_step(model).iterations >= 1
    assert stepper.statistics.steps == 30
    info = stepper.step(model, data)  # the bound call that returns its StepInfo
    assert stepper.advance(model, data) is None
    assert stepper.last_step.contacts == info.contacts > 0
    tamsi.forget(model)
    with pytest.raises(ValueError):
        tamsi.last_step(model)


def test_the_cache_is_kept_per_model_and_rebuilt_when_the_time_step_changes():
    model, data = start(BOX)
    tamsi.forget()
    tamsi.step(model, data)
    stepper = tamsi.stepping._steppers[model][1]
    tamsi.step(model, data)
    assert tamsi.stepping._steppers[model][1] is stepper and stepper.statistics.steps == 2
    assert stepper.statistics.structure_reuses >= 1  # the solver kept its analyses
    model.opt.timestep = 0.005  # rebuilt inside the stepper: the new h counts
    time = data.time
    tamsi.step(model, data)
    assert data.time == pytest.approx(time + 0.005) and stepper.time_step == 0.005
    tamsi.step(model, data, stiction_tolerance=1e-3)  # other settings: another stepper
    assert tamsi.stepping._steppers[model][1] is not stepper
    tamsi.forget(model)
    assert model not in tamsi.stepping._steppers
    tamsi.step(model, data)
    del model, data, stepper  # data holds its model (data.model)
    gc.collect()
    assert len(tamsi.stepping._steppers) == 0  # held weakly: gone with its model


def test_equal_options_keep_the_stepper_and_each_data_is_checked():
    model, data = start(BOX)
    tamsi.step(model, data, options=tamsi.make_options(max_iterations=50))
    stepper = tamsi.stepping._steppers[model][1]
    tamsi.step(model, data, options=tamsi.make_options(max_iterations=50))  # another object, the same values
    assert tamsi.stepping._steppers[model][1] is stepper
    _, other = start(BOX)  # another MjData of the same model: stepped from its own state
    tamsi.step(model, other, options=tamsi.make_options(max_iterations=50))
    assert other.time == model.opt.timestep and data.time == 2 * model.opt.timestep
    _, gripper_data = start(GRIPPER)
    with pytest.raises(ValueError, match="data was made from another model"):
        stepper.step(model, gripper_data)


def test_stepper_steps_its_own_model_only():
    model, data = start(BOX)
    stepper = tamsi.Stepper(model, stiction_tolerance=1e-4)
    stepper.step(model, data)
    other, other_data = start(BOX)
    with pytest.raises(ValueError, match="made for another model"):
        stepper.step(other, other_data)
    assert other_data.time == 0.0 and data.time == model.opt.timestep


def test_wrong_types_give_one_line_type_errors():
    model, data = start(BOX)
    cases = [(lambda: tamsi.step("box.xml", data), "model must be a mujoco.MjModel, got str"),
             (lambda: tamsi.step(model, model), "data must be a mujoco.MjData, got MjModel"),
             (lambda: tamsi.Stepper(3), "model must be a mujoco.MjModel, got int"),
             (lambda: tamsi.Simulator(3.0), "scene must be a scene name, a model file's path or a mujoco.MjModel"),
             (lambda: tamsi.step(model), "step() missing required argument 'data'"),
             (lambda: tamsi.step(model, data, data), "step() takes 2 arguments (model, data) but 3 were given"),
             (lambda: tamsi.step(model, data, model=model), "step() got multiple values for argument 'model'"),
             (lambda: tamsi.step(model, data, stiffnes=1e4), "step() got an unexpected keyword argument 'stiffnes'"),
             (lambda: tamsi.step(model, data, stiffness="stiff"), "stiffness: expected a float or None, got str")]
    for call, message in cases:
        with pytest.raises(TypeError) as error:
            call()
        assert message in str(error.value) and "\n" not in str(error.value)


def test_model_and_data_may_be_given_by_keyword():
    model, data = start(BOX)
    by_position, by_keyword = mujoco.MjData(model), mujoco.MjData(model)
    for _ in range(3):
        tamsi.step(model, by_position)
        tamsi.step(data=by_keyword, model=model)
    assert_bitwise(state(by_keyword.qpos, by_keyword.qvel, by_keyword.act, by_keyword.time),
                   state(by_position.qpos, by_position.qvel, by_position.act, by_position.time))


def test_none_after_the_previous_data_or_model_died_is_refused():
    # The shortcuts hold the previous call's model and data weakly: a dead one must never match None.
    model, data = start(BOX)
    tamsi.step(model, data)
    del data
    gc.collect()
    with pytest.raises(TypeError, match="data must be a mujoco.MjData, got NoneType"):
        tamsi.step(model, None)
    del model
    gc.collect()
    other, other_data = start(GRIPPER)
    with pytest.raises(TypeError, match="model must be a mujoco.MjModel, got NoneType"):
        tamsi.step(None, other_data)


def test_a_keyword_whose_equality_forgets_the_cache_steps_safely():
    # Comparing a keyword value with the previous call's may run Python code that drops the shortcut.
    class ForgettingOptions(tamsi.Options):
        def __eq__(self, other: object) -> bool:
            tamsi.forget()
            return True

        __hash__ = tamsi.Options.__hash__

    model, data = start(BOX)
    tamsi.step(model, data, options=ForgettingOptions())
    tamsi.step(model, data, options=ForgettingOptions())
    assert data.time == pytest.approx(2 * model.opt.timestep)


def test_data_of_another_model_is_refused():
    model, data = start(BOX)
    _, gripper_data = start(GRIPPER)
    with pytest.raises(ValueError, match="data was made from another model"):
        tamsi.step(model, gripper_data)
    assert data.time == 0.0


def test_a_failed_step_raises_step_failed_error_and_leaves_data_as_it_was():
    model, data = start(BOX)
    tamsi.step(model, data)
    data.qvel[0] = math.nan  # p* is not finite: every substep retry fails
    before = state(data.qpos, data.qvel, data.act, data.time)
    with pytest.raises(tamsi.StepFailedError, match="non-finite value"):
        tamsi.step(model, data)
    assert_bitwise(state(data.qpos, data.qvel, data.act, data.time), before)
    data.qvel[0] = 0.0
    tamsi.step(model, data)  # the next call takes its step
    assert data.time == pytest.approx(2 * model.opt.timestep)


def test_a_bad_setting_is_named():
    model, data = start(BOX)
    with pytest.raises(ValueError, match="solver"):
        tamsi.step(model, data, solver="bogus")
    with pytest.raises(ValueError, match="stiffness"):
        tamsi.step(model, data, stiffness=-1.0)


@pytest.mark.parametrize("order", ["mujoco, tamsi", "tamsi, mujoco"])
def test_one_libmujoco_is_loaded(order):
    code = (f"import {order}\n"
            "m = mujoco.MjModel.from_xml_path(%r); d = mujoco.MjData(m); tamsi.step(m, d)\n"
            "paths = {line.split()[-1] for line in open('/proc/self/maps') if 'libmujoco' in line}\n"
            "print(len(paths)); print(*paths)\n") % BOX
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "1", out


def test_reprs():
    options = tamsi.make_options(stiction_tolerance=1e-3, friction_newton="tangent")
    text = repr(options)
    assert text.startswith("Options(coupling=") and "stiction_tolerance=0.001" in text
    assert "friction_newton=FrictionNewton.tangent" in text and "num_threads=1" in text
    sim = tamsi.Simulator(BOX)
    sim.step()
    text = repr(sim.last_result)
    assert text.startswith("Result(status=Status.success, iterations=") and f"nv={sim.nv}" in text
