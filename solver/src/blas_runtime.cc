#include <tamsi/blas_runtime.h>
#include <unistd.h>

#include <cstdlib>

// OpenBLAS's own entry points, weak: absent (null) when another BLAS is linked.
extern "C" char* openblas_get_corename() __attribute__((weak));
extern "C" void openblas_set_num_threads(int num_threads) __attribute__((weak));

namespace tamsi {

std::string OpenBlasCore() { return openblas_get_corename != nullptr ? openblas_get_corename() : ""; }

std::string BlasKernels() {
  const std::string core = OpenBlasCore();
  return core.empty() ? "not OpenBLAS, or none loaded" : "OpenBLAS, " + core + " kernels";
}

std::string OpenBlasCoreTypeForThisCpu() {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr || OpenBlasCore() != "Prescott") return "";
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512vl");
  if (avx512) return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return "";
}

void PinOpenBlasToOneThread() {
  if (openblas_set_num_threads != nullptr) openblas_set_num_threads(1);
}

void RestartWithOpenBlasSettings(char** argv) {
  bool restart = false;
  if (std::getenv("OPENBLAS_NUM_THREADS") == nullptr && setenv("OPENBLAS_NUM_THREADS", "1", 1) == 0) restart = true;
  const std::string core = OpenBlasCoreTypeForThisCpu();
  if (!core.empty() && setenv("OPENBLAS_CORETYPE", core.c_str(), 1) == 0) restart = true;
  if (restart) execv("/proc/self/exe", argv);  // returns only when it fails: go on in this process
  PinOpenBlasToOneThread();
}

}  // namespace tamsi
