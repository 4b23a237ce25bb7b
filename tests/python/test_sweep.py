"""tamsi.sweep: a sweep on a local cluster of 2 worker processes (a failed run kept as a row, a resumed sweep that
runs nothing again), and `tamsi sweep` on a scheduler and two workers started with Dask's own commands on the
loopback, one of them killed mid-sweep."""

import csv
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

import tamsi
from tamsi import sweep

SPEC = {"fixed": {"scene": "box_stick_slip", "duration": 0.05, "dt": 1e-3},
        "grid": {"friction": [0.2, 1.0, -1.0]},
        "outputs": ["joint:x"],
        "plot": {"x": "friction", "y": ["real_time_rate", "joint:x"]}}


def test_local_cluster_sweep_and_resume(tmp_path):
    lines = []
    result = sweep.run_sweep(SPEC, str(tmp_path), workers=2, log=lines.append)
    assert [r["friction"] for r in result.rows] == [0.2, 1.0, -1.0]
    ok, failed = result.rows[:2], result.rows[2]
    assert all(r["status"] == "ok" and r["steps"] == 50 for r in ok)
    assert failed["status"] == "failed" and "friction: must be finite and >= 0" in failed["message"]
    # Each row is what the run gives in this process, bit for bit.
    direct = sweep.run_one(sweep.expand(SPEC)[0], SPEC["outputs"])
    assert ok[0]["joint:x"] == direct["joint:x"]
    # The box's push peaks at 4 N · sin(2π · 0.05) = 1.24 N: it slides under μ = 0.2 (0.65 N), sticks under 1.
    assert ok[0]["joint:x"] > 100 * abs(ok[1]["joint:x"])
    with open(result.csv_path) as f:
        assert len(list(csv.DictReader(f))) == 3
    assert os.path.getsize(result.png_path) > 0
    assert len(result.dataframe()) == 3
    assert sum(line.startswith("[") for line in lines) == 3

    again = []
    resumed = sweep.run_sweep(SPEC, str(tmp_path), workers=2, log=again.append)
    assert "3 already finished" in again[0] and "0 to run" in again[0]
    assert resumed.rows == result.rows


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_sweep_survives_a_killed_worker(tmp_path):
    runs = 8
    spec = {"fixed": {"scene": "clutter_bin", "bodies": 60, "duration": 0.6}, "grid": {"seed": list(range(runs))}}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    address = f"tcp://127.0.0.1:{_free_port()}"
    env = dict(os.environ)
    processes = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                   "--port", address.rsplit(":", 1)[1], "--no-dashboard"],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        for _ in range(2):
            processes.append(subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-nanny",
                 "--no-dashboard", "--host", "127.0.0.1"], env=env, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL))
        from distributed import Client
        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=30)
        victim = processes[1]
        sweep_process = subprocess.Popen([os.environ["TAMSI_CLI"], "sweep", str(tmp_path / "spec.json"),
                                          "--scheduler", address, "--output", str(tmp_path / "out")],
                                         stdout=subprocess.PIPE, text=True, env=env)
        lines = []
        for line in sweep_process.stdout:
            lines.append(line)
            if line.startswith("[1/"):
                victim.send_signal(signal.SIGKILL)
        assert sweep_process.wait(timeout=120) == 0, "".join(lines)
        assert victim.poll() is not None
        finished = [line for line in lines if line.startswith("[")]
        assert len(finished) == runs and finished[-1].startswith(f"[{runs}/{runs}]")
        with open(tmp_path / "out" / "results.csv") as f:
            rows = list(csv.DictReader(f))
        assert sorted(int(r["seed"]) for r in rows) == list(range(runs))
        assert all(r["status"] == "ok" and int(r["steps"]) == 300 for r in rows)
    finally:
        for p in reversed(processes):
            if p.poll() is None:
                p.terminate()
                p.wait(timeout=30)


def test_specs_of_the_wrong_shape_or_size_are_named_before_anything_runs(tmp_path, capsys):
    for spec, message in [([1, 2], "spec: expected an object, got list"),
                          ({"fixed": [1]}, "spec.fixed: expected an object, got list"),
                          ({"grid": {"friction": 1.0}}, "spec.grid.friction: expected a non-empty list"),
                          ({"runs": {"scene": "x"}}, "spec.runs: expected a list, got dict"),
                          ({"runs": [3]}, r"spec.runs\[0\]: expected an object, got int"),
                          ({"plot": "x"}, "spec.plot: expected an object, got str"),
                          ({"plot": {"y": "zzz"}}, "spec.plot.y: expected a non-empty list of column names"),
                          ({"plot": {"x": 1}}, "spec.plot.x: expected a column name"),
                          # 10^10 grid points: counted, not built (it never ended).
                          ({"fixed": {"scene": "box_stick_slip"},
                            "grid": {f"p{k}": list(range(10)) for k in range(10)}},
                           "spec: 10000000000 runs, at most 100000 in one sweep")]:
        with pytest.raises(ValueError, match=message):
            sweep.expand(spec)
    # The command line: one line and exit status 2, no traceback.
    path = tmp_path / "list.json"
    path.write_text("[1, 2]")
    assert sweep.main([str(path), "--output", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == "tamsi sweep: spec: expected an object, got list\n"
    path.write_text("[" * 100000 + "]" * 100000)  # nested beyond Python's recursion limit: one line too
    assert sweep.main([str(path), "--output", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.startswith(f"tamsi sweep: cannot read spec '{path}': maximum recursion depth")
    path.write_text(json.dumps(SPEC))
    assert sweep.main([str(path), "--workers", "1000000"]) == 2
    assert "--workers: must be in [1, " in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert sweep.main([str(path), "--output", str(blocker / "out")]) == 2
    assert capsys.readouterr().err.startswith(f"tamsi sweep: --output '{blocker / 'out'}': ")


def quasistatic_command(example, epsilon, tmp_path):
    """`tamsi quasistatic run EXAMPLE --epsilon E --output CSV`: its summary line's numbers and the CSV's last row."""
    path = tmp_path / f"{example}.csv"
    printed = subprocess.run([os.environ["TAMSI_CLI"], "quasistatic", "run", example, "--epsilon", repr(epsilon),
                              "--output", str(path)], check=True, capture_output=True, text=True).stdout
    status, solved, requested, pivots, lcp = re.search(
        r"\): (\w+): (\d+)/(\d+) steps, (\d+) pivots, max LCP (\d+)", printed).groups()
    with open(path) as f:
        last = list(csv.DictReader(f))[-1]
    return status, [int(solved), int(requested), int(pivots), int(lcp)], last


def test_quasistatic_rows_equal_the_command(tmp_path, monkeypatch):
    examples = [name for name, _, _ in tamsi.quasistatic.examples()][:2]
    spec = {"name": "pushes", "grid": {"example": examples, "epsilon": [0.5, 1e-3]},
            "plot": {"x": "epsilon", "y": ["object_x"]}}
    monkeypatch.chdir(tmp_path)
    result = sweep.run_sweep(spec, workers=1, log=lambda line: None)
    # The default folder: ./tamsi_sweeps/NAME under the current one.
    assert result.csv_path == str(tmp_path / "tamsi_sweeps" / "pushes" / "results.csv")
    assert len(result.rows) == 4 and not result.failed
    for row in result.rows:
        status, counts, last = quasistatic_command(row["example"], row["epsilon"], tmp_path)
        assert row["simulation_status"] == status
        assert [row[k] for k in ("steps_solved", "steps_requested", "total_pivots", "max_lcp_size")] == counts
        for column, text in last.items():  # the CSV holds 12 significant digits
            assert row[column] == pytest.approx(float(text), rel=1e-11, abs=1e-14), column
    with pytest.raises(ValueError, match="each run needs either 'scene'"):
        sweep.expand({"fixed": {"scene": "box_stick_slip", "example": examples[0]}})
    assert sweep.run_one({"example": examples[0], "dt": 1e-3})["message"] == (
        "ValueError: a quasi-static run takes 'example' and 'epsilon', not dt")


def test_command_writes_under_the_working_folder(tmp_path, monkeypatch, capsys):
    example = tamsi.quasistatic.examples()[0][0]
    # A plot of a column the results do not have: the table is written, the figure left out with one line.
    (tmp_path / "qs.json").write_text(json.dumps({"fixed": {"example": example}, "plot": {"y": ["zzz"]}}))
    monkeypatch.chdir(tmp_path)
    assert sweep.main([str(tmp_path / "qs.json"), "--workers", "1"]) == 0
    assert (tmp_path / "tamsi_sweeps" / "qs" / "results.csv").exists()
    assert not (tmp_path / "tamsi_sweeps" / "qs" / "plot.png").exists()
    assert "sweep: plot left out: no column 'zzz' in the results" in capsys.readouterr().out
    for name in ("", "..", "a/b"):
        with pytest.raises(ValueError, match="spec.name: expected a folder name"):
            sweep.default_output(name)
    with pytest.raises(ValueError, match="spec.name: needed for the default output folder"):
        sweep.run_sweep({"fixed": {"example": example}})
