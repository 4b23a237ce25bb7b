// The first step of a run that risks tunnelling, named on stderr.
#include <iostream>

#include "run_observers.h"

namespace tamsi::cli {
namespace {

class TunnellingWarning : public scenes::RunObserver {
 public:
  void OnStep(const scenes::Run& run) override {
    const scenes::RunStatistics& statistics = run.simulator().statistics();
    if (run.last_step().fast_bodies > 0 && statistics.tunnelling_steps == 1)
      std::cerr << "warning: " << statistics.first_tunnelling << "\n";
  }
};

}  // namespace

std::unique_ptr<scenes::RunObserver> MakeTunnellingWarning(const RunArgs&, scenes::Run*) {
  return std::make_unique<TunnellingWarning>();
}

}  // namespace tamsi::cli
