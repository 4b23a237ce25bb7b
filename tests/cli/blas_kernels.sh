#!/usr/bin/env bash
# `tamsi --version` names the OpenBLAS kernels the command runs on. Started without OPENBLAS_CORETYPE, the command
# must get vector kernels on a CPU with AVX2 and FMA even where its OpenBLAS is older than the CPU (it restarts
# itself with OPENBLAS_CORETYPE); a caller's OPENBLAS_CORETYPE is kept. Usage: blas_kernels.sh TAMSI
set -euo pipefail
tamsi=$1
version=$(env -u OPENBLAS_CORETYPE "$tamsi" --version)
echo "$version"
blas=$(grep '^BLAS ' <<<"$version")
if [ "$blas" = "BLAS (not OpenBLAS)" ]; then
  echo "another BLAS: nothing to check"
  exit 0
fi
flags=$(grep -m1 '^flags' /proc/cpuinfo)
if grep -qw avx2 <<<"$flags" && grep -qw fma <<<"$flags" && grep -q Prescott <<<"$blas"; then
  echo "FAIL: this CPU has AVX2 and FMA, but the command runs OpenBLAS's generic kernels: $blas" >&2
  exit 1
fi
kept=$(OPENBLAS_CORETYPE=Prescott "$tamsi" --version | grep '^BLAS ')
if [ "$kept" != "BLAS OpenBLAS, Prescott kernels" ]; then
  echo "FAIL: OPENBLAS_CORETYPE=Prescott was not kept: $kept" >&2
  exit 1
fi
echo "the command runs this CPU's OpenBLAS kernels"
