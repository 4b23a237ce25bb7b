#!/usr/bin/env bash
# clang-tidy (.clang-tidy: bug-prone patterns, performance, function size) over the solver's and kernels' sources,
# with the compile commands of the build folder (scripts/build.sh writes them). Any finding fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TAMSI_BUILD_DIR:-$root/build}
cd "$root"
ls solver/src/*.cc kernels/src/*.cc | xargs -P "$(nproc)" -n 1 clang-tidy -p "$build" --quiet 2>/dev/null
echo "tidy: solver and kernels clean"
