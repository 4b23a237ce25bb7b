#include <tamsi/blas_runtime.h>

#include "bindings.h"

PYBIND11_MODULE(_tamsi, m) {
  tamsi::PinOpenBlasToOneThread();
  m.doc() =
      "tamsi: compliant contact with regularized friction, sparse and parallel (Castro, Qu et al. 2020, RA-L). "
      "SI units throughout.";
  tamsi::python::BindSolver(m);
  tamsi::python::BindSimulator(m);
  tamsi::python::BindMujoco(m);
  tamsi::python::BindQuasistatic(m);
  m.def("openblas_core", &tamsi::OpenBlasCore,
        "The kernels the loaded OpenBLAS chose for this CPU (e.g. 'SkylakeX', 'Haswell', 'Zen'; 'Prescott' is its "
        "generic SSE3 set); '' when the BLAS is not OpenBLAS.");
  m.def("_openblas_core_type_for_this_cpu", &tamsi::OpenBlasCoreTypeForThisCpu,
        "The OPENBLAS_CORETYPE that would give this CPU vector kernels where OpenBLAS fell back to 'Prescott' and none "
        "was set, else ''.");
}
