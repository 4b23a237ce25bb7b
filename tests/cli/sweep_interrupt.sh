#!/usr/bin/env bash
# A `tamsi sweep` interrupted by SIGINT or SIGTERM, while its local cluster starts or while its workers run, shuts the
# cluster down and exits 128 + the signal with one line naming the signal and the runs it kept (nothing from Python's
# or Dask's shutdown, nor from the workers stopped mid-run). Usage: sweep_interrupt.sh TAMSI
set -euo pipefail
set -m  # job control: the background sweep gets SIGINT's default disposition, which a script's jobs otherwise ignore
tamsi=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo '{"fixed": {"scene": "clutter_bin", "bodies": 100, "duration": 1000}, "grid": {"friction": [0.5, 1.0]}}' \
  >"$dir/spec.json"
for case in "INT 0" "TERM 0" "INT 3" "TERM 3"; do  # 0 s: the cluster starting; 3 s: its workers inside runs
  read -r signal wait <<<"$case"
  "$tamsi" sweep "$dir/spec.json" --workers 2 --output "$dir/out_$signal$wait" >"$dir/out.txt" 2>"$dir/err.txt" &
  pid=$!
  for _ in $(seq 300); do grep -q "to run" "$dir/out.txt" && break; sleep 0.1; done
  sleep "$wait"
  kill -"$signal" "$pid"
  status=0
  wait "$pid" || status=$?
  expected=$((128 + $(kill -l "$signal")))
  if [ "$status" -ne "$expected" ] || [ "$(wc -l < "$dir/err.txt")" -ne 1 ] ||
    ! grep -q "^tamsi sweep: interrupted by SIG$signal; 0 finished runs kept in $dir/out_$signal$wait/runs" "$dir/err.txt"; then
    echo "FAIL: SIG$signal after $wait s: exit status $status (expected $expected), stderr:" >&2
    cat "$dir/err.txt" >&2
    exit 1
  fi
  echo "SIG$signal after $wait s: $(cat "$dir/err.txt")"
done
echo "interrupted sweeps end with one line"
