#!/usr/bin/env bash
# Formats the project's C++ sources with clang-format (.clang-format); with --check, changes nothing and fails
# (naming the files) when any source is not formatted. CI runs the check.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t sources < <(git ls-files '*.cc' '*.h')
if [ "${1:-}" = "--check" ]; then
  clang-format --dry-run --Werror "${sources[@]}"
else
  clang-format -i "${sources[@]}"
fi
