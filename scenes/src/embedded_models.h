#pragma once
/// @file
/// The MJCF text of the built-in scenes (scenes/models/*.xml), embedded at build time by CMake.

namespace tamsi::scenes::internal {

extern const char kBoxStickSlipMjcf[];
extern const char kGripperMugShakeMjcf[];
extern const char kRobotiqGraspMjcf[];
extern const char kAllegroMugMjcf[];

}  // namespace tamsi::scenes::internal
