// The deterministic sums of ThreadBudget (kernels/include/tamsi/kernels/parallel.h).
#include <gtest/gtest.h>
#include <tamsi/kernels/parallel.h>

#include <Eigen/Core>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace tamsi::kernels {
namespace {

/// Values of widely spread magnitudes, so that the order of additions shows in the last bits.
std::vector<double> SpreadValues(int n) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-20, 20);
  std::vector<double> x(n);
  for (double& v : x) v = std::ldexp(mantissa(rng), exponent(rng));
  return x;
}

bool BitwiseEqual(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(ThreadBudgetSum, IsBitwiseTheSameForAnyThreadCountAndCloseToTheExactSum) {
  for (int n : {0, 1, 100, 511, 512, 5000, 100000}) {
    SCOPED_TRACE(n);
    const std::vector<double> x = SpreadValues(n);
    auto chunk = [&](int begin, int end) {
      double s = 0.0;
      for (int i = begin; i < end; ++i) s += x[i];
      return s;
    };
    const double one = ThreadBudget(1).Sum<double>(n, 512, chunk);
    for (int threads : {2, 3, 7, 16}) EXPECT_TRUE(BitwiseEqual(ThreadBudget(threads).Sum<double>(n, 512, chunk), one));
    long double exact = 0.0L, magnitude = 0.0L;
    for (double v : x) {
      exact += v;
      magnitude += std::abs(v);
    }
    EXPECT_NEAR(one, static_cast<double>(exact), 1e-13 * static_cast<double>(magnitude));
    // Below two ranges' worth, one range: the plain loop's sum.
    if (n < 1024) {
      EXPECT_TRUE(BitwiseEqual(one, chunk(0, n)));
    }
  }
}

TEST(ThreadBudgetSum, AddsFixedSizeVectors) {
  const int n = 3000;
  const Eigen::Vector2d sum = ThreadBudget(4).Sum<Eigen::Vector2d>(n, 100, [](int begin, int end) {
    Eigen::Vector2d s = Eigen::Vector2d::Zero();
    for (int i = begin; i < end; ++i) s += Eigen::Vector2d(1.0, i);
    return s;
  });
  EXPECT_EQ(sum[0], n);
  EXPECT_EQ(sum[1], 0.5 * n * (n - 1));
}

}  // namespace
}  // namespace tamsi::kernels
