#include "view_options.h"

#include <cmath>
#include <cstdio>

#include "commands.h"

namespace tamsi::cli {

scenes::RenderOptions ViewOptions::Render() const {
  scenes::RenderOptions render;
  char tail = 0;
  if (std::sscanf(video_size.c_str(), "%dx%d%c", &render.width, &render.height, &tail) != 2)
    throw CLI::RuntimeError("--video-size: expected WIDTHxHEIGHT (e.g. 640x480), got '" + video_size + "'", 2);
  render.camera = camera;
  render.contact_points = contact_points;
  render.contact_forces = contact_forces;
  return render;
}

void AddViewOptions(CLI::App* cmd, ViewOptions* options, bool plots) {
  cmd->add_option("--video", options->video,
                  "Video of the run drawn by MuJoCo's renderer (software OpenGL) and encoded by ffmpeg: .mp4, .mkv, "
                  ".webm, .gif, a PNG pattern such as frames/%05d.png, or one .png (the last frame: a still)");
  cmd->add_option("--video-size", options->video_size, "Video size WIDTHxHEIGHT in pixels (default 640x480)");
  cmd->add_option("--video-fps", options->video_fps, "Video frames per second (default 30, at most 240)")
      ->check(Positive() & AtMost(kMaxVideoFps));
  cmd->add_option("--slow-motion", options->slow_motion,
                  "Video seconds per simulated second (default 1; 4 plays the run four times slower; at most 1000)")
      ->check(Positive() & AtMost(kMaxSlowMotion));
  cmd->add_option(
      "--camera", options->camera,
      "Video camera: a camera of the model by name, or track:BODY for a free camera following a body "
      "(default: the scene's own, e.g. tracking the gripper in gripper_mug_shake, else a free camera on the whole "
      "model)");
  cmd->add_flag("--contact-points", options->contact_points, "Draw contact points in the video");
  cmd->add_flag("--contact-forces", options->contact_forces, "Draw contact forces on geom2 as arrows in the video");
  cmd->add_option("--html", options->html,
                  "Self-contained HTML page replaying the run in a browser (three.js; opens offline)");
  cmd->add_option("--html-fps", options->html_fps,
                  "Replay frames per simulated second in --html (default 60, at most 1000)")
      ->check(Positive() & AtMost(kMaxHtmlFps));
  if (plots) {
    cmd->add_option("--plots", options->plots,
                    "Directory for PNG plots of the run (Newton iterations, contacts and wall time per step, the "
                    "time split, the scene's checked quantities) and the CSVs they are drawn from");
  }
}

int FrameClock::Due(double t) {
  int due = 0;
  while (start_ + static_cast<double>(next_) * interval_ <= t + tolerance_) {
    ++next_;
    ++due;
  }
  return due;
}

long long FrameClock::Count(double end) const {
  return static_cast<long long>(std::floor((end - start_ + tolerance_) / interval_)) + 1;
}

std::vector<scenes::ContactMarker> ContactMarkers(const scenes::Simulator& sim) {
  std::vector<scenes::ContactMarker> markers;
  const mjModel& model = sim.model();
  const mjData& data = sim.data();
  if (sim.options().engine == scenes::Engine::kMujoco) {
    for (int i = 0; i < data.ncon; ++i) {
      const mjContact& con = data.contact[i];
      mjtNum force[6];
      mj_contactForce(&model, &data, i, force);  // in the contact frame: normal, then the two tangents
      scenes::ContactMarker marker;
      marker.position = Eigen::Vector3d(con.pos[0], con.pos[1], con.pos[2]);
      marker.normal = Eigen::Vector3d(con.frame[0], con.frame[1], con.frame[2]);
      for (int r = 0; r < 3; ++r)
        marker.force += force[r] * Eigen::Vector3d(con.frame[3 * r], con.frame[3 * r + 1], con.frame[3 * r + 2]);
      markers.push_back(marker);
    }
    return markers;
  }
  const std::vector<scenes::ContactInfo>& contacts = sim.builder().contacts();
  const Result& result = sim.last_result();
  for (std::size_t i = 0; i < contacts.size() && i < static_cast<std::size_t>(result.fn.size()); ++i) {
    const scenes::ContactInfo& c = contacts[i];
    if (c.kind != scenes::ContactInfo::Kind::kGeoms) continue;
    scenes::ContactMarker marker;
    marker.position = c.position;
    marker.normal = c.normal;
    marker.force = result.fn[i] * c.normal + result.ft[2 * i] * c.tangent1 + result.ft[2 * i + 1] * c.tangent2;
    markers.push_back(marker);
  }
  return markers;
}

}  // namespace tamsi::cli
