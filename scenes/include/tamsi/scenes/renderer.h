#pragma once
/// @file
/// Offscreen pictures of an MJCF model drawn by MuJoCo's own renderer (mjv_updateScene, mjr_render: the model's
/// geometry, meshes, materials and lights) in an OSMesa context (Mesa's software rasterizer: no GPU, no display),
/// and a video encoder that pipes the frames to ffmpeg.

#include <mujoco/mujoco.h>

#include <Eigen/Core>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace tamsi::scenes {

/// What a frame shows and how it is framed.
struct RenderOptions {
  /// Picture size (pixels), each in [16, 4096].
  int width{640}, height{480};
  /// "" : a free camera looking at the model's centre from MuJoCo's default distance (mjv_defaultFreeCamera);
  /// a camera of the model by name; or "track:BODY", a free camera that follows the named body.
  std::string camera;
  /// Draw each contact's point (MuJoCo's contact-point marker) and the contact force on geom2 as an arrow, with
  /// MuJoCo's own sizes and colours (mjVIS_CONTACTPOINT, mjVIS_CONTACTFORCE; length = |f| vis.map.force /
  /// stat.meanmass, m per N).
  bool contact_points{false}, contact_forces{false};
  /// Write "t = … s" in the top-left corner.
  bool show_time{true};
};

/// One contact to draw: its point (world, m), its unit normal (world, from geom1 to geom2) and the force (world, N)
/// that geom1 exerts on geom2, fn n + ft1 t1 + ft2 t2 in the contact frame of ContactInfo.
struct ContactMarker {
  Eigen::Vector3d position{Eigen::Vector3d::Zero()};
  Eigen::Vector3d normal{Eigen::Vector3d::UnitZ()};
  Eigen::Vector3d force{Eigen::Vector3d::Zero()};
};

/// Draws a model at given positions. Works on its own copy of the model and its own mjData, so drawing never touches
/// a simulation's state. A model without lights gets a brighter headlight than MuJoCo's default (ambient 0.3,
/// diffuse 0.7). One Renderer per thread (it owns the thread's current OpenGL context).
class Renderer {
 public:
  /// Throws std::invalid_argument naming the field for a bad size or an unknown camera or body, and
  /// std::runtime_error when no OpenGL context can be made.
  Renderer(const mjModel& model, const RenderOptions& options);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  /// Draws the model at `qpos` (nq) and time `time` (s) with `contacts`; returns the picture as RGB bytes, rows from
  /// top to bottom (height × width × 3).
  const std::vector<unsigned char>& Render(const double* qpos, double time,
                                           const std::vector<ContactMarker>& contacts = {});

  int width() const { return options_.width; }
  int height() const { return options_.height; }

 private:
  struct Context;  // the OpenGL context and MuJoCo's visualization structs
  void AddContacts(const std::vector<ContactMarker>& contacts);

  RenderOptions options_;
  std::unique_ptr<Context> context_;
  std::vector<unsigned char> pixels_, flipped_;
};

/// Encodes RGB frames into a video file with ffmpeg (found on PATH): the container and codec follow the file's
/// extension (.mp4, .mkv, .webm, .gif, …; H.264 in yuv420p for .mp4, .mov and .mkv), a name with a printf pattern
/// such as frames/%05d.png writes one PNG per frame, and a .png or .jpg name without one keeps the last frame.
class VideoEncoder {
 public:
  /// Starts ffmpeg. Throws std::invalid_argument for an odd width or height with a yuv420p container, and
  /// std::runtime_error when ffmpeg cannot be started.
  VideoEncoder(const std::string& path, int width, int height, double fps);
  /// Closes the stream if Close() was not called (errors ignored).
  ~VideoEncoder();
  VideoEncoder(const VideoEncoder&) = delete;
  VideoEncoder& operator=(const VideoEncoder&) = delete;

  /// Appends one frame (height × width × 3 RGB bytes, top row first). Throws std::runtime_error when ffmpeg has
  /// stopped.
  void Write(const std::vector<unsigned char>& rgb);
  /// Finishes the file; throws std::runtime_error when ffmpeg reports a failure.
  void Close();
  long long frames() const { return frames_; }

 private:
  std::string path_;
  std::size_t frame_bytes_;
  std::FILE* pipe_{nullptr};
  int pid_{-1};
  long long frames_{0};
};

}  // namespace tamsi::scenes
