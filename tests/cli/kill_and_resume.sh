#!/usr/bin/env bash
# A `tamsi run` killed with SIGKILL after a checkpoint and resumed from it writes bitwise the same trajectory and
# contacts CSVs as the uninterrupted run. Usage: kill_and_resume.sh TAMSI
set -euo pipefail
tamsi=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run=(run clutter_bin --bodies 100 --duration 1.0 --quiet)

"$tamsi" "${run[@]}" --output "$dir/full.csv" --contacts "$dir/full_contacts.csv" >/dev/null

outputs=(--output "$dir/cut.csv" --contacts "$dir/cut_contacts.csv" --checkpoint "$dir/run.ckpt" --checkpoint-every 25)
"$tamsi" "${run[@]}" "${outputs[@]}" >/dev/null &
pid=$!
# Kill once a checkpoint past the first holds (the run is 500 steps; each checkpoint replaces the previous).
for _ in $(seq 1 3000); do
  if [ -f "$dir/run.ckpt" ] && grep -q '"step":\(50\|75\|1[0-9][0-9]\)\b' "$dir/run.ckpt"; then break; fi
  sleep 0.01
done
kill -9 "$pid" 2>/dev/null || true
status=0
wait "$pid" || status=$?
if [ "$status" -ne 137 ]; then
  echo "FAIL: the run was not killed mid-way (exit status $status): make it longer" >&2
  exit 1
fi
step=$(grep -o '"step":[0-9]*' "$dir/run.ckpt" | cut -d: -f2)
echo "killed after the checkpoint at step $step; $(wc -l < "$dir/cut.csv") trajectory lines on disk"

"$tamsi" "${run[@]}" "${outputs[@]}" --resume "$dir/run.ckpt" >/dev/null
cmp "$dir/full.csv" "$dir/cut.csv"
cmp "$dir/full_contacts.csv" "$dir/cut_contacts.csv"
echo "resumed run matches the uninterrupted run bitwise ($(wc -l < "$dir/full.csv") trajectory lines)"
# The finished run's last checkpoint (step 500) with a shorter run: nothing to continue, refused in one line.
status=0
"$tamsi" run clutter_bin --bodies 100 --duration 0.05 --quiet --resume "$dir/run.ckpt" >/dev/null 2>"$dir/past.txt" || status=$?
if [ "$status" -ne 2 ] || ! grep -q "at or past the run's end" "$dir/past.txt"; then
  echo "FAIL: a checkpoint past the run's end: exit status $status" >&2
  cat "$dir/past.txt" >&2
  exit 1
fi
