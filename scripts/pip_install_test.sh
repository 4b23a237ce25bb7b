#!/usr/bin/env bash
# `pip install` of this repository (pyproject.toml: scikit-build-core, MuJoCo, pybind11 and the rest from PyPI) into a
# fresh virtual environment, then the Python tests and examples against the installed package (no PYTHONPATH, run
# from outside the tree) and mypy on the examples with the package's stubs (and matplotlib's, for contact_forces.py).
# The build inside pip is most of its time (3–5 min on 2 cores). TAMSI_CLI (default build/apps/tamsi, when
# scripts/build.sh made it) enables the tests that compare with the command line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"  # Debian's SuiteSparse, TBB, OpenBLAS, ... which the module links
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 -m venv "$work/venv"
python=$work/venv/bin/python
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
unset PYTHONPATH
start=$SECONDS
"$python" -m pip install -q --disable-pip-version-check "$root" pytest==9.2.0 mypy==2.4.1 matplotlib==3.10.9
echo "pip_install_test: pip install took $((SECONDS - start)) s"
cd "$work"
"$python" -c "import tamsi, mujoco; print('pip_install_test: tamsi from', tamsi.__file__, '| mujoco', mujoco.__version__)"
tests=("$root/tests/python/test_mujoco_step.py" "$root/tests/python/test_solver.py" "$root/tests/python/test_simulator.py"
       "$root/tests/python/test_simulator_calls.py")
cli=${TAMSI_CLI:-$root/build/apps/tamsi}
deselect=()
if [ -x "$cli" ]; then
  export TAMSI_CLI=$cli
else
  deselect=(-k "not matches_the_command and not equal_to_tamsi_solve")
fi
"$python" -m pytest -q -p no:cacheprovider "${deselect[@]}" "${tests[@]}"
"$python" "$root/examples/python/solve_from_arrays.py" >/dev/null
"$python" "$root/examples/python/gripper_controller.py" >/dev/null
if [ -n "${TAMSI_MODELS_DIR:-}" ]; then
  "$python" "$root/examples/python/step_mjdata.py"
  "$python" "$root/examples/python/contact_forces.py" "$work/contact_forces.png"
fi
"$python" -m mypy --config-file "$root/pyproject.toml" --no-incremental "$root"/examples/python/*.py
echo "pip_install_test: passed in $((SECONDS - start)) s"
