#include <tamsi/scenes/mujoco_model.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

#include "mjcf_checks.h"

namespace tamsi::scenes {
namespace {

// The arena of a TAMSI-stepped model (bytes): its contacts, plus the collision's stack per geom (broad phase, convex
// colliders) over a floor; GrowArena doubles it up to the cap.
constexpr double kArenaStackBytesPerGeom = 4096;
constexpr double kArenaFloorBytes = 16 << 20;
constexpr mjtSize kMaxArenaBytes = mjtSize{64} << 30;
constexpr mjtSize kMaxDefaultArenaBytes = mjtSize{256} << 20;

std::mutex& WarningMutex() {
  static std::mutex mutex;
  return mutex;
}
/// MuJoCo's most recent warning and how many it has given in this process (so that a caller can tell whether a call
/// gave one); guarded by WarningMutex().
struct MujocoWarnings {
  std::string last;
  unsigned long long count = 0;
};
MujocoWarnings& Warnings() {
  static MujocoWarnings warnings;
  return warnings;
}
MujocoWarnings ReadWarnings() {
  std::lock_guard<std::mutex> lock(WarningMutex());
  return Warnings();
}

void ThrowMujocoError(const char* message) {
  const std::string text = std::string("MuJoCo: ") + message;
  if (text.find("out of memory") != std::string::npos) throw ArenaFullError(text);
  throw MujocoError(text);
}

void RecordMujocoWarning(const char* message) {
  std::lock_guard<std::mutex> lock(WarningMutex());
  Warnings().last = message;
  ++Warnings().count;
}

// MuJoCo's compiler, without a <size memory> of the model's own, allocates an arena that grows as nv² (40 (500 + nv)²
// bytes: 1.8 GB for a 1,000-body pile) and cannot load a 10,000-body pile. Such a model gets kMaxDefaultArenaBytes
// instead; both engines grow the arena when a step fills it (GrowArena).
void CapDefaultArena(mjSpec* spec) {
  if (spec->memory != -1 || spec->nstack != -1 || spec->njmax != -1) return;
  double nv = 0;
  for (mjsElement* e = mjs_firstElement(spec, mjOBJ_JOINT); e != nullptr; e = mjs_nextElement(spec, e)) {
    const mjtJoint type = mjs_asJoint(e)->type;
    nv += type == mjJNT_FREE ? 6 : type == mjJNT_BALL ? 3 : 1;
  }
  if (40.0 * (500 + nv) * (500 + nv) > static_cast<double>(kMaxDefaultArenaBytes)) spec->memory = kMaxDefaultArenaBytes;
}

// The physical numbers of a compiled model that MuJoCo's compiler lets through non-finite or negative (friction
// coefficients, masses, inertias, gravity), so that a model is refused by name at load instead of running with a
// frictionless contact or failing later on a problem field. Empty when every number is usable.
std::string BadModelNumber(const mjModel& m) {
  auto name = [&m](mjtObj type, int id) {
    const char* n = mj_id2name(&m, type, id);
    return n ? "'" + std::string(n) + "'" : "#" + std::to_string(id);
  };
  auto bad = [](double x) { return !std::isfinite(x) || x < 0; };
  for (int g = 0; g < m.ngeom; ++g)
    for (int i = 0; i < 3; ++i)
      if (bad(m.geom_friction[3 * g + i]))
        return "geom " + name(mjOBJ_GEOM, g) + ": friction[" + std::to_string(i) + "] must be finite and >= 0, got " +
               std::to_string(m.geom_friction[3 * g + i]);
  for (int b = 1; b < m.nbody; ++b) {
    if (bad(m.body_mass[b]))
      return "body " + name(mjOBJ_BODY, b) + ": mass must be finite and >= 0, got " + std::to_string(m.body_mass[b]);
    for (int i = 0; i < 3; ++i)
      if (bad(m.body_inertia[3 * b + i]))
        return "body " + name(mjOBJ_BODY, b) + ": inertia must be finite and >= 0, got " +
               std::to_string(m.body_inertia[3 * b + i]);
  }
  for (int i = 0; i < 3; ++i)
    if (!std::isfinite(m.opt.gravity[i]))
      return "option gravity must be finite, got " + std::to_string(m.opt.gravity[i]);
  return "";
}

// `model`, or ModelLoadError naming `name` and the first number the step cannot use (BadModelNumber).
ModelPtr Checked(ModelPtr model, const std::string& name) {
  if (const std::string reason = BadModelNumber(*model); !reason.empty())
    throw ModelLoadError("cannot load model '" + name + "': " + reason);
  return model;
}

// Compiles MJCF text through MuJoCo's VFS under `vfs_name` (a file name or path); `name` is for messages.
ModelPtr LoadMjcf(const std::string& xml, const std::string& vfs_name, const std::string& name) {
  if (xml.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ModelLoadError("cannot load model '" + name + "': the file is empty");
  internal::CheckMjcfText(xml, std::filesystem::path(vfs_name).parent_path(), name);
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  if (mj_addBufferVFS(vfs.get(), vfs_name.c_str(), xml.data(), static_cast<int>(xml.size())) != 0) {
    mj_deleteVFS(vfs.get());
    throw ModelLoadError("cannot load model '" + name + "': MuJoCo's virtual file system refused it");
  }
  char error[1024] = "";
  mjSpec* spec = nullptr;
  mjModel* model = nullptr;
  try {
    spec = mj_parseXML(vfs_name.c_str(), vfs.get(), error, sizeof(error));
    if (spec != nullptr) {
      CapDefaultArena(spec);
      model = mj_compile(spec, vfs.get());
      if (model == nullptr) std::snprintf(error, sizeof(error), "%s", mjs_getError(spec));
    }
  } catch (const MujocoError& e) {
    std::snprintf(error, sizeof(error), "%s", e.what());
  }
  mj_deleteSpec(spec);
  mj_deleteVFS(vfs.get());
  if (model == nullptr) {
    // MuJoCo's message spans lines ("XML Error: …\nElement 'geom', line 1"): one line, parts joined by "; ".
    std::string reason = error[0] ? error : "unknown MuJoCo error";
    while (!reason.empty() && (reason.back() == '\n' || reason.back() == ' ')) reason.pop_back();
    for (auto at = reason.find('\n'); at != std::string::npos; at = reason.find('\n', at)) reason.replace(at, 1, "; ");
    throw ModelLoadError("cannot load model '" + name + "': " + reason);
  }
  return Checked(ModelPtr(model), name);
}

// Reads MuJoCo's binary model (MJB) from `bytes` without compiling; `name` is for messages. MuJoCo checks the header,
// the sizes against the bytes and the references between elements; a refusal's reason is the warning it gave.
ModelPtr LoadMjb(const std::string& bytes, const std::string& name) {
  std::string reason;
  mjModel* model = nullptr;
  try {
    const unsigned long long warnings_before = ReadWarnings().count;
    model = mj_loadModelBuffer(bytes.data(), static_cast<mjtSize>(bytes.size()));
    if (const MujocoWarnings after = ReadWarnings(); model == nullptr && after.count != warnings_before)
      reason = after.last;
  } catch (const MujocoError& e) {
    reason = e.what();
  }
  if (model == nullptr) {
    throw ModelLoadError("cannot load model '" + name + "': not a binary model (.mjb) of MuJoCo " + mj_versionString() +
                         (reason.empty() ? "" : " (" + reason + ")"));
  }
  return Checked(ModelPtr(model), name);
}

}  // namespace

void InstallMujocoHandlers() {
  mju_user_error = &ThrowMujocoError;
  mju_user_warning = &RecordMujocoWarning;
}

std::string LastMujocoWarning() { return ReadWarnings().last; }

ModelPtr LoadModelFromFile(const std::string& path) {
  InstallMujocoHandlers();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw ModelLoadError("model file '" + path + "' does not exist or is not a regular file");
  }
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  if (!file) throw ModelLoadError("cannot read model file '" + path + "'");
  if (IsBinaryModelPath(path)) {
    if (text.str().empty()) throw ModelLoadError("cannot load model '" + path + "': the file is empty");
    return LoadMjb(text.str(), path);
  }
  // MuJoCo finds the text in the VFS by the file's base name and resolves the model's relative paths (includes,
  // meshes) against the directory of `path`, as for a file on disk.
  return LoadMjcf(text.str(), path, path);
}

bool IsBinaryModelPath(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return extension == ".mjb";
}

std::vector<char> ModelBinary(const mjModel& model) {
  std::vector<char> bytes(static_cast<size_t>(mj_sizeModel(&model)));
  mj_saveModel(&model, nullptr, bytes.data(), static_cast<mjtSize>(bytes.size()));
  return bytes;
}

DataPtr RemakeData(const mjModel& m, const mjData& data) {
  DataPtr fresh(mj_makeData(&m));
  auto copy = [](double* dst, const double* src, int n) { std::copy_n(src, n, dst); };  // n = 0: either may be null
  copy(fresh->qpos, data.qpos, m.nq);
  copy(fresh->qvel, data.qvel, m.nv);
  copy(fresh->act, data.act, m.na);
  copy(fresh->ctrl, data.ctrl, m.nu);
  copy(fresh->qfrc_applied, data.qfrc_applied, m.nv);
  copy(fresh->xfrc_applied, data.xfrc_applied, 6 * m.nbody);
  copy(fresh->mocap_pos, data.mocap_pos, 3 * m.nmocap);
  copy(fresh->mocap_quat, data.mocap_quat, 4 * m.nmocap);
  copy(fresh->userdata, data.userdata, m.nuserdata);
  copy(fresh->qacc_warmstart, data.qacc_warmstart, m.nv);
  fresh->time = data.time;
  return fresh;
}

void GrowArena(mjModel* model, DataPtr* data) {
  if (model->narena > kMaxArenaBytes / 2) {
    throw MujocoError("MuJoCo's arena cannot grow beyond " + std::to_string(model->narena) + " bytes");
  }
  model->narena *= 2;
  *data = RemakeData(*model, **data);
}

ModelPtr LoadModelFromString(const std::string& xml, const std::string& name, const std::string& directory) {
  InstallMujocoHandlers();
  const std::string file = name + ".xml";
  return LoadMjcf(xml, directory.empty() ? file : (std::filesystem::path(directory) / file).string(), name);
}

void ConfigureModelForTamsi(mjModel* model, int min_contacts) {
  const double contacts = std::max(min_contacts, 8 * static_cast<int>(model->ngeom) + 100);
  const double bytes = contacts * sizeof(mjContact) + kArenaStackBytesPerGeom * model->ngeom + kArenaFloorBytes;
  model->narena = std::max(model->narena, static_cast<mjtSize>(std::min(bytes, static_cast<double>(kMaxArenaBytes))));
}

}  // namespace tamsi::scenes
