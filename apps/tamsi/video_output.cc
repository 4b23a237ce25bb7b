// --video: a run drawn by MuJoCo's renderer, its initial state and every frame due after a step.
#include "run_observers.h"
#include "video_recorder.h"

namespace tamsi::cli {
namespace {

class VideoOutput : public scenes::RunObserver {
 public:
  /// A video from the run's time to `num_steps` steps later; draws the state it starts from.
  VideoOutput(const RunArgs& args, const scenes::Run& run, long long num_steps)
      : recorder_(run.model(), args.views, run.scene().camera, run.time(), run.time() + num_steps * run.time_step(),
                  run.time_step(), !args.quiet),
        draw_contacts_(args.views.contact_points || args.views.contact_forces) {
    recorder_.Observe(run.data(), {});
  }
  void OnStep(const scenes::Run& run) override {
    recorder_.Observe(run.data(),
                      draw_contacts_ ? ContactMarkers(run.simulator()) : std::vector<scenes::ContactMarker>{});
  }
  void OnFinish(const scenes::Run&) override { recorder_.Finish(); }

 private:
  VideoRecorder recorder_;
  bool draw_contacts_;
};

}  // namespace

std::unique_ptr<scenes::RunObserver> MakeVideoOutput(const RunArgs& args, scenes::Run* run) {
  if (args.views.video.empty()) return nullptr;
  return std::make_unique<VideoOutput>(args, *run, run->StepsFor(run->duration()));
}

}  // namespace tamsi::cli
