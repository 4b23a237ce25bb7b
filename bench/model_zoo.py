#!/usr/bin/env python3
"""Today's MuJoCo Menagerie under TAMSI and under MuJoCo's own solver, side by side: each model from its first
keyframe (or its default pose) for --duration seconds at its own time step, one thread, same front end.

For each model, from `tamsi run MODEL --duration D --threads 1 --quiet --output CSV` with and without
`--solver mujoco`:
  state difference  at the end, the largest distance (m) between a body's positions under TAMSI and under
                  MuJoCo, and the largest difference of a joint's position (rad or m);
  final speed     the largest body speed (m/s, linear) at the end under TAMSI (at rest: small);
  limit violation the largest violation of a limited hinge or slide joint's range (m or rad) from --settle seconds
                  on (a model's own initial pose may start outside a range), each engine;
  real-time rate  simulated seconds per wall-clock second, each engine.

Usage: model_zoo.py --tamsi build/apps/tamsi [--duration 1] [--settle 0.5] [--out bench/plots/model_zoo.csv]
Models come from the models folder (TAMSI_MODELS_DIR/menagerie_current, README "Models"); joint ranges are read with
MuJoCo's Python bindings (the project's .venv/bin/python has them). Prints a Markdown table.
"""

import argparse
import csv
import os
import re
import subprocess
import tempfile

import mujoco
import numpy as np

MODELS = ["franka_emika_panda/scene.xml", "kuka_iiwa_14/scene.xml", "robotiq_2f85/scene.xml",
          "wonik_allegro/scene_right.xml", "shadow_hand/scene_right.xml", "anybotics_anymal_c/scene.xml",
          "unitree_g1/scene.xml", "aloha/scene.xml"]


def joint_ranges(path):
    """{joint name: (low, high)} of the model's limited hinge and slide joints."""
    model = mujoco.MjModel.from_xml_path(path)
    ranges = {}
    for j in range(model.njnt):
        if model.jnt_limited[j] and int(model.jnt_type[j]) in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)):
            ranges[mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j)] = tuple(model.jnt_range[j])
    return ranges


def run(tamsi, model, duration, settle, ranges, extra, output):
    command = [tamsi, "run", model, "--duration", str(duration), "--threads", "1", "--quiet", "--output",
               output] + extra
    summary = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    rate = float(re.search(r"^real-time rate\s+([0-9.e+-]+)x", summary, re.M).group(1))
    with open(output) as f:
        header = next(csv.reader(f))
    data = np.loadtxt(output, delimiter=",", skiprows=1, ndmin=2)
    final = data[-1]
    column = {name: k for k, name in enumerate(header)}
    late = data[data[:, 0] >= settle - 1e-9]
    violation = 0.0
    for joint, (low, high) in ranges.items():
        q = late[:, column[joint + "_q"]]
        violation = max(violation, float(np.max(np.maximum(low - q, q - high), initial=0.0)))
    bodies = sorted({name[:-2] for name in header if name.endswith("_x") and name[:-2] + "_vx" in column})
    position = {b: final[[column[b + "_x"], column[b + "_y"], column[b + "_z"]]] for b in bodies}
    speed = max((np.linalg.norm(final[[column[b + "_vx"], column[b + "_vy"], column[b + "_vz"]]]) for b in bodies),
                default=0.0)
    joints = {name[:-2]: final[k] for name, k in column.items() if name.endswith("_q")}
    return rate, violation, position, speed, joints


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tamsi", required=True)
    parser.add_argument("--duration", type=float, default=1.0)
    parser.add_argument("--settle", type=float, default=0.5, help="limit violations count from this time (s)")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "plots",
                                                      "model_zoo.csv"))
    args = parser.parse_args()
    root = os.environ.get("TAMSI_MODELS_DIR")
    if not root:
        raise SystemExit("model_zoo.py: set TAMSI_MODELS_DIR to the folder holding menagerie_current/ (README, \"Models\")")
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        output = os.path.join(scratch, "trajectory.csv")
        for name in MODELS:
            model = os.path.join(root, "menagerie_current", name)
            ranges = joint_ranges(model)
            t_rate, t_limit, t_position, t_speed, t_joints = run(args.tamsi, model, args.duration, args.settle, ranges,
                                                                 [], output)
            m_rate, m_limit, m_position, _, m_joints = run(args.tamsi, model, args.duration, args.settle, ranges,
                                                           ["--solver", "mujoco"], output)
            drift = max((np.linalg.norm(t_position[b] - m_position[b]) for b in t_position), default=0.0)
            joint_drift = max((abs(t_joints[j] - m_joints[j]) for j in t_joints), default=0.0)
            rows.append((name.split("/")[0], drift, joint_drift, t_speed, t_limit, m_limit, t_rate, m_rate))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["model", "body_difference_m", "joint_difference", "final_speed_m_s", "limit_violation_tamsi", "limit_violation_mujoco",
                         "real_time_rate_tamsi", "real_time_rate_mujoco"])
        writer.writerows(rows)
    print("| model | bodies: TAMSI − MuJoCo (m) | joints: TAMSI − MuJoCo (rad or m) | final speed, TAMSI (m/s) "
          "| limit violation TAMSI / MuJoCo | real-time rate TAMSI / MuJoCo |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, drift, joint_drift, speed, t_limit, m_limit, t_rate, m_rate in rows:
        print(f"| {name} | {drift:.2g} | {joint_drift:.2g} | {speed:.2g} | {t_limit:.2g} / {m_limit:.2g} "
              f"| {t_rate:.3g}× / {m_rate:.3g}× |")


if __name__ == "__main__":
    main()
