#include "html_replay.h"

#include <CLI/CLI.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

namespace tamsi::cli {

extern const char kReplayPage[];  // apps/viewer/page.html with the bundled viewer (generated at build time)

namespace {

/// MuJoCo draws geom groups 0–2 by default; the Menagerie's collision geoms are in group 3.
constexpr int kVisibleGroups = 3;

bool Visible(const mjModel& model, int g) {
  return model.geom_group[g] < kVisibleGroups && model.geom_rgba[4 * g + 3] > 0 && model.geom_type[g] != mjGEOM_HFIELD;
}

std::string Base64(const void* bytes, std::size_t size) {
  static const char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* in = static_cast<const unsigned char*>(bytes);
  std::string out;
  out.reserve(4 * ((size + 2) / 3));
  for (std::size_t i = 0; i < size; i += 3) {
    const unsigned value = (in[i] << 16) | ((i + 1 < size ? in[i + 1] : 0) << 8) | (i + 2 < size ? in[i + 2] : 0);
    out += kDigits[(value >> 18) & 63];
    out += kDigits[(value >> 12) & 63];
    out += i + 1 < size ? kDigits[(value >> 6) & 63] : '=';
    out += i + 2 < size ? kDigits[value & 63] : '=';
  }
  return out;
}

template <class T>
std::string Base64(const std::vector<T>& values) {
  return Base64(values.data(), values.size() * sizeof(T));
}

const char* GeomType(int type) {
  switch (type) {
    case mjGEOM_PLANE:
      return "plane";
    case mjGEOM_SPHERE:
      return "sphere";
    case mjGEOM_CAPSULE:
      return "capsule";
    case mjGEOM_ELLIPSOID:
      return "ellipsoid";
    case mjGEOM_CYLINDER:
      return "cylinder";
    case mjGEOM_BOX:
      return "box";
    case mjGEOM_MESH:
      return "mesh";
    default:
      return "";
  }
}

void ReplaceAll(std::string* text, const std::string& from, const std::string& to) {
  for (std::size_t at = text->find(from); at != std::string::npos; at = text->find(from, at + to.size()))
    text->replace(at, from.size(), to);
}

}  // namespace

HtmlReplay::HtmlReplay(const mjModel& model, const ViewOptions& options, const std::string& title, double start,
                       double time_step)
    : model_(model),
      path_(options.html),
      title_(title),
      clock_(start, 1.0 / options.html_fps, 0.5 * time_step),
      data_(mj_makeData(&model)) {
  if (kReplayPage[0] == '\0')
    throw CLI::RuntimeError("--html: this tamsi was built without the replay viewer (TAMSI_BUILD_VIEWER=OFF: npm)", 2);
  if (!std::ofstream(path_)) throw CLI::RuntimeError("--html: cannot write '" + path_ + "'", 2);
  std::vector<bool> shown(model.nbody, false);
  for (int g = 0; g < model.ngeom; ++g)
    if (Visible(model, g)) shown[model.geom_bodyid[g]] = true;
  for (int b = 0; b < model.nbody; ++b)
    if (shown[b]) bodies_.push_back(b);
}

void HtmlReplay::Step(double time, const scenes::StepInfo& step) {
  step_times_.push_back(time);
  step_iterations_.push_back(step.iterations);
  step_contacts_.push_back(step.contacts);
  step_wall_ms_.push_back(1e3 * (step.time_frontend + step.time_solve));
}

void HtmlReplay::AddFrame(const mjData& data, const std::vector<scenes::ContactMarker>& contacts) {
  std::copy(data.qpos, data.qpos + model_.nq, data_->qpos);
  mj_kinematics(&model_, data_.get());
  for (int b : bodies_) {
    for (int k = 0; k < 3; ++k) poses_.push_back(static_cast<float>(data_->xpos[3 * b + k]));
    for (int k = 0; k < 4; ++k) poses_.push_back(static_cast<float>(data_->xquat[4 * b + k]));
  }
  for (const scenes::ContactMarker& c : contacts) {
    for (int k = 0; k < 3; ++k) contacts_.push_back(static_cast<float>(c.position[k]));
    for (int k = 0; k < 3; ++k) contacts_.push_back(static_cast<float>(c.force[k]));
  }
  contact_offsets_.push_back(static_cast<long long>(contacts_.size() / 6));
  frame_times_.push_back(data.time);
  frame_steps_.push_back(static_cast<long long>(step_times_.size()) - 1);  // -1: the initial state
}

void HtmlReplay::Finish() {
  const mjModel& m = model_;
  using nlohmann::json;
  json page{{"format", "tamsi-replay"}, {"version", 1}, {"title", title_}};
  page["center"] = {m.stat.center[0], m.stat.center[1], m.stat.center[2]};
  page["extent"] = m.stat.extent;
  page["force_scale"] = m.vis.map.force / m.stat.meanmass;
  std::vector<int> body_index(m.nbody, -1);
  json bodies = json::array();
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    body_index[bodies_[i]] = static_cast<int>(i);
    const char* name = mj_id2name(&m, mjOBJ_BODY, bodies_[i]);
    bodies.push_back({{"name", name ? name : "body" + std::to_string(bodies_[i])}});
  }
  page["bodies"] = bodies;
  json geoms = json::array(), meshes = json::array();
  std::vector<int> mesh_index(m.nmesh, -1);
  for (int g = 0; g < m.ngeom; ++g) {
    if (!Visible(m, g) || GeomType(m.geom_type[g])[0] == '\0') continue;
    const float* rgba = m.geom_rgba + 4 * g;
    // A material's colour unless the geom sets its own (MuJoCo's rule).
    const bool default_rgba = rgba[0] == 0.5f && rgba[1] == 0.5f && rgba[2] == 0.5f && rgba[3] == 1.0f;
    if (m.geom_matid[g] >= 0 && default_rgba) rgba = m.mat_rgba + 4 * m.geom_matid[g];
    json geom{{"body", body_index[m.geom_bodyid[g]]},
              {"type", GeomType(m.geom_type[g])},
              {"size", {m.geom_size[3 * g], m.geom_size[3 * g + 1], m.geom_size[3 * g + 2]}},
              {"pos", {m.geom_pos[3 * g], m.geom_pos[3 * g + 1], m.geom_pos[3 * g + 2]}},
              {"quat", {m.geom_quat[4 * g], m.geom_quat[4 * g + 1], m.geom_quat[4 * g + 2], m.geom_quat[4 * g + 3]}},
              {"rgba", {rgba[0], rgba[1], rgba[2], rgba[3]}}};
    const int mesh = m.geom_dataid[g];
    if (m.geom_type[g] == mjGEOM_MESH && mesh >= 0) {
      if (mesh_index[mesh] < 0) {
        mesh_index[mesh] = static_cast<int>(meshes.size());
        const float* vertices = m.mesh_vert + 3 * m.mesh_vertadr[mesh];
        const int* faces = m.mesh_face + 3 * m.mesh_faceadr[mesh];
        meshes.push_back({{"vertices", Base64(vertices, 3 * sizeof(float) * m.mesh_vertnum[mesh])},
                          {"faces", Base64(faces, 3 * sizeof(int) * m.mesh_facenum[mesh])}});
      }
      geom["mesh"] = mesh_index[mesh];
    }
    geoms.push_back(geom);
  }
  page["geoms"] = geoms;
  page["meshes"] = meshes;
  page["frames"] = {{"time", frame_times_},
                    {"poses", Base64(poses_)},
                    {"contact_data", Base64(contacts_)},
                    {"contact_offsets", contact_offsets_}};
  if (!step_times_.empty()) {
    page["frames"]["step"] = frame_steps_;
    page["steps"] = {{"time", step_times_},
                     {"iterations", step_iterations_},
                     {"contacts", step_contacts_},
                     {"wall_ms", step_wall_ms_}};
  }
  std::string text = kReplayPage;
  std::string data = page.dump();
  ReplaceAll(&data, "</", "<\\/");  // no "</script>" inside the data's script element
  std::string title = title_;
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}})
    ReplaceAll(&title, from, to);
  char scale[32];
  std::snprintf(scale, sizeof(scale), "%.3g", m.vis.map.force / m.stat.meanmass);
  // The data last: nothing in it is taken for a placeholder.
  ReplaceAll(&text, "@TITLE@", title);
  ReplaceAll(&text, "@FORCE_SCALE@", scale);
  const std::size_t at = text.find("@DATA@");
  text.replace(at, 6, data);
  std::ofstream out(path_);
  out << text;
  if (!out) throw CLI::RuntimeError("--html: cannot write '" + path_ + "'", 1);
}

}  // namespace tamsi::cli
