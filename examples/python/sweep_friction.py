"""A sweep on a local Dask cluster of two worker processes: the paper's box (Sec. IV-A) under μ from 0.1 to 1.6,
its slide along x after 0.5 s. Writes ./tamsi_sweeps/sweep_friction/results.csv and plot.png under the current folder;
run again, nothing is re-run."""
import tamsi.sweep

spec = {"name": "sweep_friction",
        "fixed": {"scene": "box_stick_slip", "duration": 0.5},
        "grid": {"friction": [0.1, 0.2, 0.4, 0.8, 1.6]},
        "outputs": ["joint:x"],
        "plot": {"x": "friction", "y": ["joint:x", "iterations_mean"]}}

if __name__ == "__main__":  # the workers are processes started afresh: they import this file
    result = tamsi.sweep.run_sweep(spec, workers=2)
    for row in result.rows:
        print(f"mu = {row['friction']:<4}: x(0.5 s) = {row['joint:x']:+.5f} m, "
              f"{row['iterations_mean']:.2f} iterations per step")
