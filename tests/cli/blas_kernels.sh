#!/usr/bin/env bash
# `tamsi --version` names the OpenBLAS kernels the command runs on. Started without OPENBLAS_CORETYPE, the command
# must get vector kernels on a CPU with AVX2 and FMA even where its OpenBLAS is older than the CPU (it restarts
# itself with OPENBLAS_CORETYPE); a caller's OPENBLAS_CORETYPE is kept. With BENCH and FILTER (a benchmark
# executable of bench/ that factors, and one of its benchmarks), its "blas" context line must name the same kernels.
# Usage: blas_kernels.sh TAMSI [BENCH FILTER]
set -euo pipefail
tamsi=$1
bench=${2:-}
filter=${3:-}
version=$(env -u OPENBLAS_CORETYPE "$tamsi" --version)
echo "$version"
blas=$(grep '^BLAS ' <<<"$version")
if [ "$blas" = "BLAS not OpenBLAS, or none loaded" ]; then
  echo "another BLAS: nothing to check"
  exit 0
fi
flags=$(grep -m1 '^flags' /proc/cpuinfo)
if grep -qw avx2 <<<"$flags" && grep -qw fma <<<"$flags" && grep -q Prescott <<<"$blas"; then
  echo "FAIL: this CPU has AVX2 and FMA, but the command runs OpenBLAS's generic kernels: $blas" >&2
  exit 1
fi
if [ -n "$bench" ]; then
  context=$(env -u OPENBLAS_CORETYPE "$bench" --benchmark_filter="$filter" --benchmark_min_time=0.001 2>&1 | grep "^blas:" || true)
  echo "$context"
  if [ "$context" != "blas: ${blas#BLAS }" ]; then
    echo "FAIL: the benchmark runs other kernels than the command: '$context' against '$blas'" >&2
    exit 1
  fi
fi
kept=$(OPENBLAS_CORETYPE=Prescott "$tamsi" --version | grep '^BLAS ')
if [ "$kept" != "BLAS OpenBLAS, Prescott kernels" ]; then
  echo "FAIL: OPENBLAS_CORETYPE=Prescott was not kept: $kept" >&2
  exit 1
fi
echo "the command runs this CPU's OpenBLAS kernels"
