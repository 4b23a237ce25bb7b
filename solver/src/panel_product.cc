#include "panel_product.h"

#include <cblas.h>
#include <tamsi/blas_runtime.h>

#include <algorithm>
#include <cctype>
#include <string>

#if defined(__x86_64__)
#include <immintrin.h>
#define TAMSI_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace tamsi::internal {
namespace {

#if defined(__x86_64__)
/// AVX2 vectors of floats and doubles: W entries, loads and stores of W or, under a mask, the first few.
struct FloatOps {
  using T = float;
  using V = __m256;
  using Mask = __m256i;
  static constexpr int W = 8;
  TAMSI_AVX2 static V Zero() { return _mm256_setzero_ps(); }
  TAMSI_AVX2 static V Set(T x) { return _mm256_set1_ps(x); }
  TAMSI_AVX2 static V Load(const T* p) { return _mm256_loadu_ps(p); }
  TAMSI_AVX2 static V Load(const T* p, Mask m) { return _mm256_maskload_ps(p, m); }
  TAMSI_AVX2 static void Store(T* p, V v) { _mm256_storeu_ps(p, v); }
  TAMSI_AVX2 static void Store(T* p, Mask m, V v) { _mm256_maskstore_ps(p, m, v); }
  TAMSI_AVX2 static V Fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  TAMSI_AVX2 static V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
  TAMSI_AVX2 static Mask FirstRows(int rows) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(rows), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
};

struct DoubleOps {
  using T = double;
  using V = __m256d;
  using Mask = __m256i;
  static constexpr int W = 4;
  TAMSI_AVX2 static V Zero() { return _mm256_setzero_pd(); }
  TAMSI_AVX2 static V Set(T x) { return _mm256_set1_pd(x); }
  TAMSI_AVX2 static V Load(const T* p) { return _mm256_loadu_pd(p); }
  TAMSI_AVX2 static V Load(const T* p, Mask m) { return _mm256_maskload_pd(p, m); }
  TAMSI_AVX2 static void Store(T* p, V v) { _mm256_storeu_pd(p, v); }
  TAMSI_AVX2 static void Store(T* p, Mask m, V v) { _mm256_maskstore_pd(p, m, v); }
  TAMSI_AVX2 static V Fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  TAMSI_AVX2 static V Mul(V a, V b) { return _mm256_mul_pd(a, b); }
  TAMSI_AVX2 static Mask FirstRows(int rows) {
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(rows), _mm256_setr_epi64x(0, 1, 2, 3));
  }
};

/// One tile of C: R vectors of rows (the last only its first rows under `mask` when Masked) by NJ columns, summed
/// over k in registers, then C ← beta C + alpha sum.
template <class Ops, int R, int NJ, bool Masked>
TAMSI_AVX2 void Tile(int k, typename Ops::T alpha, const typename Ops::T* a, int lda, const typename Ops::T* b, int ldb,
                     typename Ops::T beta, typename Ops::T* c, int ldc, typename Ops::Mask mask) {
  using V = typename Ops::V;
  constexpr int W = Ops::W;
  V sum[R][NJ];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < NJ; ++j) sum[r][j] = Ops::Zero();
  for (int p = 0; p < k; ++p) {
    const typename Ops::T* column = a + static_cast<long>(p) * lda;
    V x[R];
    for (int r = 0; r < R; ++r)
      x[r] = Masked && r == R - 1 ? Ops::Load(column + r * W, mask) : Ops::Load(column + r * W);
    const typename Ops::T* row = b + static_cast<long>(p) * ldb;
    for (int j = 0; j < NJ; ++j) {
      const V y = Ops::Set(row[j]);
      for (int r = 0; r < R; ++r) sum[r][j] = Ops::Fma(x[r], y, sum[r][j]);
    }
  }
  const V va = Ops::Set(alpha), vb = Ops::Set(beta);
  for (int j = 0; j < NJ; ++j)
    for (int r = 0; r < R; ++r) {
      typename Ops::T* to = c + static_cast<long>(j) * ldc + r * W;
      const bool masked = Masked && r == R - 1;
      V out = Ops::Mul(va, sum[r][j]);
      if (beta != 0) out = Ops::Fma(vb, masked ? Ops::Load(to, mask) : Ops::Load(to), out);
      if (masked)
        Ops::Store(to, mask, out);
      else
        Ops::Store(to, out);
    }
}

template <class Ops, int R, bool Masked>
TAMSI_AVX2 void Tiles(int columns, int k, typename Ops::T alpha, const typename Ops::T* a, int lda,
                      const typename Ops::T* b, int ldb, typename Ops::T beta, typename Ops::T* c, int ldc,
                      typename Ops::Mask mask) {
  switch (columns) {
    case 1:
      return Tile<Ops, R, 1, Masked>(k, alpha, a, lda, b, ldb, beta, c, ldc, mask);
    case 2:
      return Tile<Ops, R, 2, Masked>(k, alpha, a, lda, b, ldb, beta, c, ldc, mask);
    case 3:
      return Tile<Ops, R, 3, Masked>(k, alpha, a, lda, b, ldb, beta, c, ldc, mask);
    default:
      return Tile<Ops, R, 4, Masked>(k, alpha, a, lda, b, ldb, beta, c, ldc, mask);
  }
}

/// C in column groups of 4 and, within each, row groups of 2 vectors, then 1, then the rest under a mask.
template <class Ops>
TAMSI_AVX2 void Product(int m, int n, int k, typename Ops::T alpha, const typename Ops::T* a, int lda,
                        const typename Ops::T* b, int ldb, typename Ops::T beta, typename Ops::T* c, int ldc) {
  constexpr int W = Ops::W;
  const typename Ops::Mask all = Ops::FirstRows(W);
  for (int j = 0; j < n; j += 4) {
    const int columns = std::min(4, n - j);
    const typename Ops::T* bj = b + j;
    typename Ops::T* cj = c + static_cast<long>(j) * ldc;
    int i = 0;
    for (; i + 2 * W <= m; i += 2 * W)
      Tiles<Ops, 2, false>(columns, k, alpha, a + i, lda, bj, ldb, beta, cj + i, ldc, all);
    if (i + W <= m) {
      Tiles<Ops, 1, false>(columns, k, alpha, a + i, lda, bj, ldb, beta, cj + i, ldc, all);
      i += W;
    }
    if (i < m) Tiles<Ops, 1, true>(columns, k, alpha, a + i, lda, bj, ldb, beta, cj + i, ldc, Ops::FirstRows(m - i));
  }
}
#endif

}  // namespace

bool HasPanelProductKernel() {
#if defined(__x86_64__)
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return has;
#else
  return false;
#endif
}

void PanelProductKernel(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb, float beta,
                        float* c, int ldc) {
#if defined(__x86_64__)
  Product<FloatOps>(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
#endif
}

void PanelProductKernel(int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb,
                        double beta, double* c, int ldc) {
#if defined(__x86_64__)
  Product<DoubleOps>(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
#endif
}

namespace {
/// Whether PanelProduct runs the kernel: the CPU has it, and the BLAS is not an OpenBLAS running its AVX-512 kernels.
bool UsesKernel() {
  static const bool uses = [] {
    std::string core = OpenBlasCore();  // "SkylakeX" from a build for many CPUs, "SKYLAKEX" from one for one
    std::transform(core.begin(), core.end(), core.begin(), [](unsigned char c) { return std::tolower(c); });
    return HasPanelProductKernel() && core != "skylakex" && core != "cooperlake" && core != "sapphirerapids";
  }();
  return uses;
}
}  // namespace

void PanelProduct(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb, float beta,
                  float* c, int ldc) {
  if (UsesKernel()) return PanelProductKernel(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void PanelProduct(int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb, double beta,
                  double* c, int ldc) {
  if (UsesKernel()) return PanelProductKernel(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace tamsi::internal
