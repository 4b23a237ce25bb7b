#!/usr/bin/env python3
"""MuJoCo's own step on a model, for peer figures where only the `mujoco` package is at hand (no tamsi build): the
model as its file sets it except the constraint solver (--solver), --warmup steps from the model's initial state,
then the wall time of each of --steps mj_step calls (one thread: MuJoCo solves every island of a step on one).

Usage: mujoco_step.py MODEL.xml [--solver cg|newton|pgs] [--warmup 2] [--steps 10]
Prints one line: model, solver, mean and min ms per step, mean solver iterations, mean contacts.
"""

import argparse
import time

import mujoco


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("--solver", choices=["cg", "newton", "pgs"], default="cg")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    model = mujoco.MjModel.from_xml_path(args.model)
    model.opt.solver = {"pgs": mujoco.mjtSolver.mjSOL_PGS, "cg": mujoco.mjtSolver.mjSOL_CG,
                        "newton": mujoco.mjtSolver.mjSOL_NEWTON}[args.solver]
    data = mujoco.MjData(model)
    for _ in range(args.warmup):
        mujoco.mj_step(model, data)
    seconds, iterations, contacts = [], [], []
    for _ in range(args.steps):
        start = time.perf_counter()
        mujoco.mj_step(model, data)
        seconds.append(time.perf_counter() - start)
        iterations.append(int(data.solver_niter[0]))
        contacts.append(data.ncon)
    print(f"{args.model} {args.solver}: {1e3 * sum(seconds) / len(seconds):.1f} ms per step (min "
          f"{1e3 * min(seconds):.1f}), {sum(iterations) / len(iterations):.1f} iterations, "
          f"{sum(contacts) / len(contacts):.0f} contacts, MuJoCo {mujoco.__version__}")


if __name__ == "__main__":
    main()
