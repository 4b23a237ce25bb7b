#pragma once
/// @file
/// `--video`: the frames of a run drawn by scenes::Renderer at the video's frame times and encoded by
/// scenes::VideoEncoder, with a progress line.

#include <tamsi/scenes/renderer.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "view_options.h"

namespace tamsi::cli {

class VideoRecorder {
 public:
  /// A video of simulated times [start, end] at options.video_fps frames per video second, options.slow_motion video
  /// seconds per simulated second; `time_step` (s) sets the tolerance of FrameClock. Throws CLI::RuntimeError (exit
  /// status 2) for a bad size or camera, or when ffmpeg or OpenGL cannot be started. `default_camera` (Scene::camera)
  /// draws it unless options.camera names one.
  VideoRecorder(const mjModel& model, const ViewOptions& options, const std::string& default_camera, double start,
                double end, double time_step, bool progress);
  /// Draws the state (qpos and time of `data`) for every frame now due, with `contacts`.
  void Observe(const mjData& data, const std::vector<scenes::ContactMarker>& contacts);
  /// Finishes the file; prints what was written unless quiet.
  void Finish();

 private:
  std::string path_;
  std::unique_ptr<scenes::Renderer> renderer_;
  std::unique_ptr<scenes::VideoEncoder> encoder_;
  FrameClock clock_;
  long long total_;
  double fps_;
  bool progress_;
  std::chrono::steady_clock::time_point last_report_;
};

}  // namespace tamsi::cli
