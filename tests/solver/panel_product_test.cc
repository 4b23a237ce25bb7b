// Internal: the block Cholesky's update products (solver/src/panel_product.h) against a sum in long double.
#include "panel_product.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace tamsi::internal {
namespace {

template <typename T>
class PanelProductTest : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(PanelProductTest, Precisions);

// C ← beta C + alpha A Bᵀ, by PanelProduct and by tamsi's kernel itself (where the CPU runs it, whichever BLAS
// PanelProduct chooses), for every shape from 1 to 40 rows (vector groups of two, one and a masked rest), 1 to 9
// columns (groups of 4 and the rest) and k of 1, 6 and 64, inside larger strided arrays: every entry of C agrees with
// the long-double sum to the precision's rounding, beta = 0 never reads C (it holds NaN), and no entry of the arrays
// outside C (the rows below it in each column, the columns after it) changes.
TYPED_TEST(PanelProductTest, MatchesTheSumAndWritesOnlyC) {
  using T = TypeParam;
  const T tolerance = std::is_same_v<T, float> ? T(2e-6) : T(1e-14);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  const T sentinel = T(12345.0);
  for (int k : {1, 6, 64})
    for (int m = 1; m <= 40; ++m)
      for (int n = 1; n <= 9; ++n)
        for (T beta : {T(0), T(1)})
          for (T alpha : {T(1), T(-1)}) {
            const int lda = m + 3, ldb = n + 2, ldc = m + 5;
            std::vector<T> a(static_cast<size_t>(lda) * k), b(static_cast<size_t>(ldb) * k);
            for (T& x : a) x = static_cast<T>(value(rng));
            for (T& x : b) x = static_cast<T>(value(rng));
            std::vector<T> c0(static_cast<size_t>(ldc) * (n + 1), sentinel);
            for (int j = 0; j < n; ++j)
              for (int i = 0; i < m; ++i)
                c0[i + j * ldc] = beta == T(0) ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(value(rng));
            for (bool kernel : {false, true}) {
              if (kernel && !HasPanelProductKernel()) continue;
              SCOPED_TRACE(kernel ? "kernel" : "PanelProduct");
              std::vector<T> c = c0;
              if (kernel)
                PanelProductKernel(m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
              else
                PanelProduct(m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
              for (int j = 0; j <= n; ++j)
                for (int i = 0; i < ldc; ++i) {
                  const size_t e = i + static_cast<size_t>(j) * ldc;
                  if (i >= m || j == n) {
                    ASSERT_EQ(c[e], sentinel) << "outside C at (" << i << ", " << j << "), m " << m << " n " << n;
                    continue;
                  }
                  long double sum = 0;
                  for (int p = 0; p < k; ++p)
                    sum += static_cast<long double>(a[i + p * lda]) * static_cast<long double>(b[j + p * ldb]);
                  const long double expected = alpha * sum + (beta == T(0) ? 0.0L : beta * c0[e]);
                  ASSERT_NEAR(static_cast<double>(c[e]), static_cast<double>(expected), tolerance * (k + 1))
                      << "m " << m << " n " << n << " k " << k << " at (" << i << ", " << j << ")";
                }
            }
          }
}

}  // namespace
}  // namespace tamsi::internal
