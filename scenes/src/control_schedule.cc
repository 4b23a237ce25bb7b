#include <tamsi/scenes/control_schedule.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tamsi::scenes {
namespace {

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream stream(line);
  std::string field;
  while (std::getline(stream, field, ',')) {
    const auto begin = field.find_first_not_of(" \t\r");
    const auto end = field.find_last_not_of(" \t\r");
    fields.push_back(begin == std::string::npos ? "" : field.substr(begin, end - begin + 1));
  }
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

}  // namespace

ControlSchedule::ControlSchedule(const mjModel& model, const std::string& path) {
  auto fail = [&path](const std::string& what) { throw std::invalid_argument("control file '" + path + "': " + what); };
  std::ifstream in(path);
  if (!in) fail("cannot open it");
  std::string line;
  if (!std::getline(in, line)) fail("empty; expected a header `time,<actuator>,...`");
  // A spreadsheet's UTF-8 byte-order mark before the header (its CRLF line ends are trimmed with the fields).
  if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
  const std::vector<std::string> header = SplitCsvLine(line);
  if (header.empty() || header[0] != "time") fail("the header must start with `time`, got `" + line + "`");
  for (size_t c = 1; c < header.size(); ++c) {
    const int id = mj_name2id(&model, mjOBJ_ACTUATOR, header[c].c_str());
    if (id < 0) {
      std::string known;
      for (int a = 0; a < model.nu; ++a) {
        const char* name = mj_id2name(&model, mjOBJ_ACTUATOR, a);
        known += std::string(known.empty() ? "" : ", ") + (name ? name : "#" + std::to_string(a) + " (unnamed)");
      }
      fail("column " + std::to_string(c + 1) + ": the model has no actuator '" + header[c] +
           "' (it has: " + (known.empty() ? "none" : known) + ")");
    }
    const auto earlier = std::find(actuators_.begin(), actuators_.end(), id);
    if (earlier != actuators_.end()) {
      fail("column " + std::to_string(c + 1) + ": actuator '" + header[c] + "' has column " +
           std::to_string(earlier - actuators_.begin() + 2) + " already");
    }
    actuators_.push_back(id);
  }
  for (int number = 2; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::vector<std::string> fields = SplitCsvLine(line);
    const std::string where = "line " + std::to_string(number);
    if (fields.size() != header.size()) {
      fail(where + ": " + std::to_string(fields.size()) + " columns, the header has " + std::to_string(header.size()));
    }
    for (size_t c = 0; c < fields.size(); ++c) {
      double value = 0.0;
      size_t used = 0;
      try {
        value = std::stod(fields[c], &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != fields[c].size() || !std::isfinite(value)) {
        fail(where + ", column " + std::to_string(c + 1) + ": `" + fields[c] + "` is not a finite number");
      }
      if (c > 0 && std::abs(value) > mjMAXVAL)  // MuJoCo would zero every control (mjWARN_BADCTRL)
        fail(where + ", column " + std::to_string(c + 1) + ": `" + fields[c] +
             "` is beyond MuJoCo's largest control, 1e10 (mjMAXVAL)");
      if (c == 0) {
        if (!times_.empty() && !(value > times_.back())) fail(where + ": times must increase");
        times_.push_back(value);
      } else {
        values_.push_back(value);
      }
    }
  }
  if (times_.empty()) fail("no rows after the header");
}

void ControlSchedule::Apply(mjData* data) const {
  const size_t n = actuators_.size();
  const double t = data->time;
  const auto after = std::upper_bound(times_.begin(), times_.end(), t);
  const size_t hi = std::min(static_cast<size_t>(after - times_.begin()), times_.size() - 1);
  const size_t lo = hi == 0 ? 0 : hi - 1;
  const double w = hi == lo ? 0.0 : std::clamp((t - times_[lo]) / (times_[hi] - times_[lo]), 0.0, 1.0);
  for (size_t c = 0; c < n; ++c) {
    data->ctrl[actuators_[c]] = (1 - w) * values_[lo * n + c] + w * values_[hi * n + c];
  }
}

Controller ControlSchedule::WithController(Controller inner) const {
  return [schedule = *this, inner = std::move(inner)](const mjModel& model, mjData* data) {
    if (inner) inner(model, data);
    schedule.Apply(data);
  };
}

}  // namespace tamsi::scenes
