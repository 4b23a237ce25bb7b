#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UBSan (preset asan, build-asan/), then the solver's and kernels'
# tests under ThreadSanitizer (preset tsan, build-tsan/: the kernels' parallel loops on std::thread, which TSan sees;
# see kernels/include/tamsi/kernels/parallel.h). Any sanitizer report fails the run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
cd "$root"
jobs=$(nproc)
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --preset asan -j "$jobs"
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs"
TSAN_OPTIONS="halt_on_error=1:suppressions=$root/tests/tsan.supp" ctest --preset tsan -j "$jobs"
