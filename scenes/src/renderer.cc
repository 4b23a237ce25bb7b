#include "tamsi/scenes/renderer.h"

#include <GL/osmesa.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <tamsi/scenes/mujoco_model.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

extern char** environ;

namespace tamsi::scenes {
namespace {

constexpr int kMinSize = 16, kMaxSize = 4096;
// Scene capacity beyond the model's own geoms: two markers per drawn contact.
constexpr int kMarkerCapacity = 20000;

}  // namespace

struct Renderer::Context {
  OSMesaContext gl{nullptr};
  std::vector<unsigned char> gl_buffer;  // OSMesa's window buffer; frames are drawn to MuJoCo's offscreen buffer
  ModelPtr model;
  DataPtr data;
  mjvScene scene;
  mjrContext render;
  mjvOption option;
  mjvCamera camera;
  mjvPerturb perturb;
  bool scene_made{false}, render_made{false};

  ~Context() {
    if (render_made) mjr_freeContext(&render);
    if (scene_made) mjv_freeScene(&scene);
    if (gl) OSMesaDestroyContext(gl);
  }
};

Renderer::Renderer(const mjModel& model, const RenderOptions& options)
    : options_(options), context_(std::make_unique<Context>()) {
  for (const auto& [name, value] : {std::pair{"width", options.width}, {"height", options.height}}) {
    if (value < kMinSize || value > kMaxSize) {
      throw std::invalid_argument(std::string("RenderOptions.") + name + ": must be in [" + std::to_string(kMinSize) +
                                  ", " + std::to_string(kMaxSize) + "], got " + std::to_string(value));
    }
  }
  InstallMujocoHandlers();  // MuJoCo's errors become exceptions
  Context& c = *context_;
  // The camera first: a bad name fails before any OpenGL work.
  mjv_defaultCamera(&c.camera);
  mjv_defaultFreeCamera(&model, &c.camera);
  const std::string track = "track:";
  if (options.camera.rfind(track, 0) == 0) {
    const std::string body = options.camera.substr(track.size());
    c.camera.type = mjCAMERA_TRACKING;
    c.camera.trackbodyid = mj_name2id(&model, mjOBJ_BODY, body.c_str());
    if (c.camera.trackbodyid < 0) throw std::invalid_argument("RenderOptions.camera: no body named '" + body + "'");
    c.camera.distance = 1.5 * model.stat.extent;
  } else if (!options.camera.empty()) {
    c.camera.type = mjCAMERA_FIXED;
    c.camera.fixedcamid = mj_name2id(&model, mjOBJ_CAMERA, options.camera.c_str());
    if (c.camera.fixedcamid < 0) {
      std::string names;
      for (int i = 0; i < model.ncam; ++i) {
        const char* name = mj_id2name(&model, mjOBJ_CAMERA, i);
        if (name) names += std::string(names.empty() ? "" : ", ") + name;
      }
      throw std::invalid_argument("RenderOptions.camera: no camera named '" + options.camera +
                                  "' (the model's: " + (names.empty() ? "none" : names) + "; or track:BODY)");
    }
  }

  c.gl = OSMesaCreateContextExt(OSMESA_RGBA, 24, 8, 0, nullptr);
  if (!c.gl) throw std::runtime_error("cannot create an OSMesa OpenGL context");
  c.gl_buffer.assign(4 * kMinSize * kMinSize, 0);
  if (!OSMesaMakeCurrent(c.gl, c.gl_buffer.data(), GL_UNSIGNED_BYTE, kMinSize, kMinSize))
    throw std::runtime_error("cannot make the OSMesa OpenGL context current");

  // The copy's offscreen buffer has the picture's size (mjModel.vis.global.offwidth/offheight).
  c.model.reset(mj_copyModel(nullptr, &model));
  c.model->vis.global.offwidth = options.width;
  c.model->vis.global.offheight = options.height;
  // A model with no light of its own is lit by the headlight alone: MuJoCo's default one leaves it dim.
  if (model.nlight == 0) {
    for (int k = 0; k < 3; ++k) {
      c.model->vis.headlight.ambient[k] = std::max(c.model->vis.headlight.ambient[k], 0.3f);
      c.model->vis.headlight.diffuse[k] = std::max(c.model->vis.headlight.diffuse[k], 0.7f);
    }
  }
  c.data.reset(mj_makeData(c.model.get()));
  mjv_defaultOption(&c.option);
  mjv_defaultPerturb(&c.perturb);
  mjv_defaultScene(&c.scene);
  mjv_makeScene(c.model.get(), &c.scene, c.model->ngeom + kMarkerCapacity);
  c.scene_made = true;
  mjr_defaultContext(&c.render);
  mjr_makeContext(c.model.get(), &c.render, mjFONTSCALE_150);
  c.render_made = true;
  mjr_setBuffer(mjFB_OFFSCREEN, &c.render);
  if (c.render.offWidth < options.width || c.render.offHeight < options.height)
    throw std::runtime_error("MuJoCo's offscreen buffer is smaller than the picture");
  pixels_.resize(3 * options.width * options.height);
  flipped_.resize(pixels_.size());
}

Renderer::~Renderer() = default;

void Renderer::AddContacts(const std::vector<ContactMarker>& contacts) {
  Context& c = *context_;
  const mjModel& m = *c.model;
  const mjtNum size = m.stat.meansize;
  for (const ContactMarker& contact : contacts) {
    if (options_.contact_points && c.scene.ngeom < c.scene.maxgeom) {
      // MuJoCo's contact-point marker: a flat cylinder whose axis is the normal.
      mjtNum quat[4], mat[9];
      const mjtNum normal[3] = {contact.normal[0], contact.normal[1], contact.normal[2]};
      mju_quatZ2Vec(quat, normal);
      mju_quat2Mat(mat, quat);
      const mjtNum cylinder[3] = {m.vis.scale.contactwidth * size, m.vis.scale.contactwidth * size,
                                  m.vis.scale.contactheight * size};
      mjvGeom* geom = c.scene.geoms + c.scene.ngeom++;
      mjv_initGeom(geom, mjGEOM_CYLINDER, cylinder, contact.position.data(), mat, m.vis.rgba.contactpoint);
      geom->category = mjCAT_DECOR;
    }
    const double scale = m.vis.map.force / m.stat.meanmass;
    const Eigen::Vector3d tip = contact.position + scale * contact.force;
    if (options_.contact_forces && c.scene.ngeom < c.scene.maxgeom && (tip - contact.position).norm() > 1e-9) {
      mjvGeom* geom = c.scene.geoms + c.scene.ngeom++;
      mjv_initGeom(geom, mjGEOM_ARROW, nullptr, nullptr, nullptr, m.vis.rgba.contactforce);
      mjv_connector(geom, mjGEOM_ARROW, m.vis.scale.forcewidth * size, contact.position.data(), tip.data());
      geom->category = mjCAT_DECOR;
    }
  }
}

const std::vector<unsigned char>& Renderer::Render(const double* qpos, double time,
                                                   const std::vector<ContactMarker>& contacts) {
  Context& c = *context_;
  if (OSMesaGetCurrentContext() != c.gl &&
      !OSMesaMakeCurrent(c.gl, c.gl_buffer.data(), GL_UNSIGNED_BYTE, kMinSize, kMinSize))
    throw std::runtime_error("cannot make the OSMesa OpenGL context current");
  const mjModel* m = c.model.get();
  mjData* d = c.data.get();
  std::copy(qpos, qpos + m->nq, d->qpos);
  d->time = time;
  // The position stage as far as drawing needs it: poses, centres of mass (tracking), cameras and lights, tendons.
  mj_kinematics(m, d);
  mj_comPos(m, d);
  mj_camlight(m, d);
  mj_tendon(m, d);
  mjv_updateScene(m, d, &c.option, &c.perturb, &c.camera, mjCAT_ALL, &c.scene);
  AddContacts(contacts);
  const mjrRect viewport{0, 0, options_.width, options_.height};
  mjr_render(viewport, &c.scene, &c.render);
  if (options_.show_time) {
    char text[64];
    std::snprintf(text, sizeof(text), "t = %.3f s", time);
    mjr_overlay(mjFONT_NORMAL, mjGRID_TOPLEFT, viewport, text, nullptr, &c.render);
  }
  mjr_readPixels(pixels_.data(), nullptr, viewport, &c.render);
  // OpenGL's rows run bottom to top.
  const std::size_t row = 3 * options_.width;
  for (int r = 0; r < options_.height; ++r)
    std::copy_n(pixels_.data() + (options_.height - 1 - r) * row, row, flipped_.data() + r * row);
  return flipped_;
}

namespace {

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Refuses, in one line and before ffmpeg starts (which would print its own message and then take no frames), a
/// video path in a folder that is missing or not writable.
void RequireWritableFolder(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const std::string folder = parent.empty() ? "." : parent.string();
  if (access(folder.c_str(), W_OK) != 0)
    throw std::runtime_error("video " + path + ": cannot write into folder '" + folder + "': " + std::strerror(errno));
}

}  // namespace

VideoEncoder::VideoEncoder(const std::string& path, int width, int height, double fps)
    : path_(path), frame_bytes_(3 * static_cast<std::size_t>(width) * height) {
  const bool yuv420 = EndsWith(path, ".mp4") || EndsWith(path, ".mov") || EndsWith(path, ".mkv");
  if (yuv420 && (width % 2 != 0 || height % 2 != 0)) {
    throw std::invalid_argument("video size: width and height must be even for " + path + ", got " +
                                std::to_string(width) + "x" + std::to_string(height));
  }
  char size[32], rate[32];
  std::snprintf(size, sizeof(size), "%dx%d", width, height);
  std::snprintf(rate, sizeof(rate), "%.9g", fps);
  RequireWritableFolder(path);
  std::vector<std::string> args = {"ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
                                   "-f",     "rawvideo",     "-pix_fmt",  "rgb24", "-s",
                                   size,     "-framerate",   rate,        "-i",    "-"};
  if (yuv420) args.insert(args.end(), {"-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "18"});
  // One picture file (no %d pattern): each frame overwrites it, so it ends as the last frame.
  const bool still = (EndsWith(path, ".png") || EndsWith(path, ".jpg")) && path.find('%') == std::string::npos;
  if (still) args.insert(args.end(), {"-update", "1"});
  args.push_back(path);
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("cannot open a pipe to ffmpeg");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  pid_t pid = -1;
  const int error = posix_spawnp(&pid, "ffmpeg", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[0]);
  if (error != 0) {
    close(fds[1]);
    throw std::runtime_error("cannot start ffmpeg (is it installed and on PATH? Debian package ffmpeg)");
  }
  pid_ = pid;
  pipe_ = fdopen(fds[1], "wb");
  // A write to a pipe whose reader has died reports an error instead of killing the process.
  signal(SIGPIPE, SIG_IGN);
}

VideoEncoder::~VideoEncoder() {
  if (pipe_) std::fclose(pipe_);
  if (pid_ > 0) waitpid(pid_, nullptr, 0);
}

void VideoEncoder::Write(const std::vector<unsigned char>& rgb) {
  if (!pipe_) throw std::runtime_error("video " + path_ + ": the encoder is closed");
  if (rgb.size() != frame_bytes_) throw std::invalid_argument("video frame: wrong size");
  if (std::fwrite(rgb.data(), 1, rgb.size(), pipe_) != rgb.size())
    throw std::runtime_error("video " + path_ + ": ffmpeg stopped taking frames (see its message above)");
  ++frames_;
}

void VideoEncoder::Close() {
  if (!pipe_) return;
  const bool flushed = std::fclose(pipe_) == 0;
  pipe_ = nullptr;
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  if (!flushed || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("video " + path_ + ": ffmpeg failed (see its message above)");
}

}  // namespace tamsi::scenes
