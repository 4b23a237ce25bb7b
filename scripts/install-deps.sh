#!/usr/bin/env bash
# Installs the Debian packages tamsi builds against. Idempotent: quiet and quick when all are present.
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config
          libeigen3-dev libsuitesparse-dev libtbb-dev
          libmujoco-dev libqhull-dev
          nlohmann-json3-dev libcli11-dev
          libgtest-dev libgmock-dev libbenchmark-dev
          libsiconos-numerics-dev gnuplot-nox
          clang libclang-rt-14-dev libomp-14-dev
          libosmesa6-dev ffmpeg python3-matplotlib chromium
          pybind11-dev python3-numpy python3-scipy python3-pytest python3-distributed python3-pandas)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm bundles the browser replay viewer at build time (apps/viewer); Debian's unless a Node.js with npm is present.
command -v npm >/dev/null || missing+=(nodejs npm)
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
