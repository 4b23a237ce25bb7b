#!/usr/bin/env python3
"""Work–precision of a resting pile: cost per step against creep, for TAMSI at several stiction tolerances v_s (and
Newton tolerances eps_r, --relative-tolerance) and MuJoCo's own solvers on the same model and front end.

A settled pile creeps under any regularized friction (TAMSI: sticking contacts slide at up to v_s; MuJoCo: its soft
constraints), so engines are compared at matched accuracy as well as at their defaults. Each configuration runs
`tamsi run PILE --duration D --dt H --threads 1 --output CSV --plots DIR` one after the other; from the trajectory
CSV:
  mean speed   the mean over bodies and over the rows in the window of |v| (m/s);
  drift speed  the mean over bodies of |x(t1) − x(t0)| / (t1 − t0) (m/s): the creep;
and from the run's per-step CSV (DIR/steps.csv) the wall time per step (ms) and the solver's iterations per step over
the steps that end in (t0, t1], the same window, so that cost and creep describe the same steps. A pile loaded from
its file starts in another engine's rest (or none, for piles settled in stages) and re-settles first; the whole run's
wall time per step, transient included, is reported beside it.

Usage: creep.py --tamsi build/apps/tamsi --pile $TAMSI_PILES_DIR/settled_pile_N500.xml
                [--duration 0.4] [--window 0.2 0.4] [--dt 0.002] [--out DIR] [--skip-newton] [--threads T]
                [--only TEXT ...]
Writes DIR/creep.csv and DIR/creep.png (DIR: bench/plots by default). Needs NumPy and matplotlib (Debian's).
"""

import argparse
import csv
import os
import subprocess
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

CONFIGURATIONS = [  # label, extra arguments of tamsi run
    ("TAMSI v_s = 1e-4 m/s (default)", ["--stiction-tolerance", "1e-4"]),
    ("TAMSI v_s = 1e-3 m/s", ["--stiction-tolerance", "1e-3"]),
    ("TAMSI v_s = 1e-2 m/s", ["--stiction-tolerance", "1e-2"]),
    ("TAMSI v_s = 2e-2 m/s", ["--stiction-tolerance", "2e-2"]),
    ("TAMSI v_s = 3e-2 m/s", ["--stiction-tolerance", "3e-2"]),
    # Newton's test on the last step: with quadratic convergence the accepted iterate's error is far below it.
    ("TAMSI v_s = 3e-2 m/s, eps_r = 0.1", ["--stiction-tolerance", "3e-2", "--relative-tolerance", "0.1"]),
    ("TAMSI v_s = 1e-4 m/s, eps_r = 0.1", ["--stiction-tolerance", "1e-4", "--relative-tolerance", "0.1"]),
    ("MuJoCo CG (defaults)", ["--solver", "mujoco", "--mujoco-solver", "cg"]),
    ("MuJoCo Newton (defaults)", ["--solver", "mujoco", "--mujoco-solver", "newton"]),
]


def run(tamsi, pile, duration, dt, threads, extra, output, plots, window):
    """(ms per step in the window, iterations per step in the window, ms per step over the whole run)."""
    command = [tamsi, "run", pile, "--duration", str(duration), "--dt", str(dt), "--threads", str(threads), "--quiet",
               "--output", output, "--plots", plots] + extra
    subprocess.run(command, check=True, capture_output=True, text=True)
    with open(os.path.join(plots, "steps.csv"), newline="") as f:
        steps = list(csv.DictReader(f))
    rows = [r for r in steps if window[0] + 1e-9 < float(r["time"]) <= window[1] + 1e-9]
    if not rows:
        raise SystemExit(f"no step ends in the window {window[0]:g}–{window[1]:g} s of a {duration:g} s run")
    in_window = sum(float(r["wall_ms"]) for r in rows) / len(rows)
    iterations = sum(int(r["iterations"]) for r in rows) / len(rows)
    whole = sum(float(r["wall_ms"]) for r in steps) / len(steps)
    return in_window, iterations, whole


def creep(output, window):
    with open(output) as f:
        header = next(csv.reader(f))
    data = np.loadtxt(output, delimiter=",", skiprows=1, ndmin=2)
    time = data[:, 0]
    bodies = sorted({name[: -len("_x")] for name in header if name.endswith("_x")})
    column = {name: k for k, name in enumerate(header)}
    position = np.stack([data[:, [column[b + "_x"], column[b + "_y"], column[b + "_z"]]] for b in bodies], axis=1)
    velocity = np.stack([data[:, [column[b + "_vx"], column[b + "_vy"], column[b + "_vz"]]] for b in bodies], axis=1)
    rows = (time >= window[0] - 1e-9) & (time <= window[1] + 1e-9)
    first, last = np.flatnonzero(rows)[[0, -1]]
    mean_speed = np.linalg.norm(velocity[rows], axis=2).mean()
    drift = np.linalg.norm(position[last] - position[first], axis=1).mean() / (time[last] - time[first])
    return mean_speed, drift


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tamsi", required=True)
    parser.add_argument("--pile", required=True)
    parser.add_argument("--duration", type=float, default=0.4)
    parser.add_argument("--window", type=float, nargs=2, default=[0.2, 0.4])
    parser.add_argument("--dt", type=float, default=0.002)
    parser.add_argument("--skip-newton", action="store_true", help="leave out MuJoCo's Newton (~1.3 s per step)")
    parser.add_argument("--threads", type=int, default=1, help="TAMSI's threads (MuJoCo's solver uses one)")
    parser.add_argument("--only", nargs="+", metavar="TEXT", help="only the configurations whose label contains one")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "plots"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for label, extra in CONFIGURATIONS:
            if args.skip_newton and "newton" in extra:
                continue
            if args.only and not any(text in label for text in args.only):
                continue
            output = os.path.join(scratch, "trajectory.csv")
            plots = os.path.join(scratch, "plots")
            threads = 1 if "mujoco" in extra else args.threads
            ms, iterations, whole = run(args.tamsi, args.pile, args.duration, args.dt, threads, extra, output, plots,
                                        args.window)
            mean_speed, drift = creep(output, args.window)
            results.append((label, ms, iterations, whole, mean_speed, drift))
            print(f"{label:32s} {ms:9.1f} ms/step ({iterations:5.1f} iterations; whole run {whole:.1f} ms/step)  "
                  f"mean speed {mean_speed:.2e} m/s  drift {drift:.2e} m/s", flush=True)
    with open(os.path.join(args.out, "creep.csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["configuration", "ms_per_step", "iterations_per_step", "ms_per_step_whole_run",
                         "mean_speed_m_s", "drift_speed_m_s"])
        writer.writerows(results)
    fig, ax = plt.subplots(figsize=(7, 5))
    for label, ms, _, _, _, drift in results:
        ax.loglog([drift], [ms], "o" if label.startswith("TAMSI") else "s", label=label)
    ax.set_xlabel(f"creep: mean drift speed {args.window[0]:g}–{args.window[1]:g} s (m/s)")
    ax.set_ylabel(f"ms per step {args.window[0]:g}–{args.window[1]:g} s "
                  f"(TAMSI on {args.threads} thread{'s' if args.threads > 1 else ''}, MuJoCo on 1)")
    ax.set_title(f"Work–precision: {os.path.basename(args.pile)}, h = {args.dt:g} s")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "creep.png"), dpi=110)


if __name__ == "__main__":
    main()
