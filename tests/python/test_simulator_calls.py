"""The calls MuJoCo users reach for on tamsi.Simulator: reset to the start or a keyframe, applied forces, sensors
against MuJoCo's own mj_forward, contacts under either engine, per-contact (n, 2) tangential arrays, one-line type
errors, state-writing controllers refused, settings given both as keywords and in options, and the progress bar."""

import io

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")
import tamsi  # noqa: E402
from tamsi import _progress  # noqa: E402

BOX_MASS, G = 0.33, 9.8  # box_stick_slip

# A free 1 kg cube on the ground, a hinged pendulum with a motor, sensors of positions, velocities, a touch pad and
# an accelerometer; two keyframes.
SENSORS_XML = """
<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <geom name="ground" type="plane" size="2 2 0.1"/>
    <body name="cube" pos="0 0 0.1">
      <freejoint name="cube"/>
      <geom name="cube" type="box" size="0.1 0.1 0.1" mass="1"/>
      <site name="bottom" pos="0 0 -0.1" size="0.1 0.1 0.01" type="box"/>
      <site name="center"/>
    </body>
    <body name="arm" pos="1 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0" damping="0.1"/>
      <geom name="arm" type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="0.2"/>
    </body>
  </worldbody>
  <actuator><motor name="motor" joint="hinge"/></actuator>
  <sensor>
    <framepos name="cube_pos" objtype="body" objname="cube"/>
    <framequat name="cube_quat" objtype="body" objname="cube"/>
    <jointpos name="hinge_angle" joint="hinge"/>
    <jointvel name="hinge_speed" joint="hinge"/>
    <velocimeter name="cube_vel" site="center"/>
    <actuatorfrc name="motor_force" actuator="motor"/>
    <touch name="pad" site="bottom"/>
    <accelerometer name="cube_acc" site="center"/>
  </sensor>
  <keyframe>
    <key name="rest" qpos="0 0 0.1 1 0 0 0 0"/>
    <key name="lifted" qpos="0.2 0 0.5 1 0 0 0 0.3" qvel="0 0 0 0 0 0 1"/>
  </keyframe>
</mujoco>
"""


@pytest.fixture
def sensors_model():
    return mujoco.MjModel.from_xml_string(SENSORS_XML)


def assert_bitwise(a, b):
    assert np.asarray(a).tobytes() == np.asarray(b).tobytes()


def swing(sim):
    sim.set_control("motor", 0.5 * np.sin(20 * sim.time))


@pytest.mark.parametrize("solver", ["tamsi", "mujoco"])
def test_reset_then_steps_equal_a_new_simulator(sensors_model, solver):
    sim = tamsi.Simulator(sensors_model, solver=solver, controller=swing)
    sim.xfrc_applied = np.ones((sensors_model.nbody, 6))
    sim.run(0.05)
    sim.reset()
    assert sim.time == 0.0 and sim.statistics.steps == 0
    assert not sim.xfrc_applied.any() and not sim.ctrl.any()
    with pytest.raises(RuntimeError, match="contacts: no step yet"):
        sim.contacts()
    sim.run(0.04)
    new = tamsi.Simulator(sensors_model, solver=solver, controller=swing)
    new.run(0.04)
    assert_bitwise(sim.qpos, new.qpos)
    assert_bitwise(sim.qvel, new.qvel)
    assert sim.statistics.steps == new.statistics.steps == 20


def test_reset_to_a_named_keyframe(sensors_model):
    sim = tamsi.Simulator(sensors_model)  # starts from the first keyframe, "rest"
    sim.reset("lifted")
    assert_bitwise(sim.qpos, sensors_model.key("lifted").qpos)
    assert_bitwise(sim.qvel, sensors_model.key("lifted").qvel)
    sim.run(0.01)
    sim.reset()
    assert_bitwise(sim.qpos, sensors_model.key("rest").qpos)
    with pytest.raises(ValueError, match=r"^unknown keyframe 'high' \(model has: rest, lifted\)$"):
        sim.reset("high")


def test_scene_reset_restarts_its_controller_and_checks():
    sim = tamsi.Simulator("box_stick_slip", dt=1e-3)
    sim.run(0.3)
    first = sim.checks()
    sim.reset()
    sim.run(0.3)
    assert sim.checks() == first
    assert sim.time == pytest.approx(0.3)


@pytest.mark.parametrize("solver", ["tamsi", "mujoco"])
def test_applied_forces_hold_the_cube_against_gravity(sensors_model, solver):
    sim = tamsi.Simulator(sensors_model, solver=solver)
    sim.reset("lifted")  # in the air, out of contact
    z0 = sim.joint_qpos("cube")[2]
    wrench = np.zeros((sensors_model.nbody, 6))
    wrench[sensors_model.body("cube").id, 2] = 1.0 * 9.81  # N, up
    sim.xfrc_applied = wrench
    np.testing.assert_array_equal(sim.xfrc_applied, wrench)
    sim.run(0.1)
    assert abs(sim.joint_qpos("cube")[2] - z0) < 1e-9 and abs(sim.joint_qvel("cube")[2]) < 1e-9
    # The same through qfrc_applied: the free joint's z dof.
    sim.reset("lifted")
    qfrc = np.zeros(sensors_model.nv)
    qfrc[2] = 9.81
    sim.qfrc_applied = qfrc
    sim.run(0.1)
    assert abs(sim.joint_qpos("cube")[2] - z0) < 1e-9
    with pytest.raises(ValueError, match=r"^xfrc_applied: expected shape \(3, 6\), got \(3, 5\)$"):
        sim.xfrc_applied = np.zeros((3, 5))
    with pytest.raises(ValueError, match=r"^xfrc_applied: expected shape \(3, 6\), got \(18,\)$"):
        sim.xfrc_applied = np.zeros(18)
    with pytest.raises(ValueError, match="qfrc_applied: expected 7 values, got 6"):
        sim.qfrc_applied = np.zeros(6)
    with pytest.raises(TypeError, match=r"qfrc_applied: expected an array of floats, got an array of complex$"):
        sim.qfrc_applied = qfrc.astype(complex)  # refused, not cast to its real part


def test_sensors_equal_mujocos_own_forward(sensors_model):
    sim = tamsi.Simulator(sensors_model, controller=swing)
    sim.run(0.2)  # the cube rests on its pad; the arm swings
    qpos, contacts = sim.qpos, sim.contacts()
    data = mujoco.MjData(sensors_model)
    data.qpos, data.qvel, data.ctrl, data.time = sim.qpos, sim.qvel, sim.ctrl, sim.time
    mujoco.mj_forward(sensors_model, data)
    values = sim.sensordata
    assert values.shape == (sensors_model.nsensordata,)
    adr = sensors_model.sensor("pad").adr[0]
    # Positions, velocities and the actuator force bitwise; touch and acceleration from MuJoCo's constraint solve
    # (warm-started differently) to solver accuracy.
    assert_bitwise(values[:adr], data.sensordata[:adr])
    np.testing.assert_allclose(values[adr:], data.sensordata[adr:], rtol=1e-6, atol=1e-6)
    assert values[adr] > 0  # the pad touches the ground
    for name in sim.sensor_names:
        sensor = sensors_model.sensor(name)
        assert_bitwise(sim.sensor(name), values[sensor.adr[0]:sensor.adr[0] + sensor.dim[0]])
    assert sim.sensor("cube_pos").shape == (3,) and sim.sensor("hinge_angle").shape == (1,)
    # Reading sensors changes neither the state nor the last step's contacts.
    assert_bitwise(sim.qpos, qpos)
    assert_bitwise(sim.contacts()["fn"], contacts["fn"])
    with pytest.raises(ValueError, match="^no sensor 'gyro' in the model$"):
        sim.sensor("gyro")


def test_contacts_have_the_same_fields_under_both_engines():
    shapes = {}
    for solver in ("tamsi", "mujoco"):
        sim = tamsi.Simulator("box_stick_slip", solver=solver, dt=1e-3)
        sim.run(0.06)  # settled, and held by friction: the push, 4 N sin(2 pi t), is still below mu m g
        contacts = sim.contacts()
        n = len(contacts["fn"])
        assert n > 0
        shapes[solver] = {key: np.shape(value)[1:] for key, value in contacts.items()}
        assert all(len(value) == n for value in contacts.values())
        assert contacts["ft"].shape == (n, 2) and contacts["position"].shape == (n, 3)
        np.testing.assert_allclose(np.linalg.norm(contacts["normal"], axis=1), 1.0)
        # Resting, the contacts carry the box's weight.
        assert contacts["fn"].sum() == pytest.approx(BOX_MASS * G, rel=1e-2), solver
        assert set(contacts["kind"]) == {"geoms"}
    assert shapes["tamsi"] == shapes["mujoco"]


def test_result_tangential_arrays_are_per_contact():
    sim = tamsi.Simulator("box_stick_slip", dt=1e-3)
    sim.step()
    result, problem = sim.last_result, sim.last_problem
    nc = problem.num_contacts
    assert result.ft.shape == (nc, 2) and result.vt.shape == (nc, 2)
    np.testing.assert_allclose(result.vt.ravel(), problem.Jt @ result.v, rtol=1e-12, atol=1e-15)
    assert_bitwise(sim.contacts()["ft"], result.ft)


def one_line(error):
    message = str(error.value)
    assert "\n" not in message, message
    return message


def test_wrong_types_are_one_line_errors(sensors_model):
    with pytest.raises(TypeError) as error:
        tamsi.Simulator("box_stick_slip", stiffness="1e4")
    assert one_line(error) == "tamsi.Simulator: stiffness: expected a float or None, got str '1e4'"
    with pytest.raises(TypeError) as error:
        tamsi.Simulator("box_stick_slip", threads=1.5)
    assert one_line(error) == "tamsi.Simulator: threads: expected an int or None, got float 1.5"
    with pytest.raises(TypeError) as error:  # an int beyond a C int: pybind11 cannot convert it either
        tamsi.Simulator("box_stick_slip", threads=10**12)
    assert one_line(error) == "tamsi.Simulator: threads: expected an int in [-2**31, 2**31), got int 1000000000000"
    with pytest.raises(TypeError) as error:
        tamsi.Simulator("box_stick_slip", stifness=1e4)
    assert one_line(error).startswith("tamsi.Simulator: unexpected keyword argument 'stifness' (expected one of ")
    with pytest.raises(TypeError) as error:
        tamsi.Simulator("box_stick_slip", options={"max_iterations": 3})
    assert one_line(error) == ("tamsi.Simulator: options: expected a tamsi.Options or None, "
                               "got dict {'max_iterations': 3}")
    sim = tamsi.Simulator("box_stick_slip")
    with pytest.raises(TypeError) as error:
        sim.qpos = "up"
    assert one_line(error) == "tamsi.Simulator.qpos: expected an array of floats, got str 'up'"
    with pytest.raises(TypeError) as error:
        sim.run("1")
    assert one_line(error) == "tamsi.Simulator.run: duration: expected a float or None, got str '1'"
    with pytest.raises(TypeError) as error:
        tamsi.step(sensors_model, mujoco.MjData(sensors_model), stiction_tolerance="fast")
    assert one_line(error) == "tamsi.Stepper: stiction_tolerance: expected a float or None, got str 'fast'"
    # Errors of the right types keep their own words.
    with pytest.raises(ValueError, match="solver: expected one of"):
        tamsi.Simulator("box_stick_slip", solver="lcp")


def test_a_controller_that_writes_the_state_is_refused():
    def teleport(sim):
        sim.qpos = sim.qpos + 0.1

    sim = tamsi.Simulator("box_stick_slip", dt=1e-3, controller=teleport)
    qpos = sim.qpos
    with pytest.raises(RuntimeError) as error:
        sim.step()
    assert one_line(error) == ("controller: changed qpos; a controller may only set ctrl and applied forces "
                               "(qfrc_applied, xfrc_applied): the state is left as before the step")
    assert_bitwise(sim.qpos, qpos)
    assert sim.time == 0.0

    def brake(sim):
        sim.qvel = np.zeros(sim.nv)

    with pytest.raises(RuntimeError, match="^controller: changed qvel;"):
        tamsi.Simulator("box_stick_slip", controller=brake).run(0.05)


def run_box(**kwargs):
    sim = tamsi.Simulator("box_stick_slip", dt=1e-3, **kwargs)
    sim.run(0.05)
    return sim


def test_settings_in_options_are_used_and_conflicts_named(sensors_model):
    opts = tamsi.make_options(stiction_tolerance=1e-2, max_iterations=60, num_threads=2)
    from_options = run_box(options=opts)
    from_keywords = run_box(stiction_tolerance=1e-2, max_iterations=60, threads=2)
    assert_bitwise(from_options.qpos, from_keywords.qpos)
    assert from_options.last_result.summary.num_threads_given == 2
    assert from_options.qpos.tobytes() != run_box().qpos.tobytes()  # v_s = 1e-2 creeps more than 1e-4
    # The same value both ways is fine; another one is named.
    run_box(options=opts, stiction_tolerance=1e-2, threads=2)
    for keyword, message in [(dict(stiction_tolerance=1e-4), "stiction_tolerance: 0.0001 given, and "
                              "options.stiction_tolerance = 0.01: give it once"),
                             (dict(threads=1), "threads: 1 given, and options.num_threads = 2: give it once"),
                             (dict(max_iterations=5), "max_iterations: 5 given, and options.max_iterations = 60")]:
        with pytest.raises(ValueError, match=message):
            tamsi.Simulator("box_stick_slip", options=opts, **keyword)
        with pytest.raises(ValueError, match=message):
            tamsi.Stepper(sensors_model, options=opts, **keyword)
    # The coupling comes from options too: solver="tamsi-oneway" is an alias of coupling one_way.
    from_option = run_box(options=tamsi.make_options(coupling="one_way"))
    from_solver = run_box(solver="tamsi-oneway")
    assert from_option.last_result.summary.coupling == tamsi.Coupling.from_string("one_way")
    assert_bitwise(from_option.qpos, from_solver.qpos)
    assert from_option.qpos.tobytes() != run_box().qpos.tobytes()


def test_progress_bar_draws_after_its_delay_and_clears():
    assert _progress.terminal_bar(1.0, "s") is None  # pytest's stderr is no terminal
    stream = io.StringIO()
    bar = _progress.Bar(2.0, "s simulated", stream)
    bar.update(0.5)
    assert stream.getvalue() == ""  # within its first second
    bar.start -= _progress.Bar.DELAY
    bar.update(0.5)
    assert stream.getvalue().startswith("\r[") and " 25% 0.5/2 s simulated" in stream.getvalue()
    bar.clear()
    assert stream.getvalue().endswith("\r\033[K")
