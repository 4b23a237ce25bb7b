"""Per-step overhead of tamsi.step in Python against `tamsi run` on the same model, the same steps.

    python scripts/step_overhead.py [--cli build/apps/tamsi] [--duration 4] [--repeats 3] MODEL.xml ...

For each model: `tamsi run MODEL --duration D --quiet` (its summary's wall time: the C++ steps alone, model loading
excluded), and a Python loop of tamsi.step(model, data) from the same first keyframe for the same steps, timed around
the loop (the stepper is made before the clock starts, as `tamsi run` loads before its clock), with the C++ step time
of those same steps inside it (the stepper's statistics: what `tamsi run` counts). Each takes the best of `repeats`
runs. Also mujoco.mj_step on the same MjData for scale. Prints a table in ms per step and the overhead.
"""
import argparse
import os
import re
import subprocess
import time

import mujoco

import tamsi


def cli_ms_per_step(cli, path, duration):
    out = subprocess.run([cli, "run", path, "--duration", str(duration), "--quiet"], check=True, capture_output=True,
                         text=True, env=dict(os.environ, OPENBLAS_NUM_THREADS="1")).stdout
    steps = int(re.search(r"^steps\s+(\d+)", out, re.M).group(1))
    wall = float(re.search(r"^wall time\s+([0-9.e+-]+) s", out, re.M).group(1))
    return 1e3 * wall / steps, steps


def python_ms_per_step(path, steps, step):
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    if model.nkey > 0:
        mujoco.mj_resetDataKeyframe(model, data, 0)
    tamsi.forget()
    step(model, data)  # tamsi.step makes its cached stepper here, outside the clock, as `tamsi run` loads before it
    steps -= 1
    inner = tamsi.stepping._steppers[model][1].statistics.wall_time if step is tamsi.step else 0.0
    start = time.perf_counter()
    for _ in range(steps):
        step(model, data)
    total = time.perf_counter() - start
    if step is tamsi.step:  # the C++ Simulator::Step time of the same steps, as `tamsi run` counts it
        inner = tamsi.stepping._steppers[model][1].statistics.wall_time - inner
    return 1e3 * total / steps, 1e3 * inner / steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="+")
    parser.add_argument("--cli", default=os.path.join(os.path.dirname(__file__), "..", "build", "apps", "tamsi"))
    parser.add_argument("--duration", type=float, default=4.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'model':<30} {'steps':>6} {'tamsi run':>10} {'tamsi.step':>11} {'overhead':>9} {'its C++ step':>13} "
          f"{'mj_step':>8}  (ms/step, best of {args.repeats})")
    for path in args.models:
        cli, steps = min(cli_ms_per_step(args.cli, path, args.duration) for _ in range(args.repeats))
        py, inner = min(python_ms_per_step(path, steps, tamsi.step) for _ in range(args.repeats))
        mj, _ = min(python_ms_per_step(path, steps, mujoco.mj_step) for _ in range(args.repeats))
        name = os.path.basename(os.path.dirname(path)) + "/" + os.path.basename(path)
        print(f"{name:<30} {steps:>6} {cli:>10.4f} {py:>11.4f} {100 * (py / cli - 1):>8.1f}% {inner:>13.4f} "
              f"{mj:>8.4f}")


if __name__ == "__main__":
    main()
