#include <fcntl.h>
#include <sys/stat.h>
#include <tamsi/scenes/checkpoint.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

namespace tamsi::scenes {
namespace {

constexpr int kFormatVersion = 4;

/// mjData's arrays a checkpoint holds, with their lengths in `model`.
struct DataArray {
  const char* name;
  double* (*field)(mjData*);
  mjtSize (*size)(const mjModel&);
};

const DataArray kDataArrays[] = {
    {"qpos", [](mjData* d) { return d->qpos; }, [](const mjModel& m) -> mjtSize { return m.nq; }},
    {"qvel", [](mjData* d) { return d->qvel; }, [](const mjModel& m) -> mjtSize { return m.nv; }},
    {"act", [](mjData* d) { return d->act; }, [](const mjModel& m) -> mjtSize { return m.na; }},
    {"ctrl", [](mjData* d) { return d->ctrl; }, [](const mjModel& m) -> mjtSize { return m.nu; }},
    {"qfrc_applied", [](mjData* d) { return d->qfrc_applied; }, [](const mjModel& m) -> mjtSize { return m.nv; }},
    {"xfrc_applied", [](mjData* d) { return d->xfrc_applied; },
     [](const mjModel& m) -> mjtSize { return 6 * m.nbody; }},
    {"mocap_pos", [](mjData* d) { return d->mocap_pos; }, [](const mjModel& m) -> mjtSize { return 3 * m.nmocap; }},
    {"mocap_quat", [](mjData* d) { return d->mocap_quat; }, [](const mjModel& m) -> mjtSize { return 4 * m.nmocap; }},
    {"userdata", [](mjData* d) { return d->userdata; }, [](const mjModel& m) -> mjtSize { return m.nuserdata; }},
    {"qacc_warmstart", [](mjData* d) { return d->qacc_warmstart; }, [](const mjModel& m) -> mjtSize { return m.nv; }},
};

const char* EngineName(Engine engine) { return engine == Engine::kMujoco ? "mujoco" : "tamsi"; }

nlohmann::json ToJson(const std::vector<double>& values) {
  nlohmann::json array = nlohmann::json::array();
  for (double x : values) {
    if (std::isfinite(x)) {
      array.push_back(x);
    } else {
      array.push_back(std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
    }
  }
  return array;
}

std::vector<double> DoublesFromJson(const nlohmann::json& array, const std::string& field) {
  if (!array.is_array()) throw CheckpointFormatError(field + ": expected an array of numbers");
  std::vector<double> values;
  values.reserve(array.size());
  for (const nlohmann::json& x : array) {
    if (x.is_number()) {
      values.push_back(x.get<double>());
    } else if (x == "nan") {
      values.push_back(std::numeric_limits<double>::quiet_NaN());
    } else if (x == "inf" || x == "-inf") {
      values.push_back(x == "inf" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity());
    } else {
      throw CheckpointFormatError(field + ": expected numbers, \"nan\", \"inf\" or \"-inf\", got " + x.dump());
    }
  }
  return values;
}

/// 64-bit FNV-1a of `size` bytes, continuing from `hash`.
std::uint64_t Fnv1a(const void* bytes, std::size_t size, std::uint64_t hash = 14695981039346656037ull) {
  const auto* p = static_cast<const unsigned char*>(bytes);
  for (std::size_t k = 0; k < size; ++k) hash = (hash ^ p[k]) * 1099511628211ull;
  return hash;
}

std::string Hex(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
  return text;
}

/// A double as text that round-trips exactly.
std::string Text(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

/// The checksum of a checkpoint document: FNV-1a of its canonical text without the "checksum" field.
std::string Checksum(nlohmann::json document) {
  document.erase("checksum");
  const std::string text = document.dump();
  return Hex(Fnv1a(text.data(), text.size()));
}

const nlohmann::json& Field(const nlohmann::json& document, const char* name) {
  const auto it = document.find(name);
  if (it == document.end()) throw CheckpointFormatError(std::string("missing field '") + name + "'");
  return *it;
}

}  // namespace

std::map<std::string, std::string> PhysicsFingerprint(const Simulator& sim) {
  const mjModel& m = sim.model();
  const SimulatorOptions& o = sim.options();
  const Options& solver = o.solver;
  // mjModel's arrays live in one buffer; its options (gravity, timestep, integrator, …) beside it.
  const std::uint64_t model = Fnv1a(&m.opt, sizeof(m.opt), Fnv1a(m.buffer, static_cast<std::size_t>(m.nbuffer)));
  return {{"model", Hex(model)},
          {"narrow_phase", std::to_string(static_cast<int>(o.narrow_phase))},
          {"mujoco_solver", std::to_string(o.mujoco_solver)},
          {"contact.stiffness", Text(o.contact.stiffness) + (o.contact.override_stiffness ? " (override)" : "")},
          {"contact.dissipation", Text(o.contact.dissipation) + (o.contact.override_dissipation ? " (override)" : "")},
          {"solver.coupling", ToString(solver.coupling)},
          {"solver.regularization", ToString(solver.regularization)},
          {"solver.stiction_tolerance", Text(solver.stiction_tolerance)},
          {"solver.relative_tolerance", Text(solver.relative_tolerance)},
          {"solver.max_iterations", std::to_string(solver.max_iterations)},
          {"solver.friction_newton", ToString(solver.friction_newton)},
          {"solver.primal_dual_max_alpha", Text(solver.primal_dual_max_alpha)},
          {"solver.primal_dual_stall_iterations", std::to_string(solver.primal_dual_stall_iterations)},
          {"solver.primal_dual_max_non_descent", std::to_string(solver.primal_dual_max_non_descent)},
          {"solver.line_search", ToString(solver.line_search)},
          {"solver.newton_solve", ToString(solver.newton_solve)},
          {"solver.secant_safeguard", solver.secant_safeguard ? "on" : "off"},
          {"solver.krylov_tolerance", Text(solver.krylov_tolerance)},
          {"solver.keep_preconditioner_update", Text(solver.keep_preconditioner_update)},
          {"solver.schwarz_threshold", std::to_string(solver.schwarz_threshold)},
          {"solver.cholesky_flops_per_velocity", Text(solver.cholesky_flops_per_velocity)},
          {"solver.schwarz_part_bodies", std::to_string(solver.schwarz_part_bodies)},
          {"solver.schwarz_refactor_tolerance", Text(solver.schwarz_refactor_tolerance)},
          {"solver.linear_solver", ToString(solver.linear_solver)},
          {"carry_friction_duals", o.carry_friction_duals ? "on" : "off"},
          {"extrapolate_velocities", o.extrapolate_velocities ? "on" : "off"}};
}

Checkpoint CaptureCheckpoint(const Simulator& sim, const Scene& scene, long long step) {
  Checkpoint c;
  c.scene = scene.name;
  c.engine = EngineName(sim.options().engine);
  c.time_step = sim.time_step();
  c.step = step;
  c.time = sim.data().time;
  c.physics = PhysicsFingerprint(sim);
  const mjModel& model = sim.model();
  mjData* data = const_cast<mjData*>(&sim.data());  // read only: kDataArrays' accessors serve both directions
  for (const DataArray& array : kDataArrays) {
    const double* values = array.field(data);
    c.data[array.name].assign(values, values + array.size(model));
  }
  if (scene.controller_state) c.controller_state = scene.controller_state->SaveState();
  if (scene.checks) c.checks_state = scene.checks->SaveState();
  c.friction_duals = sim.SaveFrictionDuals();
  c.velocity_changes = sim.SaveVelocityChanges();
  return c;
}

void RestoreCheckpoint(const Checkpoint& c, Simulator* sim, Scene* scene) {
  auto mismatch = [](const std::string& field, const std::string& saved, const std::string& here) {
    throw std::invalid_argument("checkpoint " + field + ": it was written for " + saved + ", this run has " + here);
  };
  if (c.scene != scene->name) mismatch("scene", "'" + c.scene + "'", "'" + scene->name + "'");
  if (c.engine != EngineName(sim->options().engine)) mismatch("engine", c.engine, EngineName(sim->options().engine));
  if (c.time_step != sim->time_step())
    mismatch("time_step", std::to_string(c.time_step) + " s", std::to_string(sim->time_step()) + " s");
  const std::map<std::string, std::string> physics = PhysicsFingerprint(*sim);
  for (const auto& [name, here] : physics) {
    const auto it = c.physics.find(name);
    if (it == c.physics.end() || it->second != here) mismatch(name, it == c.physics.end() ? "none" : it->second, here);
  }
  const mjModel& model = sim->model();
  for (const DataArray& array : kDataArrays) {
    const auto it = c.data.find(array.name);
    const size_t size = static_cast<size_t>(array.size(model));
    if (it == c.data.end() || it->second.size() != size) {
      mismatch(array.name, it == c.data.end() ? "none" : std::to_string(it->second.size()) + " values",
               std::to_string(size) + " values");
    }
  }
  if (c.controller_state.empty() != !scene->controller_state) {
    mismatch("controller_state", c.controller_state.empty() ? "none" : "a controller state",
             scene->controller_state ? "a stateful controller" : "none");
  }
  if (c.checks_state.empty() != !scene->checks)
    mismatch("checks_state", c.checks_state.empty() ? "none" : "checks", scene->checks ? "checks" : "none");
  try {
    FrictionDualCarry().Load(c.friction_duals);
    Simulator::CheckVelocityChanges(c.velocity_changes, model.nv);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("checkpoint ") + e.what());
  }
  // Every field checked: now the state changes.
  if (scene->controller_state) scene->controller_state->RestoreState(c.controller_state);
  if (scene->checks) scene->checks->RestoreState(c.checks_state);
  mjData& data = sim->data();
  for (const DataArray& array : kDataArrays) {
    const std::vector<double>& values = c.data.at(array.name);
    std::copy(values.begin(), values.end(), array.field(&data));
  }
  data.time = c.time;
  sim->RestoreFrictionDuals(c.friction_duals);
  sim->RestoreVelocityChanges(c.velocity_changes);
}

void WriteCheckpoint(const Checkpoint& c, const std::string& path) {
  nlohmann::json document;
  document["tamsi_checkpoint"] = kFormatVersion;
  document["scene"] = c.scene;
  document["engine"] = c.engine;
  document["time_step"] = c.time_step;
  document["step"] = c.step;
  document["time"] = c.time;
  for (const auto& [name, values] : c.data) document["data"][name] = ToJson(values);
  document["controller_state"] = ToJson(c.controller_state);
  document["checks_state"] = ToJson(c.checks_state);
  document["friction_duals"] = ToJson(c.friction_duals);
  document["velocity_changes"] = ToJson(c.velocity_changes);
  document["output_bytes"] = c.output_bytes;
  document["physics"] = c.physics;
  document["checksum"] = Checksum(document);
  const std::string text = document.dump();
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode))
    throw std::runtime_error("cannot write checkpoint '" + path + "': it exists and is not a regular file");
  // One temporary per process: two writers never rename each other's file.
  const std::string temporary = path + ".tmp" + std::to_string(::getpid());
  auto fail = [&](const char* what) {
    const std::string reason = std::strerror(errno);
    ::unlink(temporary.c_str());
    throw std::runtime_error("cannot write checkpoint '" + path + "': " + what + " '" + temporary + "': " + reason);
  };
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) fail("open");
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      ::close(fd);
      fail("write");
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    fail("fsync");
  }
  if (::close(fd) != 0) fail("close");
  if (std::rename(temporary.c_str(), path.c_str()) != 0) fail("rename");
}

Checkpoint ReadCheckpoint(const std::string& path) {
  std::error_code error;
  if (std::filesystem::exists(path, error) && !std::filesystem::is_regular_file(path, error))
    throw CheckpointFormatError("cannot read checkpoint '" + path + "': not a regular file");
  std::ifstream in(path);
  if (!in) throw CheckpointFormatError("cannot read checkpoint '" + path + "'");
  try {
    const nlohmann::json document = nlohmann::json::parse(in);
    if (!document.is_object() || Field(document, "tamsi_checkpoint") != kFormatVersion)
      throw CheckpointFormatError("tamsi_checkpoint: expected format version " + std::to_string(kFormatVersion));
    Checkpoint c;
    c.scene = Field(document, "scene").get<std::string>();
    c.engine = Field(document, "engine").get<std::string>();
    c.time_step = Field(document, "time_step").get<double>();
    c.step = Field(document, "step").get<long long>();
    c.time = Field(document, "time").get<double>();
    for (const auto& [name, values] : Field(document, "data").items())
      c.data[name] = DoublesFromJson(values, "data." + name);
    c.controller_state = DoublesFromJson(Field(document, "controller_state"), "controller_state");
    c.checks_state = DoublesFromJson(Field(document, "checks_state"), "checks_state");
    c.friction_duals = DoublesFromJson(Field(document, "friction_duals"), "friction_duals");
    c.velocity_changes = DoublesFromJson(Field(document, "velocity_changes"), "velocity_changes");
    c.output_bytes = Field(document, "output_bytes").get<std::map<std::string, long long>>();
    c.physics = Field(document, "physics").get<std::map<std::string, std::string>>();
    if (Field(document, "checksum") != Checksum(document))
      throw CheckpointFormatError("checksum: the file does not hold what was written (changed or cut afterwards)");
    return c;
  } catch (const CheckpointFormatError& e) {
    throw CheckpointFormatError("checkpoint '" + path + "': " + e.what());
  } catch (const nlohmann::json::exception& e) {
    throw CheckpointFormatError("checkpoint '" + path + "': " + e.what());
  }
}

}  // namespace tamsi::scenes
