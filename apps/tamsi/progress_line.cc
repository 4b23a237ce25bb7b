// Unless --quiet: where a long run is, on stderr at most once a second.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include "run_observers.h"

namespace tamsi::cli {
namespace {

std::string Format(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

class ProgressLine : public scenes::RunObserver {
 public:
  /// `duration`: the run's simulated time (s), for the line.
  explicit ProgressLine(double duration) : duration_(duration), last_report_(std::chrono::steady_clock::now()) {}
  /// "  t = T s of D s, real-time rate R x, contacts N", once more than a second passed since the last line.
  void OnStep(const scenes::Run& run) override {
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last_report_).count() <= 1.0) return;
    last_report_ = now;
    std::cerr << "  t = " << Format("%.3f", run.time()) << " s of " << Format("%.3g", duration_)
              << " s, real-time rate " << Format("%.3g", run.simulator().statistics().real_time_rate())
              << "x, contacts " << run.simulator().builder().contacts().size() << "\n";
  }

 private:
  double duration_;
  std::chrono::steady_clock::time_point last_report_;
};

}  // namespace

std::unique_ptr<scenes::RunObserver> MakeProgressLine(const RunArgs& args, scenes::Run* run) {
  if (args.quiet) return nullptr;
  return std::make_unique<ProgressLine>(run->duration());
}

}  // namespace tamsi::cli
