#pragma once
/// @file
/// What `tamsi run` and `tamsi render` make of a run besides its CSVs: a video drawn by MuJoCo's renderer
/// (--video), a browser replay (--html) and plots (--plots), and the flags that shape them.

#include <tamsi/scenes/renderer.h>
#include <tamsi/scenes/simulator.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace tamsi::cli {

/// Bounds of the frame rates, so that a run never renders without end: --video-fps, --slow-motion, --html-fps.
inline constexpr double kMaxVideoFps = 240.0;
inline constexpr double kMaxSlowMotion = 1000.0;
inline constexpr double kMaxHtmlFps = 1000.0;

/// The flags of AddViewOptions.
struct ViewOptions {
  std::string video;                  // --video FILE
  std::string video_size{"640x480"};  // --video-size WxH
  double video_fps{30.0};             // --video-fps
  double slow_motion{1.0};            // --slow-motion: video seconds per simulated second
  std::string camera;                 // --camera NAME | track:BODY
  bool contact_points{false};         // --contact-points
  bool contact_forces{false};         // --contact-forces
  std::string html;                   // --html FILE
  double html_fps{60.0};              // --html-fps: replay frames per simulated second
  std::string plots;                  // --plots DIR (tamsi run only)

  /// The renderer's options from the flags; throws CLI::RuntimeError (exit status 2) for a malformed --video-size.
  scenes::RenderOptions Render() const;
};

/// Registers the flags on `cmd`; `plots`: also --plots (per-step figures exist only for a run, not a replay).
void AddViewOptions(CLI::App* cmd, ViewOptions* options, bool plots);

/// Times of the frames of a picture stream: one every `interval` seconds of simulated time from `start`; a state at
/// time t stands for every frame due by t + tolerance (half a time step), so a frame shows the state nearest to it.
class FrameClock {
 public:
  FrameClock(double start, double interval, double tolerance)
      : start_(start), interval_(interval), tolerance_(tolerance) {}
  /// How many frames are due at time t (0, 1, or more when a step is longer than a frame); advances past them.
  int Due(double t);
  /// Frames in [start, end].
  long long Count(double end) const;
  long long frames() const { return next_; }

 private:
  double start_, interval_, tolerance_;
  long long next_{0};
};

/// The contacts of the step `sim` just took, to draw: TAMSI's geom contacts with their forces fn n + ft1 t1 + ft2 t2
/// on geom2, or MuJoCo's contacts with mj_contactForce for Engine::kMujoco. Joint and tendon limits are left out.
std::vector<scenes::ContactMarker> ContactMarkers(const scenes::Simulator& sim);

}  // namespace tamsi::cli
