#pragma once
/// @file
/// Thread budgets for the scaling benchmarks: 1, 2, 4, … up to this machine's hardware threads (and that count
/// itself when it is not a power of two), so one command gives 1–2 threads on a 2-core machine and 1–16 on 16 cores.

#include <algorithm>
#include <thread>
#include <vector>

namespace tamsi::bench {

inline std::vector<int> ThreadCounts() {
  const int hardware = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<int> counts;
  for (int t = 1; t < hardware; t *= 2) counts.push_back(t);
  counts.push_back(hardware);
  return counts;
}

}  // namespace tamsi::bench
