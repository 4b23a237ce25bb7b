#pragma once
/// @file
/// The BLAS under the sparse factorizations at run time: which OpenBLAS kernels this process got, and the settings a
/// process applies before OpenBLAS loads (it reads them only then).

#include <string>

namespace tamsi {

/// The kernel set ("core") the loaded OpenBLAS chose for this CPU, e.g. "SkylakeX", "Haswell", "Zen" or
/// "Prescott" (its generic SSE3 kernels); empty when the BLAS is not OpenBLAS.
std::string OpenBlasCore();

/// OpenBlasCore() for people: "OpenBLAS, <core> kernels", or "not OpenBLAS, or none loaded" (`tamsi --version`'s and
/// the benchmarks' "blas" line).
std::string BlasKernels();

/// The OPENBLAS_CORETYPE to set, for a process whose caller did not set one, that gives this CPU vector kernels when
/// the loaded OpenBLAS fell back to "Prescott" because it is older than the CPU (Debian 12's OpenBLAS 0.3.21 on
/// Intel's Emerald Rapids, CPU model 207, which makes the block Cholesky's products ~2× slower): "SkylakeX" when the
/// CPU has AVX-512 (F, CD, BW, DQ, VL), "Haswell" when it has AVX2 and FMA; empty otherwise (OPENBLAS_CORETYPE set,
/// another core, no OpenBLAS, or a CPU without either).
std::string OpenBlasCoreTypeForThisCpu();

/// Pins OpenBLAS to one thread (a no-op under another BLAS): tamsi parallelizes with TBB, and OpenBLAS's own threads
/// would fight it for the cores and make the factorizations' last bits depend on their count.
void PinOpenBlasToOneThread();

/// For a program's main(): unless the caller set it, sets OPENBLAS_NUM_THREADS=1 (the threaded OpenBLAS starts its
/// threads when it loads, and under an address-space limit they retried their allocations forever) and, where
/// OpenBlasCoreTypeForThisCpu() names one, OPENBLAS_CORETYPE; then starts the same binary again with `argv` (once:
/// the second start finds both set). Returns only when nothing needed setting or the restart failed (the process
/// then goes on as it is), after PinOpenBlasToOneThread(). Call it first, before any thread starts.
void RestartWithOpenBlasSettings(char** argv);

}  // namespace tamsi
