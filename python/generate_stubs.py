"""Writes the type stubs of tamsi._tamsi with pybind11-stubgen: generate_stubs.py PACKAGE_PARENT OUTPUT.

PACKAGE_PARENT holds the built package tamsi/ (the build tree's python/), put first on sys.path here rather than in
PYTHONPATH, which pip's isolated build environment uses itself. Fails (exit status 1) when stubgen reports an error.
"""

import sys

sys.path.insert(0, sys.argv[1])
output = sys.argv[2]

import pybind11_stubgen  # noqa: E402  (after the path)

sys.argv = ["pybind11-stubgen", "tamsi._tamsi", "--output-dir", output, "--numpy-array-wrap-with-annotated",
            "--exit-code"]
pybind11_stubgen.main()
