#pragma once
/// @file
/// Test helper: one simulator's state put into another of the same model.
#include <tamsi/scenes/simulator.h>

#include <algorithm>

namespace tamsi::scenes {

/// Copies time, qpos and qvel of `from` into `to` (the same model): `to`'s next step starts where `from` is, as after
/// an edit from outside (nothing carried over from `to`'s own last step).
inline void CopyState(const Simulator& from, Simulator* to) {
  const mjModel& m = from.model();
  std::copy_n(from.data().qpos, m.nq, to->data().qpos);
  std::copy_n(from.data().qvel, m.nv, to->data().qvel);
  to->data().time = from.data().time;
}

}  // namespace tamsi::scenes
