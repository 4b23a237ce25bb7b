// The scene's checks at the end of `tamsi run`: one line each, exit status 1 when one failed.
#include <cstdio>
#include <iostream>
#include <string>

#include "run_observers.h"

namespace tamsi::cli {
namespace {

std::string Brief(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.3g", value);
  return buffer;
}

class CheckReport : public scenes::RunObserver {
 public:
  void OnFinish(const scenes::Run& run) override {
    int failed = 0;
    for (const scenes::CheckResult& check : run.scene().checks->Results()) {
      std::cout << "check            " << (check.passed ? "PASS " : "FAIL ") << check.name << " " << Brief(check.value)
                << " (bound " << Brief(check.bound) << ")\n";
      failed += !check.passed;
    }
    if (failed > 0) throw CLI::RuntimeError(std::to_string(failed) + " of the scene's checks failed", 1);
  }
};

}  // namespace

std::unique_ptr<scenes::RunObserver> MakeCheckReport(const RunArgs&, scenes::Run* run) {
  if (!run->scene().checks) return nullptr;
  return std::make_unique<CheckReport>();
}

}  // namespace tamsi::cli
