"""The simulator binding: state and contacts of the paper's box (Sec. IV-A), a Python controller that changes the
motion, errors, MuJoCo's engine, and the quasi-static examples against `tamsi quasistatic run`."""

import csv
import os
import subprocess

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
