#!/usr/bin/env bash
# A `tamsi run` interrupted by SIGINT or SIGTERM stops after the step under way: exit status 128 + the signal, one line
# naming the signal and the step, the summary printed, and outputs that end at that step (the header, the initial
# state and one whole row per step, the file ending in a newline). Usage: interrupt.sh TAMSI
set -euo pipefail
set -m  # job control: the background run gets SIGINT's default disposition, which a script's jobs otherwise ignore
tamsi=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for signal in INT TERM; do
  "$tamsi" run clutter_bin --bodies 100 --duration 100 --quiet --output "$dir/run.csv" >"$dir/out.txt" 2>"$dir/err.txt" &
  pid=$!
  sleep 2
  kill -"$signal" "$pid"
  status=0
  wait "$pid" || status=$?
  expected=$((128 + $(kill -l "$signal")))
  if [ "$status" -ne "$expected" ]; then
    echo "FAIL: SIG$signal: exit status $status, expected $expected" >&2
    cat "$dir/err.txt" >&2
    exit 1
  fi
  step=$(grep -o "^tamsi: interrupted by SIG$signal at step [0-9]*" "$dir/err.txt" | grep -o '[0-9]*$')
  grep -q "^steps  *$step$" "$dir/out.txt"
  lines=$(wc -l < "$dir/run.csv")
  if [ "$lines" -ne $((step + 2)) ] || [ "$(tail -c 1 "$dir/run.csv" | od -An -c | tr -d ' ')" != '\n' ]; then
    echo "FAIL: SIG$signal at step $step: the trajectory has $lines lines (expected $((step + 2))) or a torn end" >&2
    exit 1
  fi
  columns=$(awk -F, '{print NF}' "$dir/run.csv" | sort -u | wc -l)
  if [ "$columns" -ne 1 ]; then
    echo "FAIL: SIG$signal: rows of different lengths in the trajectory" >&2
    exit 1
  fi
  echo "SIG$signal: stopped at step $step with $lines whole trajectory lines"
done
echo "interrupted runs end at a whole step"
