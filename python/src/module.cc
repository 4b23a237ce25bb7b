#include <tamsi/blas_runtime.h>

#include <string>

#include "bindings.h"

PYBIND11_MODULE(_tamsi, m) {
  tamsi::PinOpenBlasToOneThread();
  // OpenBLAS picked its kernels when it loaded, before this module could choose them (the `tamsi` command restarts
  // itself; an interpreter cannot): say how to get the fast ones.
  if (const std::string core = tamsi::OpenBlasCoreTypeForThisCpu(); !core.empty()) {
    const std::string message =
        "tamsi: the loaded OpenBLAS does not know this CPU and runs its generic SSE3 kernels "
        "(factorizations about 2x slower); set OPENBLAS_CORETYPE=" +
        core + " before tamsi is imported";
    if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) != 0) throw pybind11::error_already_set();
  }
  m.doc() =
      "tamsi: compliant contact with regularized friction, sparse and parallel (Castro, Qu et al. 2020, RA-L). "
      "SI units throughout.";
  tamsi::python::BindSolver(m);
  tamsi::python::BindSimulator(m);
  tamsi::python::BindMujoco(m);
  tamsi::python::BindQuasistatic(m);
}
