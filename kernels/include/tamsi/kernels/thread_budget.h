#pragma once
/// @file
/// The thread budget, as the kernels' and the solver's public headers see it: declared here without TBB. Its
/// definition, with TBB's loops and reductions, is tamsi/kernels/parallel.h, which only the kernels' and the solver's
/// sources (and callers of the kernels themselves) include.

#include <algorithm>
#include <thread>

namespace tamsi::kernels {

/// The largest thread budget accepted from outside (Options::num_threads, `--threads`): max(64, 8 × the hardware
/// threads), so that thread-count studies past the cores still run while a budget that would exhaust memory in the
/// thread pool is refused up front.
inline int MaxThreads() { return std::max(64, 8 * static_cast<int>(std::thread::hardware_concurrency())); }

/// Parallel loops and deterministic reductions under a caller's budget of threads (parallel.h).
class ThreadBudget;

}  // namespace tamsi::kernels
