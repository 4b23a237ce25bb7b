// --html: the browser replay of a run, its initial state and the frames due after each step.
#include "html_replay.h"
#include "run_observers.h"

namespace tamsi::cli {
namespace {

class HtmlOutput : public scenes::RunObserver {
 public:
  /// A replay from the run's time; its first frame is the state it starts from.
  HtmlOutput(const ViewOptions& views, const scenes::Run& run)
      : replay_(run.model(), views, run.scene().name, run.time(), run.time_step()) {
    if (replay_.Due(run.time())) replay_.AddFrame(run.data(), {});
  }
  void OnStep(const scenes::Run& run) override {
    replay_.Step(run.time(), run.last_step());
    if (replay_.Due(run.time())) replay_.AddFrame(run.data(), ContactMarkers(run.simulator()));
  }
  void OnFinish(const scenes::Run&) override { replay_.Finish(); }

 private:
  HtmlReplay replay_;
};

}  // namespace

std::unique_ptr<scenes::RunObserver> MakeHtmlOutput(const RunArgs& args, scenes::Run* run) {
  if (args.views.html.empty()) return nullptr;
  return std::make_unique<HtmlOutput>(args.views, *run);
}

}  // namespace tamsi::cli
