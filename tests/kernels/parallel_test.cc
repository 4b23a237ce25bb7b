// The fixed ranges, deterministic sums and tree tasks of ThreadBudget (kernels/include/tamsi/kernels/parallel.h).
#include <gtest/gtest.h>
#include <tamsi/kernels/parallel.h>

#include <Eigen/Core>
#include <algorithm>
#include <atomic>
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

TEST(ThreadBudgetFixedRanges, CoverTheIndicesOnceInRangesSetByTheCountAlone) {
  for (int n : {0, 1, 511, 512, 1023, 5000, 100000}) {
    SCOPED_TRACE(n);
    const int ranges = ThreadBudget::NumFixedRanges(n, 512);
    EXPECT_EQ(ranges, n < 1024 ? 1 : std::min(n / 512, ThreadBudget::kMaxFixedRanges));
    for (int threads : {1, 3, 16}) {
      std::vector<int> owner(n, -1), begins(ranges, -1), ends(ranges, -1);
      ThreadBudget(threads).ForFixedRanges(n, 512, [&](int r, int begin, int end) {
        begins[r] = begin;
        ends[r] = end;
        for (int i = begin; i < end; ++i) owner[i] = r;
      });
      for (int r = 0; r < ranges; ++r) {
        EXPECT_EQ(begins[r], ThreadBudget::FixedRangeBegin(n, ranges, r));
        EXPECT_EQ(ends[r], ThreadBudget::FixedRangeBegin(n, ranges, r + 1));
        if (n >= 1024) {
          EXPECT_GE(ends[r] - begins[r], 512);
        }
      }
      for (int i = 0; i < n; ++i) ASSERT_GE(owner[i], 0) << i;  // every index in one range (contiguous, in order)
      EXPECT_TRUE(std::is_sorted(owner.begin(), owner.end()));
    }
  }
}

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

// ForTree runs every node of a random forest once, each after all its children (a node finds its children's marks
// set, with memory ordered by the counters), with loops of its own nested on the same budget, for 1 to 4 threads; on
// one thread in the order 0 … n − 1; and an empty forest returns at once.
TEST(ThreadBudgetForTree, RunsEachNodeOnceAfterItsChildren) {
  const int n = 500;
  std::mt19937 rng(3);
  std::vector<int> parent(n, -1), children(n, 0);
  for (int i = 0; i + 1 < n; ++i) {
    if (rng() % 10 == 0) continue;  // a root
    parent[i] = i + 1 + static_cast<int>(rng() % std::min(5, n - 1 - i));
    ++children[parent[i]];
  }
  for (int threads : {1, 2, 3, 4}) {
    SCOPED_TRACE(threads);
    const ThreadBudget budget(threads);
    std::vector<std::atomic<int>> pending(n);
    std::vector<int> runs(n, 0), order;
    std::vector<long> nested(n, 0);
    std::atomic<int> early{0};
    budget.ForTree(n, parent.data(), children.data(), pending.data(), [&](int i) {
      for (int c = 0; c < i; ++c)
        if (parent[c] == i && runs[c] != 1) early.fetch_add(1);
      ++runs[i];
      if (threads == 1) order.push_back(i);
      std::vector<long> part(8, 0);
      budget.For(8, 1, [&](int begin, int end) {
        for (int k = begin; k < end; ++k) part[k] = k + i;
      });
      for (long p : part) nested[i] += p;
    });
    EXPECT_EQ(early.load(), 0);
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(runs[i], 1) << i;
      EXPECT_EQ(nested[i], 28 + 8L * i) << i;
    }
    int calls = 0;
    budget.ForTree(0, nullptr, nullptr, nullptr, [&](int) { ++calls; });
    EXPECT_EQ(calls, 0);
    if (threads == 1) {
      std::vector<int> ascending(n);
      for (int i = 0; i < n; ++i) ascending[i] = i;
      EXPECT_EQ(order, ascending);
    }
  }
}

}  // namespace
}  // namespace tamsi::kernels
