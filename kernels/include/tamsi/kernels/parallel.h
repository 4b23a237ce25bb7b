#pragma once
/// @file
/// The one place that owns TBB: parallel loops and deterministic reductions under the caller's thread budget.

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <memory>

namespace tamsi::kernels {

/// A thread budget: loops run inside a TBB arena of at most `num_threads` workers (≤ 0: all hardware threads).
/// Results of every loop below are independent of the budget (each output element is computed by one task in a
/// fixed order; reductions are minima, which are exact in any order).
class ThreadBudget {
 public:
  explicit ThreadBudget(int num_threads = 1)
      : num_threads_(num_threads > 0 ? num_threads : tbb::this_task_arena::max_concurrency()),
        arena_(std::make_unique<tbb::task_arena>(num_threads_)) {}
  int num_threads() const { return num_threads_; }

  /// Runs f(begin, end) over [0, n) in chunks of at least `grain` indices.
  template <typename F>
  void For(int n, int grain, F&& f) const {
    if (n <= 0) return;
    if (num_threads_ == 1 || n <= grain) {
      f(0, n);
      return;
    }
    arena_->execute([&] {
      tbb::parallel_for(tbb::blocked_range<int>(0, n, std::max(grain, 1)),
                        [&](const tbb::blocked_range<int>& r) { f(r.begin(), r.end()); });
    });
  }

  /// Reduces over [0, n): chunk(begin, end) gives a chunk's value, join(a, b) combines two values. Deterministic
  /// only for joins that are exact in any order (min, max, integer sums): use it for nothing else.
  template <typename T, typename Chunk, typename Join>
  T Reduce(int n, int grain, T identity, Chunk&& chunk, Join&& join) const {
    if (n <= 0) return identity;
    if (num_threads_ == 1 || n <= grain) return join(identity, chunk(0, n));
    T result = identity;
    arena_->execute([&] {
      result = tbb::parallel_reduce(
          tbb::blocked_range<int>(0, n, std::max(grain, 1)), identity,
          [&](const tbb::blocked_range<int>& r, T acc) { return join(acc, chunk(r.begin(), r.end())); }, join);
    });
    return result;
  }

 private:
  int num_threads_;
  std::unique_ptr<tbb::task_arena> arena_;
};

}  // namespace tamsi::kernels
