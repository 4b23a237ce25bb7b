"""The simulator binding: state and contacts of the paper's box (Sec. IV-A), a Python controller that changes the
motion, errors, MuJoCo's engine, and the quasi-static examples against `tamsi quasistatic run`."""

import csv
import os
import signal
import subprocess
import threading

import numpy as np
import pytest

import tamsi

BOX_MASS, BOX_MU, G = 0.33, 1.0, 9.8  # BoxStickSlipParameters


def test_box_rests_on_its_contacts():
    sim = tamsi.Simulator("box_stick_slip", dt=1e-3)
    assert sim.joint_names == ["x", "z"] and sim.actuator_names == ["push"]
    stats = sim.run(0.05)
    assert stats.steps == 50 and sim.time == pytest.approx(0.05)
    assert sim.qpos.shape == (sim.nq,) and sim.qvel.shape == (sim.nv,)
    assert sim.joint_qpos("x")[0] == sim.qpos[0]
    contacts = sim.contacts()
    n = len(contacts["fn"])
    assert n > 0 and contacts["position"].shape == (n, 3) and contacts["ft"].shape == (n, 2)
    np.testing.assert_allclose(np.linalg.norm(contacts["normal"], axis=1), 1.0)
    # At rest the contacts carry the weight.
    assert contacts["fn"].sum() == pytest.approx(BOX_MASS * G, rel=1e-2)
    assert sim.statistics.real_time_rate > 0 and "steps" in str(sim.statistics)
    # The solver's counters summed over the steps: attributes by their Summary names, and the dict; time_solve stays the
    # simulator's own (the solves' wall clock), the triangular solves' time is the dict's.
    assert stats.numeric_factorizations == stats.counters["numeric_factorizations"] >= stats.steps
    assert stats.primal_dual_fallbacks == 0 and stats.time_solve >= stats.counters["time_solve"]
    # Each step's own wall time, which the run's sums.
    before = sim.statistics.wall_time
    info = sim.step()
    assert info.wall_time > 0 and sim.statistics.wall_time == before + info.wall_time


def test_controller_callback_changes_the_motion():
    push = 10.0  # N, above μ m g = 3.23 N: the box slides with a = (f − μ m g) / m
    times = []

    def controller(sim):
        times.append(sim.time)
        sim.set_control("push", push)

    driven = tamsi.Simulator("box_stick_slip", dt=1e-3, controller=controller)
    driven.run(0.1)
    free = tamsi.Simulator("box_stick_slip", dt=1e-3)
    free.run(0.1)
    assert len(times) == 100 and times == sorted(times)
    expected = 0.5 * (push - BOX_MU * BOX_MASS * G) / BOX_MASS * 0.1 ** 2
    assert driven.joint_qpos("x")[0] == pytest.approx(expected, rel=0.05)
    assert abs(free.joint_qpos("x")[0]) < 0.01 * expected
    # A non-finite control is refused by name, and the control keeps its value.
    for bad in (float("nan"), float("inf"), 1e11):
        with pytest.raises(ValueError, match="set_control: 'push': the value must be finite"):
            driven.set_control("push", bad)
    # The array setters too, naming the entry (MuJoCo would zero a control beyond 1e10 without a word).
    with pytest.raises(ValueError, match=r"ctrl\[0\]: must be finite and at most 1e10"):
        driven.ctrl = np.array([1e11])
    with pytest.raises(ValueError, match=r"qvel\[1\]: must be finite"):
        driven.qvel = np.array([0.0, float("nan")])
    with pytest.raises(ValueError, match=r"xfrc_applied\[6\]: must be finite"):
        bad_forces = np.zeros(driven.xfrc_applied.shape)
        bad_forces.flat[6] = float("inf")
        driven.xfrc_applied = bad_forces
    assert driven.control("push") == push


def test_controller_error_leaves_the_state():
    def controller(sim):
        if sim.time > 0.0095:
            raise KeyError("stop")

    sim = tamsi.Simulator("box_stick_slip", dt=1e-3, controller=controller)
    with pytest.raises(KeyError):
        sim.run(0.02)
    assert sim.time == pytest.approx(0.01)


def test_named_errors():
    with pytest.raises(tamsi.UnknownSceneError, match="box_stick_slip"):
        tamsi.Simulator("no_such_scene")
    with pytest.raises(ValueError, match="solver: expected one of"):
        tamsi.Simulator("box_stick_slip", solver="lcp")
    with pytest.raises(tamsi.ModelLoadError):
        tamsi.Simulator("/nonexistent/model.xml")
    sim = tamsi.Simulator("box_stick_slip")
    with pytest.raises(ValueError, match="no joint 'y'"):
        sim.joint_qpos("y")
    with pytest.raises(ValueError, match="qpos: expected 2 values"):
        sim.qpos = np.zeros(3)


def test_mujoco_engine_runs_the_same_scene():
    sim = tamsi.Simulator("box_stick_slip", solver="mujoco", mujoco_solver="newton", dt=1e-3)
    sim.run(0.05)
    assert sim.time == pytest.approx(0.05) and abs(sim.joint_qpos("x")[0]) < 1e-3


def test_quasistatic_example_matches_the_command(tmp_path):
    name = tamsi.quasistatic.examples()[0][0]
    run = tamsi.quasistatic.run(name)
    assert run["status"] == "completed" and run["time"][0] == 0.0
    n = len(run["time"])
    assert run["object"].shape == (n, 3) and run["manipulator"].shape[0] == n
    out = tmp_path / "trajectory.csv"
    subprocess.run([os.environ["TAMSI_CLI"], "quasistatic", "run", name, "--output", str(out)], check=True,
                   stdout=subprocess.DEVNULL)
    with open(out) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == n
    np.testing.assert_allclose([float(r["object_x"]) for r in rows], run["object"][:, 0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose([float(r["object_theta"]) for r in rows], run["object"][:, 2], rtol=1e-12,
                               atol=1e-15)


def test_settings_out_of_range_are_named():
    for kwargs, message in [(dict(dt=-1.0), "dt: must be > 0 and finite, got -1"),
                            (dict(dt=float("nan")), "dt: must be > 0"),
                            (dict(threads=-1), "num_threads: must be in \\[0, [0-9]+\\] .*got -1"),
                            (dict(threads=2**28), "num_threads: must be in \\[0, [0-9]+\\] .*got 268435456"),
                            (dict(stiffness=1e300), "stiffness: must be > 0 and at most 1e\\+12, got 1e\\+300"),
                            (dict(dissipation=-1.0), "dissipation: must be >= 0 and at most 1e\\+06, got -1")]:
        with pytest.raises(ValueError, match=message):
            tamsi.Simulator("box_stick_slip", **kwargs)
    # A size from outside is bounded before anything is generated for it.
    with pytest.raises(ValueError, match="number of bodies must be in \\[1, 100000\\], got 1000000000"):
        tamsi.Simulator("clutter_bin", bodies=10**9)
    sim = tamsi.Simulator("box_stick_slip")
    for duration in (float("inf"), float("nan"), -1.0, 0.0, 1e300):  # 1e300 s: beyond 1e12 steps
        with pytest.raises(ValueError, match="duration: must be finite, > 0 and at most 1e\\+12 steps"):
            sim.run(duration)
    assert sim.statistics.steps == 0


def test_contacts_need_a_step():
    for solver in ("tamsi", "mujoco"):
        with pytest.raises(RuntimeError, match="contacts: no step yet"):
            tamsi.Simulator("box_stick_slip", solver=solver).contacts()


def test_ctrl_c_interrupts_a_long_run():
    sim = tamsi.Simulator("box_stick_slip", dt=1e-3)
    timer = threading.Timer(0.3, lambda: signal.raise_signal(signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        sim.run(1e9)
    assert 0 < sim.time < 1e9
