#pragma once
/// @file
/// The front end's collision: MuJoCo's mj_collision with the front end's own narrow phase for plane–mesh pairs.

#include <mujoco/mujoco.h>

namespace tamsi::scenes {

/// The narrow phase of plane–mesh pairs (objects with convex mesh collision on the ground). Every other pair, the
/// sphere–cylinder pairs of the gripper's pads included (exact in MuJoCo 4.0), uses MuJoCo's own collider.
enum class NarrowPhase {
  /// The front end's own: a contact at every vertex of the mesh's convex hull within the margin (beyond the four
  /// that MuJoCo's collision function contract leaves a pair, added to the contact list after mj_collision), so a
  /// hull resting on a face rests on all its corners and each contact's force starts from zero.
  kAnalytic,
  /// MuJoCo's convex collider (GJK/EPA with multi-point contact): the YCB objects still rock on it after 4 s
  /// (largest free-body speed 2e-2 m/s under TAMSI, YcbObjects test).
  kMujoco,
};

/// MuJoCo's mj_collision at the positions of `data` (kinematics and comPos done), with `narrow_phase` for
/// plane–mesh pairs and MuJoCo's own colliders for every other pair. Fills data->contact and
/// data->ncon, with a point that a collider reported twice in a row (the same geoms, depth, position and frame, bit for
/// bit) kept once: under compliant contact each copy would add the point's whole force. The choice of narrow phase
/// holds for this call on this thread only: MuJoCo's own engine (mj_step) keeps its colliders and their contacts.
void Collide(const mjModel& model, mjData* data, NarrowPhase narrow_phase);

}  // namespace tamsi::scenes
