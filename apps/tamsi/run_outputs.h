#pragma once
/// @file
/// The CSV outputs of `tamsi run`: the trajectory (--output) and every contact of every step (--contacts); the
/// trajectory read back (`tamsi render`).

#include <tamsi/scenes/run.h>
#include <tamsi/scenes/simulator.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"

namespace tamsi::cli {

/// A CSV output of a run. Writers open their file afresh, or with `resume_bytes` ≥ 0 continue the one a checkpointed
/// run wrote (tamsi run --resume): cut to that length, no header. Opening throws CLI::RuntimeError (exit status 2)
/// when the file cannot be written, or is shorter than resume_bytes.
/// Every write is checked: a failed one (a full disk, /dev/full) throws CLI::RuntimeError (exit status 1) naming the
/// file (CheckOutput), so a run never ends with exit status 0 and a cut file.
class CsvWriter {
 public:
  void Flush();
  /// Flushes and returns the file's length (bytes), for a checkpoint.
  long long FlushedBytes();
  /// Flushes and closes the file, at the end of the run.
  void Close();

 protected:
  CsvWriter(const std::string& path, const char* what, long long resume_bytes);
  /// Throws when a write since the last check failed; writers call it after each row.
  void Check() const;

 private:
  std::string path_, what_;
  OutputLock lock_;  // taken before out_ opens (and truncates) the file

 protected:
  std::ofstream out_;
};

/// The length at which a resumed run continues its output file `key` (Checkpoint::output_bytes), or -1 (start it
/// afresh) when the run did not resume. Throws CLI::RuntimeError (exit status 2), naming `flag`, when the checkpointed
/// run wrote no such file.
long long ResumeBytes(const scenes::Run& run, const std::string& key, const char* flag);

/// The trajectory CSV: `time`, then for each moving body its position (m), quaternion, linear and angular velocity
/// (world frame, m/s and rad/s) as `<body>_x … <body>_wz`; for each hinge, slide and ball joint its position
/// (`<joint>_q`, rad or m; a ball joint's quaternion `<joint>_qw … _qz`) and velocity (`<joint>_v`; a ball joint's
/// local angular velocity `<joint>_wx … _wz`); and each actuator's force `<actuator>_force` (N or N·m, MuJoCo's
/// actuator_force). Free joints are the bodies' columns. Unnamed elements are `body3`, `joint2`, `actuator0`.
class TrajectoryWriter : public CsvWriter {
 public:
  TrajectoryWriter(const std::string& path, const mjModel& model, long long resume_bytes = -1);
  /// Writes the current state; the caller has refreshed the kinematics (Simulator::UpdateKinematics).
  void Write(const mjModel& model, const mjData& data);

 private:
  std::vector<int> bodies_, joints_;
};

/// One row of a trajectory CSV: its time (s) and the model's generalized positions (nq).
struct TrajectoryState {
  double time{0};
  std::vector<double> qpos;
};

/// Reads a trajectory CSV that TrajectoryWriter wrote for `model` back into states: free joints from their bodies'
/// position and quaternion columns, hinge and slide joints from `<joint>_q`, ball joints from `<joint>_qw … _qz`.
/// Throws CLI::RuntimeError (exit status 2) when the file cannot be read, a column the model needs is missing (naming
/// it), or a value is not a number (naming its line and column).
std::vector<TrajectoryState> ReadTrajectory(const std::string& path, const mjModel& model);

/// The contacts CSV: one row per contact row of every TAMSI step, `step,time,kind,object1,object2,x,y,z,nx,ny,nz,
/// penetration,fn,ft1,ft2`. kind is `geoms` (object1/object2 the geom names, point and normal from geom1 to geom2,
/// world frame, m), `joint_limit` or `tendon_limit` (object1 the joint or tendon, object2 empty, point and normal
/// zero). penetration is δ at the end of the step, δ0 − h vn (m, or rad for a hinge limit), the value fn (N, or N·m)
/// comes from; ft1, ft2 the friction force along the contact frame's tangents (N). time is the step's end.
class ContactWriter : public CsvWriter {
 public:
  explicit ContactWriter(const std::string& path, long long resume_bytes = -1);
  /// The contacts of the step `sim` just took (its last problem and result).
  void Write(long long step, const scenes::Simulator& sim);
};

/// A RunObserver that writes one CSV through `Writer` (a CsvWriter): flushed when a step fails, closed at the end,
/// and its flushed length saved under `key` with every checkpoint (a resumed run continues it there).
template <class Writer>
class CsvOutput : public scenes::RunObserver {
 public:
  void OnStepFailed(const scenes::Run&) override { writer_.Flush(); }
  void OnFinish(const scenes::Run&) override { writer_.Close(); }
  void SaveTo(scenes::Checkpoint* checkpoint) override { checkpoint->output_bytes[key_] = writer_.FlushedBytes(); }

 protected:
  template <class... WriterArgs>
  explicit CsvOutput(const char* key, WriterArgs&&... args) : key_(key), writer_(std::forward<WriterArgs>(args)...) {}
  const char* key_;
  Writer writer_;
};

}  // namespace tamsi::cli
