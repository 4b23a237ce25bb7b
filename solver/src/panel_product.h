#pragma once
/// @file
/// Internal: the block Cholesky's update products, C ← beta C + alpha A Bᵀ for column-major A (m × k), B (n × k) and
/// C (m × n), of at most a few tens of rows and columns.

namespace tamsi::internal {

/// C ← beta C + alpha A Bᵀ (beta 0: C is only written). On a CPU with AVX2 and FMA, tamsi's own kernel: 16 (float)
/// or 8 (double) rows by 4 columns of C summed in registers over k in order, reading A and B in place. OpenBLAS
/// 0.3.21's AVX2 gemm takes a buffer from one locked pool on every call, so threads that factor at once queued on its
/// mutex, and it packs A and B first, which products this small do not repay (bench/README.md, "A parallel block
/// Cholesky"). Elsewhere, and where OpenBLAS runs its AVX-512 kernels (SkylakeX, Cooperlake, SapphireRapids: faster
/// on one thread than this kernel, and without the pool for small products), the BLAS's gemm. Each entry of C is
/// the same for any call order or thread.
void PanelProduct(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb, float beta,
                  float* c, int ldc);
void PanelProduct(int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb, double beta,
                  double* c, int ldc);

/// Whether this CPU runs tamsi's kernel (x86-64 with AVX2 and FMA), and the kernel itself, whatever the BLAS (for
/// tests; PanelProduct chooses). PanelProductKernel does nothing where HasPanelProductKernel() is false.
bool HasPanelProductKernel();
void PanelProductKernel(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb, float beta,
                        float* c, int ldc);
void PanelProductKernel(int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb,
                        double beta, double* c, int ldc);

}  // namespace tamsi::internal
