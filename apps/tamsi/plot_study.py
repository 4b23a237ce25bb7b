#!/usr/bin/env python3
"""PNG figures of `tamsi study`, drawn from the CSVs it wrote into DIR (each figure whose CSV is there).

  fig4_newton_residuals.csv  iteration,residual_without_tals,residual_with_tals,alpha_with_tals
  fig5_work_precision.csv    newton,stepping,tals,h_or_a,completed,f_evaluations,error_v,...
  fig7_wall_clock.csv        integrator,sim_time,wall_time
  fig8_convergence.csv       h,h_over_T,error_translational,error_rotational
  allegro_wall_clock.csv     integrator,sim_time,wall_time

Writes fig4.png, fig5.png, fig7.png, fig8.png, allegro.png. Needs matplotlib (Debian: python3-matplotlib).
Usage: plot_study.py DIR
"""

import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def number(text):
    return float(text) if text not in ("", "nan") else None


def figure4(rows, out):
    fig, axes = plt.subplots(2, 1, figsize=(6, 5), sharex=True)
    for ax, column, title in ((axes[0], "residual_without_tals", "IE + FN without TALS"),
                              (axes[1], "residual_with_tals", "IE + FN with TALS")):
        points = [(int(r["iteration"]), number(r[column])) for r in rows if number(r[column]) is not None]
        ax.semilogy([k for k, _ in points], [max(v, 1e-17) for _, v in points], "o-", ms=4)
        ax.set_title(title, fontsize=10)
        ax.set_ylabel("Newton residual ‖r‖∞")
        ax.grid(alpha=0.3, which="both")
    axes[1].set_xlabel("Newton iteration")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig4.png"), dpi=100)
    plt.close(fig)


def figure5(rows, out):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    styles = {("fixed", "0"): ("C0", "o--"), ("fixed", "1"): ("C0", "o-"),
              ("error", "0"): ("C1", "s--"), ("error", "1"): ("C1", "s-")}
    for ax, newton in zip(axes, ("FN", "QN")):
        for (stepping, tals), (color, style) in styles.items():
            points = [(number(r["error_v"]), int(r["f_evaluations"])) for r in rows
                      if r["newton"] == newton and r["stepping"] == stepping and r["tals"] == tals
                      and r["completed"] == "1" and number(r["error_v"])]
            if not points:
                continue
            points.sort()
            label = "IE+%s%s%s" % (newton, "+EC" if stepping == "error" else "", "+TALS" if tals == "1" else "")
            ax.loglog([p[0] for p in points], [p[1] for p in points], style, color=color, ms=4,
                      mfc="none" if tals == "0" else color, label=label)
        ax.axvline(1e-4, color="gray", lw=0.8, ls=":")
        ax.text(1.1e-4, ax.get_ylim()[0] * 1.5 if ax.get_ylim()[0] > 0 else 1, "v_s", color="gray")
        ax.set_xlabel("localized error e_v (m/s)")
        ax.set_title(newton, fontsize=10)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    axes[0].set_ylabel("f evaluations")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig5.png"), dpi=100)
    plt.close(fig)


def wall_clock(rows, out, png, title):
    fig, ax = plt.subplots(figsize=(6, 4))
    for name in sorted({r["integrator"] for r in rows}):
        series = [(float(r["wall_time"]), float(r["sim_time"])) for r in rows if r["integrator"] == name]
        ax.plot([s[0] for s in series], [s[1] for s in series], label=name)
    ax.set_xlabel("wall-clock time (s)")
    ax.set_ylabel("simulated time (s)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, png), dpi=100)
    plt.close(fig)


def figure7(rows, out):
    wall_clock(rows, out, "fig7.png", "gripper_mug_shake, h = 3 ms")


def allegro(rows, out):
    wall_clock(rows, out, "allegro.png", "allegro_mug: TAMSI at h = 0.7 ms, IE error-controlled")


def figure8(rows, out):
    fig, ax = plt.subplots(figsize=(6, 4))
    h = [float(r["h_over_T"]) for r in rows]
    ax.loglog(h, [float(r["error_translational"]) for r in rows], "o-", label="translational: ‖e_v‖ T/A")
    ax.loglog(h, [float(r["error_rotational"]) for r in rows], "s-", label="rotational: ‖e_ω‖ T")
    first = float(rows[0]["error_translational"])
    ax.loglog(h, [first * x / h[0] for x in h], "k:", lw=0.8, label="first order")
    ax.set_xlabel("h / T")
    ax.set_ylabel("velocity error (dimensionless)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig8.png"), dpi=100)
    plt.close(fig)


def main():
    out = sys.argv[1]
    for name, draw in (("fig4_newton_residuals.csv", figure4), ("fig5_work_precision.csv", figure5),
                       ("fig7_wall_clock.csv", figure7), ("fig8_convergence.csv", figure8),
                       ("allegro_wall_clock.csv", allegro)):
        path = os.path.join(out, name)
        if os.path.exists(path):
            draw(read_rows(path), out)


if __name__ == "__main__":
    main()
