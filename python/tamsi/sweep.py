"""Parameter sweeps of tamsi runs on a Dask cluster (``tamsi sweep SPEC.json``).

A spec (JSON, or the same dict in Python) names the runs::

    {"fixed": {"scene": "box_stick_slip", "duration": 0.5},
     "grid": {"friction": [0.5, 1.0], "dt": [1e-3, 2e-3]},
     "runs": [{"solver": "tamsi"}, {"solver": "mujoco"}],
     "outputs": ["joint:x", "body:box"],
     "plot": {"x": "dt", "y": ["real_time_rate", "iterations_mean"]}}

Every run is ``fixed``, updated by one entry of ``runs`` (one empty entry when absent), updated by one point of the
Cartesian product of ``grid``. A run names either a scene (``scene``: a simulator run) or a quasi-static example
(``example``: ``tamsi quasistatic run EXAMPLE``, with ``epsilon`` its feedback scaling, the example's default when
absent). A simulator run's parameters are the keyword arguments of ``tamsi.Simulator`` (``scene``,
``solver``, ``mujoco_solver``, ``narrow_phase``, ``dt`` (s), ``stiffness`` (N/m), ``dissipation`` (s/m),
``stiction_tolerance`` (v_s, m/s), ``friction`` (μ), ``threads``, ``max_iterations``, ``keyframe``, ``bodies``,
``seed``, ``drop_speed`` (m/s)), plus ``duration`` (s; the scene's when absent) and ``options`` (a dict of
``tamsi.Options`` fields, enums by name). ``outputs`` adds final-state columns: ``joint:NAME`` (the joint's
positions) and ``body:NAME`` (the body's world position, m).

Each run is one Dask task in a worker process and returns its figures. A simulator run: steps, wall time, real-time
rate, Newton iterations (mean, max), retried steps and failed solves, contacts, the scene's checks (``check:NAME``
values, ``checks_passed``) and the outputs. A quasi-static run: what ``tamsi quasistatic run`` gives for it, its
outcome ``simulation_status`` ("completed", "no_solution", "solver_failure"), ``epsilon`` (the one used),
``steps_requested``, ``steps_solved``, ``total_pivots``, ``max_lcp_size`` and the last row of its ``--output`` CSV
(``time``, ``object_x``, ``object_y``, ``object_theta`` (m, rad), the manipulator's coordinates by name, ``min_gap``
(m), ``max_normal_impulse`` (N s), ``num_contacts``); ``outputs`` do not apply to it. A run that raises is a row with
``status`` "failed" and its ``message``. As tasks finish, the driver writes each row to OUTPUT/runs/KEY.json (KEY: a
hash of the run's parameters), so a sweep started again with the same output folder runs only what is missing. The
table is OUTPUT/results.csv, with OUTPUT/plot.png of the plot's columns. OUTPUT is ``./tamsi_sweeps/NAME`` under the
current folder unless given (NAME: the spec's ``name``; ``tamsi sweep``: else the spec file's name). On a terminal a
progress bar shows how many runs are done.
"""

import argparse
import csv
import hashlib
import itertools
import json
import os
import signal
import sys
import threading
import time
from contextlib import contextmanager

from ._progress import terminal_bar

_RUN_FIELDS = ("duration", "options", "outputs")

#: The folder under the current one that holds each sweep's results folder by default.
SWEEPS_FOLDER = "tamsi_sweeps"


#: The most runs one sweep expands to, checked before any is built (a grid of 10^10 points never ended).
MAX_RUNS = 100_000


def _expect(value, kind, field):
    if not isinstance(value, kind):
        raise ValueError(f"{field}: expected {'an object' if kind is dict else 'a list'}, got {type(value).__name__}")
    return value


def _plot_columns(chosen):
    """The plot's x column (None: the run index) and y columns (real_time_rate when not given)."""
    return chosen.get("x"), chosen.get("y", ["real_time_rate"])


def expand(spec):
    """The runs of a spec: a list of parameter dicts, in order (runs outer, grid inner). Raises ValueError naming
    the field for a spec of the wrong shape, and for one of more than MAX_RUNS runs."""
    _expect(spec, dict, "spec")
    unknown = set(spec) - {"fixed", "grid", "runs", "outputs", "plot", "name"}
    if unknown:
        raise ValueError(f"spec: unknown field(s) {', '.join(sorted(unknown))}")
    fixed = dict(_expect(spec.get("fixed", {}), dict, "spec.fixed"))
    grid = _expect(spec.get("grid", {}), dict, "spec.grid")
    for name, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ValueError(f"spec.grid.{name}: expected a non-empty list")
    chosen = _expect(spec.get("plot", {}), dict, "spec.plot")
    unknown = set(chosen) - {"x", "y"}
    if unknown:
        raise ValueError(f"spec.plot: unknown field(s) {', '.join(sorted(unknown))} (expected x, y)")
    x, ys = _plot_columns(chosen)
    if not isinstance(x or "", str):
        raise ValueError("spec.plot.x: expected a column name")
    if not isinstance(ys, list) or not ys or not all(isinstance(y, str) for y in ys):
        raise ValueError("spec.plot.y: expected a non-empty list of column names")
    entries = _expect(spec.get("runs") or [{}], list, "spec.runs")
    for k, entry in enumerate(entries):
        _expect(entry, dict, f"spec.runs[{k}]")
    count = len(entries)
    for values in grid.values():
        count *= len(values)
    if count > MAX_RUNS:
        raise ValueError(f"spec: {count} runs, at most {MAX_RUNS} in one sweep")
    names = list(grid)
    runs = []
    for entry in entries:
        for point in itertools.product(*(grid[n] for n in names)):
            run = {**fixed, **entry, **dict(zip(names, point))}
            if ("scene" in run) == ("example" in run):
                raise ValueError("spec: each run needs either 'scene' (a simulator run) or 'example' (a quasi-static "
                                 "example), in fixed, runs or grid")
            runs.append(run)
    return runs


def default_output(name):
    """The results folder of the sweep called ``name``: ./tamsi_sweeps/NAME under the current folder. Raises
    ValueError unless ``name`` is a plain folder name."""
    if not isinstance(name, str) or name in ("", ".", "..") or "/" in name or (os.altsep and os.altsep in name):
        raise ValueError(f"spec.name: expected a folder name (no '/'), got {name!r}")
    return os.path.join(os.getcwd(), SWEEPS_FOLDER, name)


def run_key(run, outputs=()):
    """A short stable name of a run: a hash of its parameters and the outputs asked of it (a sweep asking for other
    outputs runs again)."""
    text = json.dumps({"run": run, "outputs": list(outputs)}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def _outputs(sim, outputs):
    figures = {}
    for output in outputs:
        kind, _, name = output.partition(":")
        if kind == "joint":
            values = sim.joint_qpos(name)
        elif kind == "body":
            values = sim.body_pose(name)[0]
        else:
            raise ValueError(f"outputs: expected 'joint:NAME' or 'body:NAME', got '{output}'")
        if len(values) == 1:
            figures[output] = float(values[0])
        else:
            for i, value in enumerate(values):
                figures[f"{output}[{i}]"] = float(value)
    return figures


def _run_quasistatic(run):
    """The figures of a quasi-static run: ``tamsi quasistatic run EXAMPLE --epsilon E --output CSV`` gives the same
    (its summary line's numbers and the CSV's last row)."""
    import tamsi  # imported in the worker process

    unknown = set(run) - {"example", "epsilon"}
    if unknown:
        raise ValueError(f"a quasi-static run takes 'example' and 'epsilon', not {', '.join(sorted(unknown))}")
    result = tamsi.quasistatic.run(run["example"], run.get("epsilon"))
    row = {key: result[key] for key in ("epsilon", "steps_requested", "steps_solved", "total_pivots", "max_lcp_size")}
    row["simulation_status"] = result["status"]
    row["time"] = float(result["time"][-1])
    row.update(zip(("object_x", "object_y", "object_theta"), map(float, result["object"][-1])))
    row.update(zip(result["manipulator_names"], map(float, result["manipulator"][-1])))
    row.update(min_gap=float(result["min_gap"][-1]), max_normal_impulse=float(result["max_normal_impulse"][-1]),
               num_contacts=int(result["num_contacts"][-1]))
    return row


def _run_simulator(run, outputs):
    """The figures of a simulator run (tamsi.Simulator)."""
    import tamsi  # imported in the worker process

    kwargs = {k: v for k, v in run.items() if k not in _RUN_FIELDS}
    if "options" in run:
        kwargs["options"] = tamsi.make_options(**run["options"])
    scene = kwargs.pop("scene")
    sim = tamsi.Simulator(scene, **kwargs)
    stats = sim.run(run.get("duration"))
    checks = sim.checks()
    row = dict(steps=stats.steps, sim_time=stats.sim_time, wall_time=stats.wall_time,
               real_time_rate=stats.real_time_rate, iterations_mean=stats.iterations_mean,
               iterations_max=stats.iterations_max, retried_steps=stats.retried_steps,
               failed_solves=stats.failed_solves, contacts_mean=stats.contacts_mean, contacts_max=stats.contacts_max,
               checks_passed=all(c["passed"] for c in checks) if checks else None)
    for check in checks:
        row[f"check:{check['name']}"] = check["value"]
    row.update(_outputs(sim, outputs))
    return row


def run_one(run, outputs=()):
    """Runs one run (a simulator run, or a quasi-static one with 'example') in this process and returns its figures
    as a flat dict; an exception becomes status "failed"."""
    row = {"key": run_key(run, outputs), "status": "ok", "message": ""}
    start = time.perf_counter()
    try:
        row.update(_run_quasistatic(run) if "example" in run else _run_simulator(run, outputs))
    except Exception as error:  # a failed run is a row with its message, never lost
        row.update(status="failed", message=f"{type(error).__name__}: {error}")
    row["task_seconds"] = time.perf_counter() - start
    return row


def _read_finished(runs_dir):
    finished = {}
    if os.path.isdir(runs_dir):
        for name in os.listdir(runs_dir):
            if name.endswith(".json"):
                with open(os.path.join(runs_dir, name)) as f:
                    row = json.load(f)
                finished[row["key"]] = row
    return finished


def _write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def write_table(rows, path):
    """Writes the rows as CSV: the parameters' columns first, then the figures, in first-seen order."""
    columns = []
    for row in rows:
        for column in row:
            if column not in columns:
                columns.append(column)
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: json.dumps(v) if isinstance(v, (dict, list)) else v for k, v in row.items()})


def plot(rows, x, ys, path):
    """A PNG of columns `ys` against column `x` (run index when x is None), one line per y, failed runs left out."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = [r for r in rows if r.get("status") == "ok"]
    fig, axes = plt.subplots(len(ys), 1, figsize=(6, 2.6 * len(ys)), squeeze=False)
    for ax, y in zip(axes[:, 0], ys):
        points = sorted(((r.get(x, i) if x else i), r[y]) for i, r in enumerate(ok)
                        if isinstance(r.get(y), (int, float)) and not isinstance(r.get(y), bool))
        ax.plot([p[0] for p in points], [p[1] for p in points], "o")
        ax.set_ylabel(y)
        ax.grid(True, alpha=0.3)
        if x and points and all(isinstance(p[0], (int, float)) and p[0] > 0 for p in points):
            if max(p[0] for p in points) / min(p[0] for p in points) > 20:
                ax.set_xscale("log")
    axes[-1, 0].set_xlabel(x or "run")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


class SweepResult:
    """The sweep's rows (dicts, in spec order) and the files written."""

    def __init__(self, rows, csv_path, png_path):
        self.rows, self.csv_path, self.png_path = rows, csv_path, png_path

    @property
    def failed(self):
        return [r for r in self.rows if r.get("status") != "ok"]

    def dataframe(self):
        """The table as a pandas DataFrame (needs pandas)."""
        import pandas
        return pandas.DataFrame(self.rows)


@contextmanager
def _signals_deferred():
    """SIGINT and SIGTERM held back while the block runs (in the main thread; elsewhere Python delivers no signals),
    then delivered: a local cluster interrupted while it starts cannot be closed, and Dask's exit handler would fail on
    it with a traceback."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending = []
    previous = {s: signal.signal(s, lambda signum, frame: pending.append(signum))
                for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        for s in pending[:1]:
            signal.raise_signal(s)


@contextmanager
def _stderr_to(path):
    """File descriptor 2 appended to `path` while the block runs (processes started in it keep writing there), or
    left alone when `path` is None."""
    if path is None:
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    with open(path, "ab") as log_file:
        os.dup2(log_file.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def run_sweep(spec, output=None, scheduler=None, workers=2, retry_failed=False, log=print, worker_log=None):
    """Runs a sweep spec (a dict) on the Dask scheduler at `scheduler`, or on a local cluster of `workers` worker
    processes (one thread each) when None, whose standard error goes to the file `worker_log` when given (else to
    this process's). Results are kept in the folder `output`, ./tamsi_sweeps/NAME when None
    (default_output of the spec's name, which it then needs; see the module's doc); runs already there are not run
    again (failed ones are with retry_failed). On a terminal (stderr) a progress bar counts the finished runs. Returns
    a SweepResult. Raises ValueError for a spec of the wrong shape (naming the field), OSError when `output` cannot
    be written."""
    from distributed import Client, LocalCluster, as_completed

    if output is None:
        if "name" not in spec:
            raise ValueError("spec.name: needed for the default output folder (or give output)")
        output = default_output(spec["name"])
    runs = expand(spec)
    outputs = spec.get("outputs", [])
    runs_dir = os.path.join(output, "runs")
    os.makedirs(runs_dir, exist_ok=True)
    finished = _read_finished(runs_dir)
    keys = [run_key(r, outputs) for r in runs]
    todo = {}
    for key, run in zip(keys, runs):
        row = finished.get(key)
        if key not in todo and (row is None or (retry_failed and row["status"] != "ok")):
            todo[key] = run
    log(f"sweep: {len(runs)} runs, {len(runs) - len(todo)} already finished in {runs_dir}, {len(todo)} to run")
    if todo:
        cluster = client = None
        try:  # the cluster is closed however the sweep ends, even when interrupted while it starts
            with _signals_deferred(), _stderr_to(worker_log if scheduler is None else None):
                if scheduler is None:
                    # The dashboard on a free port: another cluster on this machine may hold Dask's default one.
                    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                           dashboard_address=":0")
                    client = Client(cluster)
                else:
                    client = Client(scheduler)
            futures = [client.submit(run_one, run, outputs, key=f"tamsi-run-{key}", pure=False)
                       for key, run in todo.items()]
            done = 0
            start = time.perf_counter()
            bar = terminal_bar(len(todo), "runs")
            for future in as_completed(futures):
                try:
                    row = future.result()
                except Exception as error:  # the task itself was lost (e.g. every worker that took it died)
                    key = future.key[len("tamsi-run-"):]
                    row = {"key": key, "status": "failed", "message": f"{type(error).__name__}: {error}"}
                _write_atomic(os.path.join(runs_dir, row["key"] + ".json"), json.dumps(row))
                finished[row["key"]] = row
                done += 1
                rate = row.get("real_time_rate")
                if bar is not None:
                    bar.clear()
                log(f"[{done}/{len(todo)}] {row['key']} {row['status']}"
                    + (f", real-time rate {rate:.3g}" if isinstance(rate, float) else "")
                    + (f": {row['message']}" if row["message"] else "")
                    + f" ({time.perf_counter() - start:.1f} s)")
                if bar is not None:
                    bar.update(done)
            if bar is not None:
                bar.clear()
        finally:
            if client is not None:
                client.close()
            if cluster is not None:
                cluster.close()
    rows = [{**{k: v for k, v in run.items()}, **finished[key]} for key, run in zip(keys, runs)]
    csv_path = os.path.join(output, "results.csv")
    write_table(rows, csv_path)
    png_path = None
    chosen = spec.get("plot")
    if chosen:
        x, ys = _plot_columns(chosen)
        columns = set().union(*(row.keys() for row in rows))
        missing = [c for c in [x] + ys if c and c not in columns]
        if missing:  # the runs are kept: only the figure is left out
            log(f"sweep: plot left out: no column {', '.join(repr(c) for c in missing)} in the results")
        else:
            png_path = os.path.join(output, "plot.png")
            plot(rows, x, ys, png_path)
    failed = sum(r["status"] != "ok" for r in rows)
    log(f"sweep: {len(rows)} rows in {csv_path}" + (f", plot {png_path}" if png_path else "")
        + (f"; {failed} failed" if failed else ""))
    return SweepResult(rows, csv_path, png_path)


class _Stopped(Exception):
    """SIGTERM, raised in the main thread (as Python raises KeyboardInterrupt for SIGINT), so that the cluster is shut
    down on the way out."""


def _raise_stopped(signum, frame):
    raise _Stopped()


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="tamsi sweep",
        description="Run a sweep of tamsi runs (SPEC.json: fixed, grid, runs, outputs, plot; see "
                    "python3 -c 'import tamsi.sweep; help(tamsi.sweep)') as Dask tasks, each returning its summary "
                    "figures, into one table OUTPUT/results.csv (and OUTPUT/plot.png). Finished runs are kept in "
                    "OUTPUT/runs and not run again.")
    parser.add_argument("spec", help="the sweep spec (JSON)")
    parser.add_argument("--scheduler", help="address of a running Dask scheduler, e.g. tcp://10.0.0.5:8786; "
                                            "without it a local cluster of --workers processes")
    parser.add_argument("--workers", type=int, default=2, help="local cluster: worker processes (default 2)")
    parser.add_argument("--output", default=None,
                        help=f"results folder (default: ./{SWEEPS_FOLDER}/NAME, NAME the spec's name, else the spec "
                             "file's name without .json)")
    parser.add_argument("--retry-failed", action="store_true", help="run failed runs of a previous sweep again")
    args = parser.parse_args(argv)
    max_workers = max(64, 8 * (os.cpu_count() or 1))  # as for threads: a bound before any process starts
    if not 1 <= args.workers <= max_workers:
        print(f"tamsi sweep: --workers: must be in [1, {max_workers}], got {args.workers}", file=sys.stderr)
        return 2
    try:
        with open(args.spec) as f:
            spec = json.load(f)
    except (OSError, ValueError, RecursionError) as error:  # no file, not JSON, or nested too deep
        print(f"tamsi sweep: cannot read spec '{args.spec}': {error}", file=sys.stderr)
        return 2
    name = spec.get("name") if isinstance(spec, dict) else None
    output = args.output or default_output(name or os.path.splitext(os.path.basename(args.spec))[0])
    # The command's lines are its own: Dask's log (a stale worker folder purged, a busy worker killed or a worker
    # unknown to the scheduler at shutdown) is left out, in this process and in the worker processes (which read the
    # environment). A run's own failure is in its row, with its message.
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "critical")
    if signal.getsignal(signal.SIGTERM) != signal.SIG_IGN:  # a signal the caller ignores stays ignored
        signal.signal(signal.SIGTERM, _raise_stopped)
    try:
        # Worker processes stopped in the middle of a run at an interrupt say so on their standard error: their
        # output goes to OUTPUT/workers.log, the command's own lines stay on the terminal.
        result = run_sweep(spec, output, scheduler=args.scheduler, workers=args.workers,
                           retry_failed=args.retry_failed, log=lambda line: print(line, flush=True),
                           worker_log=os.path.join(output, "workers.log"))
    except (KeyboardInterrupt, _Stopped) as stop:  # the cluster is closed by now (run_sweep's finally)
        signum = signal.SIGINT if isinstance(stop, KeyboardInterrupt) else signal.SIGTERM
        runs_dir = os.path.join(output, "runs")
        kept = len(_read_finished(runs_dir))
        print(f"tamsi sweep: interrupted by {signum.name}; {kept} finished runs kept in {runs_dir} (the same command "
              "continues the sweep)", file=sys.stderr)
        return 128 + signum
    except ValueError as error:
        print(f"tamsi sweep: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # an output folder that cannot be made or written
        print(f"tamsi sweep: --output '{output}': {error.strerror or error}", file=sys.stderr)
        return 2
    return 1 if result.failed else 0


if __name__ == "__main__":
    sys.exit(main())
