#!/usr/bin/env python3
"""PNG plots of one `tamsi run --plots DIR`, drawn from the CSVs the run wrote into DIR.

  steps.csv   step,time,iterations,contacts,substeps,frontend_ms,solve_ms,wall_ms (one row per step; the phases are 0
              under --no-phase-times, the step's wall time never)
  phases.csv  phase,seconds (the summary's split: front end, then the solver's phases, then the rest of the solve)
  checks.csv  time, then each success check's value so far (scenes with checks only), with check_bounds.csv
              (check,bound) holding each check's bound

Writes iterations.png, contacts.png, wall_time.png, phases.png and, with checks.csv, checks.png.
Needs matplotlib (Debian: python3-matplotlib). Usage: plot_run.py DIR
"""

import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_columns(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    return {name: [row[i] for row in body] for i, name in enumerate(header)}


def per_step(columns, out):
    time = [float(t) for t in columns["time"]]
    figures = [
        ("iterations.png", "Newton iterations per step", [("iterations", "iterations", "C0")]),
        ("contacts.png", "contacts per step", [("contacts", "contacts", "C1")]),
        ("wall_time.png", "wall time per step (ms)",
         [("wall_ms", "step", "C0"), ("frontend_ms", "front end", "C2"), ("solve_ms", "solve", "C3")]),
    ]
    for name, ylabel, series in figures:
        fig, ax = plt.subplots(figsize=(8, 3.2))
        for column, label, color in series:
            ax.plot(time, [float(v) for v in columns[column]], lw=0.8, color=color, label=label)
        ax.set_xlabel("simulated time (s)")
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        if len(series) > 1:
            ax.legend(loc="upper right")
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(out, name), dpi=110)
        plt.close(fig)


def phases(columns, out):
    names = columns["phase"]
    seconds = [float(s) for s in columns["seconds"]]
    fig, ax = plt.subplots(figsize=(8, 3.2))
    ax.barh(range(len(names)), seconds, color=["C2"] + ["C3"] * (len(names) - 1))
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    total = sum(seconds)
    for i, s in enumerate(seconds):
        ax.text(s, i, f" {s:.3g} s ({100 * s / total:.0f} %)" if total > 0 else "", va="center", fontsize=8)
    ax.set_xlabel("wall time over the run (s)")
    ax.set_xlim(0, 1.25 * max(seconds + [1e-9]))
    ax.set_title("where the time went", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "phases.png"), dpi=110)
    plt.close(fig)


def checks(columns, bounds, out):
    time = [float(t) for t in columns.pop("time")]
    fig, axes = plt.subplots(len(columns), 1, figsize=(8, 2.4 * len(columns)), sharex=True, squeeze=False)
    for ax, (name, values) in zip(axes[:, 0], columns.items()):
        values = [float(v) for v in values]
        ax.plot(time, values, lw=0.9, label="value")
        ax.axhline(bounds[name], color="C3", ls="--", lw=0.9, label="bound")
        # Values far below their bound (a slip of micrometres against millimetres) stay visible on a symmetric log
        # scale, linear below the smallest magnitude drawn (at most six decades below the largest).
        magnitudes = [abs(v) for v in values + [bounds[name]] if v != 0]
        if magnitudes:
            ax.set_yscale("symlog", linthresh=max(min(magnitudes), 1e-6 * max(magnitudes)))
        ax.legend(loc="best", fontsize=8)
        ax.set_title(name, fontsize=9)
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("simulated time (s)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "checks.png"), dpi=110)
    plt.close(fig)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    per_step(read_columns(os.path.join(out, "steps.csv")), out)
    phases(read_columns(os.path.join(out, "phases.csv")), out)
    if os.path.exists(os.path.join(out, "checks.csv")):
        bounds = read_columns(os.path.join(out, "check_bounds.csv"))
        checks(read_columns(os.path.join(out, "checks.csv")),
               dict(zip(bounds["check"], (float(b) for b in bounds["bound"]))), out)


if __name__ == "__main__":
    main()
