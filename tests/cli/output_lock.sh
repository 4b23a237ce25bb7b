#!/usr/bin/env bash
# Two writers of one output file: a second `tamsi run` (or a second output of the same run) given a file that a run is
# writing exits 2 with one line naming it, and leaves the first run's file whole; devices are not locked, so two runs
# may both write /dev/null. The same for checkpoints: a second run on a run's checkpoint, a checkpoint that is also the
# trajectory, and one that is not a regular file (a FIFO, never replaced) are refused, and so is a second run into a
# run's problem-dump or plots folder. Usage: output_lock.sh TAMSI
set -euo pipefail
set -m  # job control: the background run gets SIGINT's default disposition, which a script's jobs otherwise ignore
tamsi=$1
dir=$(mktemp -d)
trap 'kill %1 2>/dev/null || true; rm -rf "$dir"' EXIT
"$tamsi" run clutter_bin --bodies 100 --duration 100 --quiet --output "$dir/run.csv" --checkpoint "$dir/run.ckpt" \
  --checkpoint-every 10 --dump-failures "$dir/dumps" --plots "$dir/plots" >/dev/null 2>"$dir/first.txt" &
for _ in $(seq 100); do [ -s "$dir/run.csv" ] && break; sleep 0.1; done
status=0
"$tamsi" run box_stick_slip --quiet --output "$dir/run.csv" >/dev/null 2>"$dir/second.txt" || status=$?
if [ "$status" -ne 2 ] || [ "$(wc -l < "$dir/second.txt")" -ne 1 ] ||
  ! grep -q "trajectory file '$dir/run.csv' is being written by another run" "$dir/second.txt"; then
  echo "FAIL: a second run on the same --output: exit status $status, message:" >&2
  cat "$dir/second.txt" >&2
  exit 1
fi
status=0
"$tamsi" run box_stick_slip --quiet --output "$dir/both.csv" --contacts "$dir/both.csv" >/dev/null 2>"$dir/both.txt" ||
  status=$?
[ "$status" -eq 2 ] || { echo "FAIL: --output and --contacts on one file: exit status $status" >&2; exit 1; }
"$tamsi" run box_stick_slip --quiet --output /dev/null >/dev/null  # the background run does not hold devices
# Refused with exit status 2 and one line matching $1: the rest of the arguments.
refused() {
  local pattern=$1 status=0
  shift
  "$tamsi" run box_stick_slip --quiet "$@" >/dev/null 2>"$dir/refused.txt" || status=$?
  if [ "$status" -ne 2 ] || [ "$(wc -l < "$dir/refused.txt")" -ne 1 ] || ! grep -q -e "$pattern" "$dir/refused.txt"; then
    echo "FAIL: $*: exit status $status, message:" >&2
    cat "$dir/refused.txt" >&2
    exit 1
  fi
}
refused "checkpoint lock file '$dir/run.ckpt.lock' is being written by another run" --checkpoint "$dir/run.ckpt"
refused "the --dump-problems folder lock file '$dir/dumps.lock' is being written by another run" \
  --dump-problems "$dir/dumps"
refused "the --plots folder lock file '$dir/plots.lock' is being written by another run" --plots "$dir/plots"
refused "--checkpoint: '$dir/same.csv' is also the --output file" --output "$dir/same.csv" --checkpoint "$dir/same.csv"
mkfifo "$dir/fifo"
refused "--checkpoint: '$dir/fifo' exists and is not a regular file" --checkpoint "$dir/fifo"
[ -p "$dir/fifo" ] || { echo "FAIL: the FIFO given as --checkpoint was replaced" >&2; exit 1; }
refused "--checkpoint: '$dir/no_such_folder/run.ckpt' is in a folder that does not exist" \
  --checkpoint "$dir/no_such_folder/run.ckpt"
kill -INT %1
wait %1 || true
columns=$(awk -F, '{print NF}' "$dir/run.csv" | sort -u | wc -l)
if [ "$columns" -ne 1 ] || ! grep -q "^tamsi: interrupted by SIGINT" "$dir/first.txt"; then
  echo "FAIL: the first run's trajectory was disturbed" >&2
  exit 1
fi
if [ -e "$dir/run.ckpt.lock" ] || [ -e "$dir/dumps.lock" ] || [ -e "$dir/plots.lock" ] || ls "$dir"/run.ckpt.tmp* >/dev/null 2>&1; then
  echo "FAIL: a lock or temporary file outlived the run" >&2
  exit 1
fi
echo "a second writer of an output file is refused"
