// The end-of-run summary of `tamsi run` on stdout: at the end, or when a step failed.
#include <iostream>

#include "run_observers.h"

namespace tamsi::cli {
namespace {

class RunSummary : public scenes::RunObserver {
 public:
  void OnStepFailed(const scenes::Run& run) override { std::cout << run.simulator().statistics().Report(); }
  void OnFinish(const scenes::Run& run) override { std::cout << run.simulator().statistics().Report(); }
};

}  // namespace

std::unique_ptr<scenes::RunObserver> MakeRunSummary(const RunArgs&, scenes::Run*) {
  return std::make_unique<RunSummary>();
}

}  // namespace tamsi::cli
