#!/usr/bin/env python3
"""PNG plots for bench/README.md from Google Benchmark JSON (--benchmark_out=FILE --benchmark_out_format=json).

  --growth solver.json [solver_dense.json ...]  ms per solve against N, log-log, per solver_bench family (two-way and
                                                one-way, 1 thread, the dense oracle dashed): growth.png
  --threads kernels.json [solver.json ...]      speed-up over 1 thread of every kernels_bench / solver_bench case
                                                swept over threads (one N per case): threads.png
  --piles piles.json [...]                      scene_step_bench BM_ClutterBinStep: ms per step split into the front
                                                end and TAMSI's solver phases, per pile and engine: piles.png
  --clutter piles.json [...]                    the same runs as ms per step against N, log-log, per engine and
                                                thread count, with the fitted growth exponent of each and the
                                                newest MuJoCo's CG as a
                                                reference line: clutter.png
  --big-islands piles.json [...]                the same plot of the big-island runs (bench/README.md, "Big
                                                islands"): big_islands.png

Medians are used where the run had --benchmark_repetitions. Needs matplotlib (Debian: python3-matplotlib).
Usage: plot.py [--growth F...] [--threads F...] [--piles F...] [--clutter F...] [--big-islands F...] [--out DIR]
"""

import argparse
import collections
import json
import math
import os
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import fit_growth  # noqa: E402

ENGINES = {0: "TAMSI (defaults)", 1: "MuJoCo 4.0 Newton", 2: "MuJoCo 4.0 CG", 3: "TAMSI reuse",
           4: "TAMSI one-way", 5: "TAMSI primal-dual, exact LU", 6: "TAMSI paper's iteration, exact LU",
           7: "TAMSI, MPR narrow phase", 8: "TAMSI, Cholesky of S (no Schwarz)", 9: "TAMSI, Schwarz everywhere"}
# MuJoCo 3.12.1 CG on the settled piles, median ms per step, 1 thread.
NEWEST_MUJOCO_CG = {500: 49.0, 1000: 92.0, 3000: 333.0, 10000: 1550.0}


def benchmarks(paths):
    """Yields (name, benchmark) for the medians, or the single runs of files without repetitions."""
    for path in paths:
        with open(path) as f:
            runs = json.load(f)["benchmarks"]
        has_median = any(b.get("aggregate_name") == "median" for b in runs)
        for b in runs:
            if b.get("error_occurred") or (has_median and b.get("aggregate_name") != "median"):
                continue
            if not has_median and b.get("run_type") == "aggregate":
                continue
            yield b.get("run_name", b["name"]), b


def growth(paths, out):
    runs = fit_growth.load(paths)
    fig, ax = plt.subplots(figsize=(8, 5.5))
    families = sorted({family for family, _, _ in runs})
    colors = plt.get_cmap("tab10")
    for (family, threads, oneway), by_n in sorted(runs.items()):
        if threads != 1:
            continue
        points = sorted((n, b["real_time"]) for n, b in by_n.items() if b["converged"] == 1)
        if len(points) < 2:
            continue
        label = family.replace("BM_TamsiSolve", "") + (", one-way" if oneway else ", two-way")
        ax.loglog(*zip(*points), "--" if oneway else "-", color=colors(families.index(family) % 10),
                  marker="s" if "Dense" in family else "o", markersize=3, label=label)
    ax.loglog([100, 10000], [1, 100], ":", color="gray", label="∝ N")
    ax.set_xlabel("bodies N (nv = 6N)")
    ax.set_ylabel("ms per solve (1 thread)")
    ax.set_title("TAMSI solve time against N (solver_bench; squares: the dense oracle)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "growth.png"), dpi=110)


def threads(paths, out):
    cases = collections.defaultdict(dict)  # name without threads -> {threads: ms}
    for name, b in benchmarks(paths):
        m = re.search(r"/threads:(\d+)", name)
        if m:
            cases[name.replace(m.group(0), "")][int(m.group(1))] = b["real_time"]
    fig, ax = plt.subplots(figsize=(8, 5.5))
    top = 1
    for case, by_t in sorted(cases.items()):
        if 1 not in by_t or len(by_t) < 2:
            continue
        ts = sorted(by_t)
        top = max(top, ts[-1])
        ax.plot(ts, [by_t[1] / by_t[t] for t in ts], marker="o", markersize=3,
                label=case.replace("BM_", "").replace("TamsiSolve", ""))
    ax.plot([1, top], [1, top], ":", color="gray", label="linear")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("threads")
    ax.set_ylabel("speed-up over 1 thread")
    ax.set_title("Thread scaling (kernels at nc = 100,000; solves at N = 10,000)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "threads.png"), dpi=110)


def piles(paths, out):
    latest = {}  # (N, engine) -> benchmark: a later file replaces an earlier one's run
    for name, b in benchmarks(paths):
        m = re.match(r"BM_ClutterBinStep/N:(\d+)/engine:(\d+)/threads:(\d+)$", name)
        if m and int(m.group(3)) == 1:
            latest[(int(m.group(1)), int(m.group(2)))] = b
    rows = [(n, e, b) for (n, e), b in latest.items()]
    order = [0, 5, 6, 3, 4, 2, 1]  # TAMSI defaults, exact LU, paper's, reuse, one-way; MuJoCo CG, Newton
    rows.sort(key=lambda r: (r[0], order.index(r[1]) if r[1] in order else r[1]))
    parts = [("front end", "frontend_ms"), ("assembly", "assembly_ms"), ("factorization", "factor_ms"),
             ("linear solves / GMRES", "linsolve_ms"), ("line search", "linesearch_ms"),
             ("MuJoCo's constraint solver", "mujoco_solve_ms")]
    sizes = sorted({n for n, _, _ in rows})
    fig, axes = plt.subplots(1, len(sizes), figsize=(4 * len(sizes), 5), squeeze=False)
    for ax, n in zip(axes[0], sizes):
        here = [(e, b) for m, e, b in rows if m == n]
        labels = [ENGINES.get(e, str(e)) for e, _ in here]
        bottom = [0.0] * len(here)
        for label, key in parts:
            if key == "mujoco_solve_ms":
                values = [b["solve_ms"] if e in (1, 2) else 0.0 for e, b in here]
            else:
                values = [b.get(key, 0.0) for _, b in here]
            ax.bar(labels, values, bottom=bottom, label=label)
            bottom = [x + y for x, y in zip(bottom, values)]
        rest = [max(0.0, b["real_time"] - s) for (_, b), s in zip(here, bottom)]
        ax.bar(labels, rest, bottom=bottom, label="other (forces, residuals, islands)", color="lightgray")
        ax.set_title(f"pile N = {n}")
        ax.set_ylabel("ms per step (1 thread)")
        ax.tick_params(axis="x", rotation=60, labelsize=7)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Settled piles: ms per step and TAMSI's phases (MuJoCo: front end + its whole solver)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "piles.png"), dpi=110)


def clutter(paths, out, filename="clutter.png"):
    by_run = collections.defaultdict(dict)  # (engine, threads) -> {N: ms}
    for name, b in benchmarks(paths):
        m = re.match(r"BM_ClutterBinStep/N:(\d+)/engine:(\d+)/threads:(\d+)$", name)
        if m and int(m.group(1)) >= 500:
            by_run[(int(m.group(2)), int(m.group(3)))][int(m.group(1))] = b["real_time"]
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for (engine, threads), by_n in sorted(by_run.items()):
        points = sorted(by_n.items())
        label = ENGINES.get(engine, str(engine)) + f", {threads} thread{'s' if threads > 1 else ''}"
        if len(points) >= 2:
            (n0, t0), (n1, t1) = points[0], points[-1]
            label += f" (∝ N^{math.log(t1 / t0) / math.log(n1 / n0):.2f})"
        ax.loglog(*zip(*points), "-" if threads == 1 else "--", marker="o", markersize=4, label=label)
    ax.loglog(*zip(*sorted(NEWEST_MUJOCO_CG.items())), ":", marker="x", color="black",
              label="MuJoCo 3.12.1 CG (anchor figures, not run here)")
    ax.set_xlabel("bodies N in the settled pile (nv = 6N)")
    ax.set_ylabel("ms per 2 ms step")
    ax.set_title("Settled piles: step time against N (scene_step_bench BM_ClutterBinStep)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, filename), dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--growth", nargs="*", default=[])
    parser.add_argument("--threads", nargs="*", default=[])
    parser.add_argument("--piles", nargs="*", default=[])
    parser.add_argument("--clutter", nargs="*", default=[])
    parser.add_argument("--big-islands", nargs="*", default=[])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "plots"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.growth:
        growth(args.growth, args.out)
    if args.threads:
        threads(args.threads, args.out)
    if args.piles:
        piles(args.piles, args.out)
    if args.clutter:
        clutter(args.clutter, args.out)
    if args.big_islands:
        clutter(args.big_islands, args.out, "big_islands.png")


if __name__ == "__main__":
    main()
