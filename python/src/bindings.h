#pragma once
/// @file
/// The parts of the Python module tamsi._tamsi, one function per C++ library bound.

#include <pybind11/pybind11.h>

namespace tamsi::python {

/// ContactProblem, Options (and their enums), Summary, Result, TamsiSolver, the problem file IO.
void BindSolver(pybind11::module_& m);
/// Simulator over a built-in scene or an MJCF file, its step information, statistics and contacts.
void BindSimulator(pybind11::module_& m);
/// The quasi-static examples (submodule quasistatic).
void BindQuasistatic(pybind11::module_& m);

}  // namespace tamsi::python
