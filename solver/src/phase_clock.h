#pragma once
/// @file
/// Internal: the clock behind the solver's phase times (SolveCounters::time_*), which Options::time_phases turns off.

#include <chrono>

namespace tamsi::internal {

/// steady_clock when `on`. Off, it reads no clock: every time point is the clock's epoch, so every time measured
/// with it is 0 s.
class PhaseClock {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  explicit PhaseClock(bool on) : on_(on) {}

  TimePoint Now() const { return on_ ? std::chrono::steady_clock::now() : TimePoint{}; }
  /// Seconds from `since` to `until`.
  static double Seconds(TimePoint since, TimePoint until) {
    return std::chrono::duration<double>(until - since).count();
  }
  /// Seconds from `since` to now.
  double Since(TimePoint since) const { return Seconds(since, Now()); }

 private:
  bool on_;
};

}  // namespace tamsi::internal
