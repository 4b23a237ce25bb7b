#!/usr/bin/env bash
# Installs what tamsi builds against: Debian's packages, then the newest MuJoCo from PyPI into the project's own
# virtual environment .venv (its wheel ships libmujoco and its headers; CMake's Findmujoco.cmake reads them there).
# Idempotent: quiet and quick when all is present.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mujoco_version=4.0.0
packages=(build-essential cmake ninja-build pkg-config
          libeigen3-dev libsuitesparse-dev libmetis-dev libtbb-dev
          libqhull-dev
          nlohmann-json3-dev libcli11-dev libtinyxml2-dev
          libgtest-dev libgmock-dev libbenchmark-dev
          libsiconos-numerics-dev gnuplot-nox
          clang clang-format clang-tidy libclang-rt-14-dev libomp-14-dev
          libosmesa6-dev ffmpeg python3-matplotlib chromium
          pybind11-dev python3-numpy python3-scipy python3-pytest python3-distributed python3-pandas python3-venv)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm bundles the browser replay viewer at build time (apps/viewer); Debian's unless a Node.js with npm is present.
command -v npm >/dev/null || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# MuJoCo, pinned. The environment sees Debian's NumPy and SciPy (--system-site-packages).
venv=$root/.venv
if ! "$venv/bin/python" -c "import mujoco, sys; sys.exit(mujoco.__version__ != '$mujoco_version')" 2>/dev/null; then
  echo "install-deps: installing mujoco==$mujoco_version into $venv"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "mujoco==$mujoco_version"
fi
