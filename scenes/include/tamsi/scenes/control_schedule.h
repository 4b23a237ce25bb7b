#pragma once
/// @file
/// Open-loop actuator controls read from a CSV file (`tamsi run MODEL --control FILE.csv`).

#include <mujoco/mujoco.h>
#include <tamsi/scenes/simulator.h>

#include <string>
#include <vector>

namespace tamsi::scenes {

/// Actuator controls over time: a header `time,<actuator>,<actuator>,...` naming any of the model's actuators in any
/// order, then one row per instant, times (s) strictly increasing. Between rows the controls are interpolated
/// linearly; before the first row and after the last they hold the first and last row's values. Actuators the file
/// does not name keep whatever ctrl they have (a scene's own controller, or zero).
class ControlSchedule {
 public:
  /// Reads `path`. Throws std::invalid_argument naming the file and what is wrong: a missing file, a header that
  /// does not start with `time`, an actuator the model does not have (with the names it has), a row whose column
  /// count differs from the header's, a value that is not a finite number (line and column), times that do not
  /// increase, or no rows.
  ControlSchedule(const mjModel& model, const std::string& path);

  /// Sets ctrl of the file's actuators for time data->time.
  void Apply(mjData* data) const;
  /// Apply() after `inner` (when set): the controller to give a Simulator.
  Controller WithController(Controller inner) const;

  const std::vector<int>& actuators() const { return actuators_; }
  const std::vector<double>& times() const { return times_; }

 private:
  std::vector<int> actuators_;  // actuator ids, in column order
  std::vector<double> times_;
  std::vector<double> values_;  // row-major: times_.size() × actuators_.size()
};

}  // namespace tamsi::scenes
