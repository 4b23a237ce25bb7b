#!/usr/bin/env bash
# The main job: build, then `tamsi run` (default: the gripper_mug_shake scene for 5 s). Arguments go to `tamsi run`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh"
exec "${TAMSI_BUILD_DIR:-$root/build}/apps/tamsi" run "$@"
