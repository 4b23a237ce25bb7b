#pragma once
/// @file
/// The one place that owns TBB: parallel loops and deterministic reductions under the caller's thread budget. No public
/// header of the solver includes it (they see thread_budget.h's declaration).

#include <tamsi/kernels/thread_budget.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <thread>
#ifdef TAMSI_STD_THREAD_LOOPS
#include <condition_variable>
#include <mutex>
#include <vector>
#endif

namespace tamsi::kernels {

/// A thread budget: loops run inside a TBB arena of at most `num_threads` workers (≤ 0: all hardware threads).
/// Results of every loop below are independent of the budget (each output element is computed by one task in a
/// fixed order; reductions are minima, which are exact in any order); ForTree's, where each node's work depends only
/// on its descendants'.
///
/// ThreadSanitizer builds (TAMSI_THREAD_SANITIZER, which defines TAMSI_STD_THREAD_LOOPS) run the same loops on
/// std::thread instead, one contiguous chunk per thread (ForTree: threads taking ready nodes from one queue): Debian's
/// TBB is not instrumented, so TSan could not tell its scheduling from a race, while every access of the loop bodies
/// (tamsi's own code) is checked either way.
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
#ifdef TAMSI_STD_THREAD_LOOPS
    OnThreads(n, grain, [&](int, int begin, int end) { f(begin, end); });
#else
    arena_->execute([&] {
      tbb::parallel_for(tbb::blocked_range<int>(0, n, std::max(grain, 1)),
                        [&](const tbb::blocked_range<int>& r) { f(r.begin(), r.end()); });
    });
#endif
  }

  /// Reduces over [0, n): chunk(begin, end) gives a chunk's value, join(a, b) combines two values. Deterministic
  /// only for joins that are exact in any order (min, max, integer sums): use it for nothing else.
  template <typename T, typename Chunk, typename Join>
  T Reduce(int n, int grain, T identity, Chunk&& chunk, Join&& join) const {
    if (n <= 0) return identity;
    if (num_threads_ == 1 || n <= grain) return join(identity, chunk(0, n));
    T result = identity;
#ifdef TAMSI_STD_THREAD_LOOPS
    std::vector<T> partial(num_threads_, identity);
    const int chunks = OnThreads(n, grain, [&](int c, int begin, int end) { partial[c] = chunk(begin, end); });
    for (int c = 0; c < chunks; ++c) result = join(result, partial[c]);
    return result;
#endif
    arena_->execute([&] {
      result = tbb::parallel_reduce(
          tbb::blocked_range<int>(0, n, std::max(grain, 1)), identity,
          [&](const tbb::blocked_range<int>& r, T acc) { return join(acc, chunk(r.begin(), r.end())); }, join);
    });
    return result;
  }

  /// [0, n) cut by n alone, never by the thread count, into at most kMaxFixedRanges ranges of at least `grain`
  /// indices: range r is [FixedRangeBegin(n, ranges, r), FixedRangeBegin(n, ranges, r + 1)). Work combined range by
  /// range in order (ForFixedRanges, Sum) is then bitwise the same for any thread count.
  static constexpr int kMaxFixedRanges = 64;
  static int NumFixedRanges(int n, int grain) { return std::clamp(n / std::max(grain, 1), 1, kMaxFixedRanges); }
  static int FixedRangeBegin(int n, int ranges, int r) { return static_cast<int>(1LL * n * r / ranges); }

  /// Runs f(r, begin, end) for each fixed range r of [0, n) (NumFixedRanges(n, grain) of them), one task per range.
  template <typename F>
  void ForFixedRanges(int n, int grain, F&& f) const {
    const int ranges = NumFixedRanges(n, grain);
    For(ranges, 1, [&](int begin, int end) {
      for (int r = begin; r < end; ++r) f(r, FixedRangeBegin(n, ranges, r), FixedRangeBegin(n, ranges, r + 1));
    });
  }

  /// Σ over [0, n) of chunk(begin, end) (a T with + and T{} its zero: double, a fixed-size Eigen vector), bitwise
  /// the same for any thread count: each fixed range (ForFixedRanges) is summed by one task, and the ranges' sums are
  /// added in order. Allocates nothing.
  template <typename T, typename Chunk>
  T Sum(int n, int grain, Chunk&& chunk) const {
    std::array<T, kMaxFixedRanges> partial;
    ForFixedRanges(n, grain, [&](int r, int begin, int end) { partial[r] = chunk(begin, end); });
    T sum = partial[0];
    for (int r = 1; r < NumFixedRanges(n, grain); ++r) sum = sum + partial[r];
    return sum;
  }

  /// Runs f(i) for every node i of the forest [0, n) given by parent (parent[i] > i, or −1 for a root), each after
  /// f has returned for all its children; nodes whose children are done run in parallel (under TBB, the thread that
  /// finishes a node's last child goes on with the node). num_children[i]: i's children; pending: n counters, the
  /// caller's storage (TBB still allocates a task per leaf; the ThreadSanitizer build, its queue and threads). f may
  /// run loops of its own on this budget. With one thread, f runs in the order 0, 1, …, n − 1.
  template <typename F>
  void ForTree(int n, const int* parent, const int* num_children, std::atomic<int>* pending, F&& f) const {
    if (num_threads_ == 1) {
      for (int i = 0; i < n; ++i) f(i);
      return;
    }
    for (int i = 0; i < n; ++i) pending[i].store(num_children[i], std::memory_order_relaxed);
#ifdef TAMSI_STD_THREAD_LOOPS
    // num_threads_ threads take ready nodes from one queue (the leaves first); finishing a node's last child queues it.
    std::vector<int> ready;
    for (int i = 0; i < n; ++i)
      if (num_children[i] == 0) ready.push_back(i);
    std::mutex mutex;
    std::condition_variable changed;
    int finished = 0;
    auto work = [&] {
      std::unique_lock<std::mutex> lock(mutex);
      for (;;) {
        changed.wait(lock, [&] { return !ready.empty() || finished == n; });
        if (finished == n) return;
        const int i = ready.back();
        ready.pop_back();
        lock.unlock();
        f(i);
        const bool parent_ready = parent[i] >= 0 && pending[parent[i]].fetch_sub(1, std::memory_order_acq_rel) == 1;
        lock.lock();
        ++finished;
        if (parent_ready) ready.push_back(parent[i]);
        changed.notify_all();
      }
    };
    std::vector<std::thread> threads;
    for (int t = 1; t < num_threads_; ++t) threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();
#else
    arena_->execute([&] {
      tbb::task_group group;
      for (int leaf = 0; leaf < n; ++leaf) {
        if (num_children[leaf] != 0) continue;
        group.run([&, leaf] {
          for (int i = leaf; i >= 0; i = parent[i]) {
            f(i);
            if (parent[i] < 0 || pending[parent[i]].fetch_sub(1, std::memory_order_acq_rel) != 1) break;
          }
        });
      }
      group.wait();
    });
#endif
  }

 private:
#ifdef TAMSI_STD_THREAD_LOOPS
  /// Runs g(chunk, begin, end) over [0, n) in at most num_threads_ contiguous chunks of at least `grain` indices, one
  /// per thread (chunk 0 on the caller's); returns the number of chunks.
  template <typename G>
  int OnThreads(int n, int grain, G&& g) const {
    const int chunks = std::min(num_threads_, (n + std::max(grain, 1) - 1) / std::max(grain, 1));
    std::vector<std::thread> threads;
    for (int c = 1; c < chunks; ++c)
      threads.emplace_back(
          [&, c] { g(c, static_cast<int>(1LL * n * c / chunks), static_cast<int>(1LL * n * (c + 1) / chunks)); });
    g(0, 0, static_cast<int>(1LL * n / chunks));
    for (std::thread& t : threads) t.join();
    return chunks;
  }
#endif
  int num_threads_;
  std::unique_ptr<tbb::task_arena> arena_;
};

}  // namespace tamsi::kernels
