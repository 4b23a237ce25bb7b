#!/usr/bin/env bash
# Installs the Debian dependencies (if missing), then configures and builds tamsi (Release) in build/.
# Extra arguments go to CMake's configure step, e.g. -DTAMSI_SANITIZE=ON.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
build=${TAMSI_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
