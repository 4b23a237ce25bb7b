#include "video_recorder.h"

#include <iostream>
#include <stdexcept>

namespace tamsi::cli {

VideoRecorder::VideoRecorder(const mjModel& model, const ViewOptions& options, const std::string& default_camera,
                             double start, double end, double time_step, bool progress)
    : path_(options.video),
      clock_(start, 1.0 / (options.video_fps * options.slow_motion), 0.5 * time_step),
      total_(clock_.Count(end)),
      fps_(options.video_fps),
      progress_(progress),
      last_report_(std::chrono::steady_clock::now()) {
  scenes::RenderOptions render = options.Render();
  if (render.camera.empty()) render.camera = default_camera;
  try {
    renderer_ = std::make_unique<scenes::Renderer>(model, render);
    encoder_ = std::make_unique<scenes::VideoEncoder>(path_, render.width, render.height, fps_);
  } catch (const std::exception& e) {  // a bad size or camera; no OpenGL context; no ffmpeg
    // The renderer names its fields; the user gave flags.
    std::string message = e.what();
    for (const auto& [field, flag] : {std::pair<std::string, std::string>{"RenderOptions.camera", "--camera"},
                                      {"RenderOptions.width", "--video-size: width"},
                                      {"RenderOptions.height", "--video-size: height"}}) {
      if (message.rfind(field, 0) == 0) message = flag + message.substr(field.size());
    }
    throw CLI::RuntimeError(message.rfind("--", 0) == 0 ? message : "--video: " + message, 2);
  }
}

void VideoRecorder::Observe(const mjData& data, const std::vector<scenes::ContactMarker>& contacts) {
  const int due = clock_.Due(data.time);
  if (due == 0) return;
  const std::vector<unsigned char>& frame = renderer_->Render(data.qpos, data.time, contacts);
  try {
    for (int k = 0; k < due; ++k) encoder_->Write(frame);
  } catch (const std::exception& e) {
    throw CLI::RuntimeError(std::string("--video: ") + e.what(), 1);
  }
  const auto now = std::chrono::steady_clock::now();
  if (progress_ && std::chrono::duration<double>(now - last_report_).count() > 1.0) {
    last_report_ = now;
    std::cerr << "  video: frame " << encoder_->frames() << " of " << total_ << " ("
              << 100 * encoder_->frames() / std::max(1LL, total_) << " %)\n";
  }
}

void VideoRecorder::Finish() {
  try {
    encoder_->Close();
  } catch (const std::exception& e) {
    throw CLI::RuntimeError(std::string("--video: ") + e.what(), 1);
  }
  if (progress_) {
    std::cout << "video            " << path_ << ": " << encoder_->frames() << " frames, " << renderer_->width() << "x"
              << renderer_->height() << " at " << fps_ << " fps\n";
  }
}

}  // namespace tamsi::cli
