#include "bindings.h"

// OpenBLAS, when it is the BLAS behind SuiteSparse, would spawn its own threads in every factorization and change
// the results' last bits with their count; the `tamsi` command pins it to one thread, and so does the module.
extern "C" void openblas_set_num_threads(int num_threads) __attribute__((weak));

PYBIND11_MODULE(_tamsi, m) {
  if (openblas_set_num_threads != nullptr) openblas_set_num_threads(1);
  m.doc() =
      "tamsi: compliant contact with regularized friction, sparse and parallel (Castro, Qu et al. 2020, RA-L). "
      "SI units throughout.";
  tamsi::python::BindSolver(m);
  tamsi::python::BindSimulator(m);
  tamsi::python::BindMujoco(m);
  tamsi::python::BindQuasistatic(m);
}
