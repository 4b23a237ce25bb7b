// The benchmarks' main(): Google Benchmark's, after the OpenBLAS settings that the `tamsi` command applies, so that
// both time the same kernels; the context records which ones ("blas" in the console header and the JSON output).
#include <benchmark/benchmark.h>
#include <tamsi/blas_runtime.h>

int main(int argc, char** argv) {
  tamsi::RestartWithOpenBlasSettings(argv);
  benchmark::AddCustomContext("blas", tamsi::BlasKernels());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
