#pragma once
/// @file
/// Checkpoints of a run: everything a Simulator and its Scene need to continue as if never stopped, so that a run
/// resumed from a checkpoint takes bitwise the same steps as the uninterrupted run (`tamsi run --checkpoint`,
/// `--resume`). Written atomically as JSON (doubles round-trip exactly; NaN and ±inf as the strings "nan", "inf",
/// "-inf").

#include <tamsi/scenes/scene_library.h>
#include <tamsi/scenes/simulator.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tamsi::scenes {

/// A checkpoint file that cannot be read: the message names the file and the field.
class CheckpointFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Checkpoint {
  /// What the state belongs to, checked on restore: the scene's name, the engine ("tamsi" or "mujoco"), the time
  /// step h (s).
  std::string scene, engine;
  double time_step{0.0};
  /// Steps taken since the run's start.
  long long step{0};
  /// mjData's state: time (s), qpos (nq), qvel (nv), act (na), ctrl (nu), qfrc_applied (nv), xfrc_applied
  /// (6 nbody), mocap_pos (3 nmocap), mocap_quat (4 nmocap), userdata (nuserdata), and qacc_warmstart (nv: MuJoCo's
  /// engine starts its solver there).
  double time{0.0};
  std::map<std::string, std::vector<double>> data;
  /// Scene::controller_state and Scene::checks (Checkpointable::SaveState); empty for scenes without them.
  std::vector<double> controller_state, checks_state;
  /// The friction duals the next step carries over (Simulator::SaveFrictionDuals; empty when none).
  std::vector<double> friction_duals;
  /// The velocity changes the next step extrapolates from (Simulator::SaveVelocityChanges; empty when none).
  std::vector<double> velocity_changes;
  /// The run's output files and their lengths (bytes) at this step, so that a resumed run cuts what a killed run
  /// wrote after it and continues them.
  std::map<std::string, long long> output_bytes;
  /// Everything else that changes the physics, by name, as text (PhysicsFingerprint): a digest of the compiled model
  /// (its file, and what --bodies, --seed or --drop-speed made of it) and the solver and contact options. Checked on
  /// restore, so that a run never resumes a state under other physics.
  std::map<std::string, std::string> physics;
};

/// The `physics` record of a checkpoint of `sim`: "model" (a 64-bit FNV-1a digest of the compiled model's arrays
/// and options), "narrow_phase", "mujoco_solver", the contact defaults and overrides ("contact.stiffness", …), and
/// the solver options that change results ("solver.stiction_tolerance", "solver.friction_newton", …; not the thread
/// count, which does not).
std::map<std::string, std::string> PhysicsFingerprint(const Simulator& sim);

/// The state of `sim` and `scene` after `step` steps.
Checkpoint CaptureCheckpoint(const Simulator& sim, const Scene& scene, long long step);

/// Puts `checkpoint` back into `sim` and `scene` (its controller state and checks). Throws std::invalid_argument
/// naming the first field that does not fit: another scene, engine or time step, another model or option (the
/// `physics` entry that differs), or an array of the wrong size.
void RestoreCheckpoint(const Checkpoint& checkpoint, Simulator* sim, Scene* scene);

/// Writes `checkpoint` to `path` atomically: into a temporary file beside it (PATH.tmp<pid>, removed when a write
/// fails), flushed to disk (fsync), then renamed over `path`, so that a kill at any moment leaves either the previous
/// checkpoint or this one. Throws std::runtime_error naming the file when it cannot be written or `path` exists and
/// is not a regular file (a device or a folder is never replaced).
void WriteCheckpoint(const Checkpoint& checkpoint, const std::string& path);

/// Reads a checkpoint written by WriteCheckpoint. Throws CheckpointFormatError naming the file and the field, or
/// "checksum" when the file was changed after it was written (WriteCheckpoint stores a digest of its content).
Checkpoint ReadCheckpoint(const std::string& path);

}  // namespace tamsi::scenes
