#!/usr/bin/env bash
# Builds tamsi, runs the whole test suite (unit, physics, CLI and one pass of every benchmark), then installs the
# library into a scratch prefix and builds the example consumer against it with find_package(tamsi).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TAMSI_BUILD_DIR:-$root/build}
bash "$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix/install" >/dev/null
cmake -S "$root/examples/consumer" -B "$prefix/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$prefix/install" >/dev/null
cmake --build "$prefix/consumer" >/dev/null
"$prefix/consumer/tamsi_consumer"
# The installed Python package imports from its site-packages folder (when the build has it).
for site in "$prefix"/install/lib/python3*/dist-packages; do
  if [ -d "$site/tamsi" ]; then PYTHONPATH="$site" /usr/bin/python3 -c "import tamsi; tamsi.TamsiSolver()"; fi
done
