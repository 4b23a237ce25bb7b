#pragma once
/// @file
/// `--html FILE`: one self-contained HTML page that replays a run in a browser (apps/viewer: three.js bundled into
/// the page at build time, so it opens offline). The page holds the bodies' geometry (primitives and meshes, their
/// colours), their poses at the replay's frames, each frame's contacts (point and force on geom2) and, for a run,
/// every step's Newton iterations, contacts and wall time.

#include <tamsi/scenes/mujoco_model.h>
#include <tamsi/scenes/renderer.h>
#include <tamsi/scenes/simulator.h>

#include <string>
#include <vector>

#include "view_options.h"

namespace tamsi::cli {

class HtmlReplay {
 public:
  /// A replay of simulated times from `start` at options.html_fps frames per simulated second; `time_step` (s) sets
  /// the tolerance of FrameClock. Throws CLI::RuntimeError (exit status 2) when this build has no viewer or the file
  /// cannot be written.
  HtmlReplay(const mjModel& model, const ViewOptions& options, const std::string& title, double start,
             double time_step);
  /// Records the step that ended at `time` (s) (a run's per-step figures; a saved trajectory has none).
  void Step(double time, const scenes::StepInfo& step);
  /// Whether a frame is due at time t; each due frame is then given to AddFrame.
  bool Due(double t) { return clock_.Due(t) > 0; }
  /// Records the state of `data` (qpos, time) as a frame, with the contacts of the step that led to it.
  void AddFrame(const mjData& data, const std::vector<scenes::ContactMarker>& contacts);
  /// Writes the page.
  void Finish();

 private:
  const mjModel& model_;
  std::string path_, title_;
  FrameClock clock_;
  scenes::DataPtr data_;     // the replay's own state: the simulation's is only read
  std::vector<int> bodies_;  // bodies with a visible geom, in the page's order
  std::vector<float> poses_, contacts_;
  std::vector<long long> contact_offsets_{0}, frame_steps_;
  std::vector<double> frame_times_;
  std::vector<double> step_times_, step_wall_ms_;
  std::vector<int> step_iterations_, step_contacts_;
};

}  // namespace tamsi::cli
