#pragma once
/// @file
/// Internal: the built-in scenes with Menagerie robots (robot_scenes.cc), registered by scene_library.cc. They read
/// the robots from today's MuJoCo Menagerie in the models folder (ThirdPartyModel: menagerie_current/).

#include <tamsi/scenes/scene_library.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace tamsi::scenes::internal {

/// The id of the named element of a built-in scene's model; std::logic_error when the model lacks it.
inline int Id(const mjModel& model, mjtObj type, const char* name) {
  const int id = mj_name2id(&model, type, name);
  if (id < 0) throw std::logic_error(std::string("built-in scene lacks '") + name + "'");
  return id;
}

/// Checkpointable::RestoreState's check: throws std::invalid_argument unless `state` holds `size` values.
inline void ExpectStateSize(const std::vector<double>& state, size_t size, const char* owner) {
  if (state.size() != size) {
    throw std::invalid_argument(std::string(owner) + " state: expected " + std::to_string(size) + " values, got " +
                                std::to_string(state.size()));
  }
}

inline constexpr char kRobotiqGrasp[] = "robotiq_grasp";
inline constexpr char kAllegroMug[] = "allegro_mug";
inline constexpr char kIiwaPickShakePlace[] = "iiwa_pick_shake_place";

Scene RobotiqGrasp();
Scene AllegroMug();
Scene IiwaPickShakePlace();

/// The Menagerie KUKA iiwa 14 with the Menagerie Robotiq 2F-85 on its flange (body "gripper" at the attachment site),
/// both as their authors wrote them, merged into one MJCF text to be compiled from the iiwa's folder: the gripper's
/// names that collide with the arm's (materials gray and black, classes visual and collision, body base) get the
/// prefix 2f85_, its mesh files are found from the arm's mesh folder, and the arm's keyframe is dropped. `menagerie`
/// is the Menagerie checkout holding kuka_iiwa_14/ and robotiq_2f85/.
std::string IiwaWithRobotiqXml(const std::string& menagerie);

}  // namespace tamsi::scenes::internal
