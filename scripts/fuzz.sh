#!/usr/bin/env bash
# Builds the libFuzzer targets (preset fuzz, clang with ASan + UBSan, build-fuzz/) and runs each for SECONDS (default
# 60) from the committed corpus in tests/fuzz/corpus/ (new inputs go to a scratch copy; pass a corpus folder of your
# own as the second argument to keep them, e.g. for a week-long run). A crash, a sanitizer report, a leak, a slow
# input (-timeout) or a memory blow-up (-rss_limit_mb) fails the run; libFuzzer writes the reproducer into
# build-fuzz/artifacts/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
keep=${2:-}
bash "$root/scripts/install-deps.sh"
cd "$root"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)" --target problem_fuzzer scene_fuzzer
mkdir -p build-fuzz/artifacts
for target in problem scene; do
  if [ -n "$keep" ]; then
    work="$keep/$target"
    mkdir -p "$work"
  else
    work=$(mktemp -d)
  fi
  cp -r "tests/fuzz/corpus/$target/." "$work/"
  echo "fuzz: ${target}_fuzzer for $seconds s from $(ls "tests/fuzz/corpus/$target" | wc -l) committed inputs"
  log=build-fuzz/${target}_fuzzer.log
  status=0
  "build-fuzz/tests/fuzz/${target}_fuzzer" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
    -max_len=16384 -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/ "$work" >"$log" 2>&1 || status=$?
  grep -E "^(INFO: seed corpus|Done|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 60 "$log"
    echo "fuzz: ${target}_fuzzer failed with status $status (reproducer in build-fuzz/artifacts/, log $log)"
    exit 1
  fi
  [ -n "$keep" ] || rm -rf "$work"
done
