#pragma once
/// @file
/// Internal: the built-in scenes with Menagerie robots (robot_scenes.cc), registered by scene_library.cc.

#include <tamsi/scenes/scene_library.h>

namespace tamsi::scenes::internal {

inline constexpr char kRobotiqGrasp[] = "robotiq_grasp";
inline constexpr char kAllegroMug[] = "allegro_mug";

Scene RobotiqGrasp();
Scene AllegroMug();

}  // namespace tamsi::scenes::internal
