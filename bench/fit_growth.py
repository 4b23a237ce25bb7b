#!/usr/bin/env python3
"""Tables and growth exponents from solver_bench's JSON output (--benchmark_out=FILE --benchmark_out_format=json).

For every benchmark named BM_<Family>/N:<n>/threads:<t>/oneway:<0|1> it prints, per family, a Markdown table of
the wall time per solve (the median over repetitions when the run had --benchmark_repetitions, else the single
run), the Newton iterations and whether the solve converged, and the least-squares slope of log(time) against
log(N) (the empirical growth exponent: time ∝ N^slope) over N ≥ --min-n among converged solves, also per Newton
iteration.

Usage: fit_growth.py RESULTS.json [MORE.json ...] [--min-n 100]
"""

import argparse
import collections
import json
import math
import re

NAME = re.compile(r"(BM_\w+)/N:(\d+)/threads:(\d+)/oneway:(\d+)$")


def load(paths):
    runs = collections.defaultdict(dict)  # (family, threads, oneway) -> {N: benchmark}
    for path in paths:
        with open(path) as f:
            benchmarks = json.load(f)["benchmarks"]
        has_median = any(b.get("aggregate_name") == "median" for b in benchmarks)
        for b in benchmarks:
            if has_median and b.get("aggregate_name") != "median":
                continue
            m = NAME.match(b["run_name"] if "run_name" in b else b["name"])
            if m:
                runs[(m.group(1), int(m.group(3)), int(m.group(4)))][int(m.group(2))] = b
    return runs


def slope(points):
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+")
    parser.add_argument("--min-n", type=int, default=100)
    args = parser.parse_args()
    runs = load(args.results)
    for family in sorted({key[0] for key in runs}):
        print(f"\n### {family}\n")
        print("| N | nv | nc | threads | coupling | ms per solve | iterations | converged |")
        print("|---:|---:|---:|---:|---|---:|---:|---|")
        keys = sorted(key for key in runs if key[0] == family)
        for key in keys:
            for n, b in sorted(runs[key].items()):
                print(f"| {n} | {int(b['nv'])} | {int(b['nc'])} | {key[1]} | {'one-way' if key[2] else 'two-way'} "
                      f"| {b['real_time']:.3g} | {int(b['iterations'])} | {'yes' if b['converged'] == 1 else 'NO'} |")
        print()
        for key in keys:
            ok = [(n, b) for n, b in sorted(runs[key].items()) if n >= args.min_n and b["converged"] == 1]
            if len(ok) < 3:
                continue
            total = slope([(n, b["real_time"]) for n, b in ok])
            per_iteration = slope([(n, b["real_time"] / b["iterations"]) for n, b in ok])
            print(f"- {'one-way' if key[2] else 'two-way'}, {key[1]} thread(s), N = {ok[0][0]}…{ok[-1][0]}: "
                  f"time ∝ N^{total:.2f}, time per iteration ∝ N^{per_iteration:.2f}")


if __name__ == "__main__":
    main()
