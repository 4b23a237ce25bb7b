#include "run_outputs.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "commands.h"

namespace tamsi::cli {
namespace {

std::string Name(const mjModel& model, mjtObj type, int id, const char* kind) {
  const char* name = mj_id2name(&model, type, id);
  return name ? name : kind + std::to_string(id);
}

}  // namespace

/// A new CSV file, or (resume_bytes ≥ 0) one an earlier run wrote, cut to resume_bytes and continued.
CsvWriter::CsvWriter(const std::string& path, const char* what, long long resume_bytes)
    : path_(path), what_(std::string(what) + " file"), lock_(path, what_) {
  if (resume_bytes < 0) {
    out_.open(path);
  } else {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec || static_cast<long long>(size) < resume_bytes) {
      throw CLI::RuntimeError(std::string("cannot resume the ") + what + " file '" + path + "': the checkpoint needs " +
                                  std::to_string(resume_bytes) + " bytes of it, it " +
                                  (ec ? "cannot be read" : "holds " + std::to_string(size)),
                              2);
    }
    std::filesystem::resize_file(path, static_cast<std::uintmax_t>(resume_bytes), ec);
    if (!ec) out_.open(path, std::ios::app);
  }
  if (!out_) throw CLI::RuntimeError(std::string("cannot write ") + what + " file '" + path + "'", 2);
  out_.precision(10);
}

long long ResumeBytes(const scenes::Run& run, const std::string& key, const char* flag) {
  if (!run.resumed()) return -1;
  const auto it = run.resumed()->output_bytes.find(key);
  if (it == run.resumed()->output_bytes.end()) {
    throw CLI::RuntimeError(
        std::string(flag) + ": the checkpointed run wrote no such file; resume without " + flag + " or start afresh",
        2);
  }
  return it->second;
}

void CsvWriter::Check() const { CheckOutput(out_, what_, path_); }

void CsvWriter::Flush() {
  out_.flush();
  Check();
}

long long CsvWriter::FlushedBytes() {
  Flush();
  return static_cast<long long>(out_.tellp());
}

void CsvWriter::Close() { CloseOutput(out_, what_, path_); }

TrajectoryWriter::TrajectoryWriter(const std::string& path, const mjModel& model, long long resume_bytes)
    : CsvWriter(path, "trajectory", resume_bytes) {
  for (int b = 1; b < model.nbody; ++b) {
    int body = b;
    while (body > 0 && model.body_dofnum[body] == 0) body = model.body_parentid[body];
    if (body > 0) bodies_.push_back(b);
  }
  for (int j = 0; j < model.njnt; ++j)
    if (model.jnt_type[j] != mjJNT_FREE) joints_.push_back(j);
  if (resume_bytes >= 0) return;
  out_ << "time";
  static const char* kBodyFields[] = {"x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"};
  for (int b : bodies_) {
    const std::string body = Name(model, mjOBJ_BODY, b, "body");
    for (const char* field : kBodyFields) out_ << "," << body << "_" << field;
  }
  for (int j : joints_) {
    const std::string joint = Name(model, mjOBJ_JOINT, j, "joint");
    if (model.jnt_type[j] == mjJNT_BALL) {
      for (const char* field : {"qw", "qx", "qy", "qz", "wx", "wy", "wz"}) out_ << "," << joint << "_" << field;
    } else {
      out_ << "," << joint << "_q," << joint << "_v";
    }
  }
  for (int a = 0; a < model.nu; ++a) out_ << "," << Name(model, mjOBJ_ACTUATOR, a, "actuator") << "_force";
  out_ << "\n";
}

void TrajectoryWriter::Write(const mjModel& model, const mjData& data) {
  out_ << data.time;
  for (int b : bodies_) {
    double velocity[6];  // angular, linear (world orientation, at the body origin)
    mj_objectVelocity(&model, &data, mjOBJ_BODY, b, velocity, 0);
    for (int k = 0; k < 3; ++k) out_ << "," << data.xpos[3 * b + k];
    for (int k = 0; k < 4; ++k) out_ << "," << data.xquat[4 * b + k];
    for (int k = 3; k < 6; ++k) out_ << "," << velocity[k];
    for (int k = 0; k < 3; ++k) out_ << "," << velocity[k];
  }
  for (int j : joints_) {
    const bool ball = model.jnt_type[j] == mjJNT_BALL;
    const double* q = data.qpos + model.jnt_qposadr[j];
    const double* v = data.qvel + model.jnt_dofadr[j];
    for (int k = 0; k < (ball ? 4 : 1); ++k) out_ << "," << q[k];
    for (int k = 0; k < (ball ? 3 : 1); ++k) out_ << "," << v[k];
  }
  for (int a = 0; a < model.nu; ++a) out_ << "," << data.actuator_force[a];
  out_ << "\n";
  Check();
}

std::vector<TrajectoryState> ReadTrajectory(const std::string& path, const mjModel& model) {
  std::ifstream in(path);
  if (!in) throw CLI::RuntimeError("cannot read trajectory file '" + path + "'", 2);
  std::string line;
  std::getline(in, line);
  std::map<std::string, int> columns;
  {
    std::istringstream header(line);
    std::string name;
    for (int c = 0; std::getline(header, name, ','); ++c) columns[name] = c;
  }
  auto column = [&](const std::string& name) {
    const auto it = columns.find(name);
    if (it == columns.end()) throw CLI::RuntimeError(path + ": no column '" + name + "' for this model", 2);
    return it->second;
  };
  // (qpos address, CSV column) for every coordinate the file holds.
  std::vector<std::pair<int, int>> sources;
  for (int j = 0; j < model.njnt; ++j) {
    const int adr = model.jnt_qposadr[j];
    const std::string joint = Name(model, mjOBJ_JOINT, j, "joint");
    switch (model.jnt_type[j]) {
      case mjJNT_FREE: {
        const std::string body = Name(model, mjOBJ_BODY, model.jnt_bodyid[j], "body");
        int k = 0;
        for (const char* field : {"x", "y", "z", "qw", "qx", "qy", "qz"})
          sources.emplace_back(adr + k++, column(body + "_" + field));
        break;
      }
      case mjJNT_BALL: {
        int k = 0;
        for (const char* field : {"qw", "qx", "qy", "qz"}) sources.emplace_back(adr + k++, column(joint + "_" + field));
        break;
      }
      default:
        sources.emplace_back(adr, column(joint + "_q"));
    }
  }
  const int time_column = column("time");
  std::vector<TrajectoryState> states;
  std::vector<double> values;
  for (int row = 2; std::getline(in, line); ++row) {
    if (line.empty()) continue;
    values.clear();
    std::istringstream fields(line);
    std::string field;
    while (std::getline(fields, field, ',')) {
      char* end = nullptr;
      values.push_back(std::strtod(field.c_str(), &end));
      if (end == field.c_str() || *end != '\0')
        throw CLI::RuntimeError(path + ":" + std::to_string(row) + ": column " + std::to_string(values.size()) +
                                    " is not a number: '" + field + "'",
                                2);
    }
    if (values.size() != columns.size())
      throw CLI::RuntimeError(path + ":" + std::to_string(row) + ": expected " + std::to_string(columns.size()) +
                                  " values, got " + std::to_string(values.size()),
                              2);
    TrajectoryState state;
    state.time = values[time_column];
    state.qpos.assign(model.qpos0, model.qpos0 + model.nq);
    for (const auto& [adr, c] : sources) state.qpos[adr] = values[c];
    states.push_back(std::move(state));
  }
  if (states.empty()) throw CLI::RuntimeError(path + ": no states", 2);
  return states;
}

ContactWriter::ContactWriter(const std::string& path, long long resume_bytes)
    : CsvWriter(path, "contacts", resume_bytes) {
  if (resume_bytes < 0) out_ << "step,time,kind,object1,object2,x,y,z,nx,ny,nz,penetration,fn,ft1,ft2\n";
}

void ContactWriter::Write(long long step, const scenes::Simulator& sim) {
  const mjModel& model = sim.model();
  for (const scenes::ContactRecord& record : sim.LastContacts()) {
    const scenes::ContactInfo& c = record.info;
    out_ << step << "," << sim.time() << "," << scenes::ToString(c.kind) << ",";
    switch (c.kind) {
      case scenes::ContactInfo::Kind::kGeoms:
        out_ << Name(model, mjOBJ_GEOM, c.geom1, "geom") << "," << Name(model, mjOBJ_GEOM, c.geom2, "geom");
        break;
      case scenes::ContactInfo::Kind::kJointLimit:
        out_ << Name(model, mjOBJ_JOINT, c.object, "joint") << ",";
        break;
      case scenes::ContactInfo::Kind::kTendonLimit:
        out_ << Name(model, mjOBJ_TENDON, c.object, "tendon") << ",";
        break;
    }
    for (int k = 0; k < 3; ++k) out_ << "," << c.position[k];
    for (int k = 0; k < 3; ++k) out_ << "," << c.normal[k];
    out_ << "," << record.penetration << "," << record.fn << "," << record.ft1 << "," << record.ft2 << "\n";
  }
  Check();
}

}  // namespace tamsi::cli
