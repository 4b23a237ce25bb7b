#include "robot_scenes.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "embedded_models.h"

namespace tamsi::scenes::internal {
namespace {

int Id(const mjModel& model, mjtObj type, const char* name) {
  const int id = mj_name2id(&model, type, name);
  if (id < 0) throw std::logic_error(std::string("built-in scene lacks '") + name + "'");
  return id;
}

/// robotiq_grasp's checks: the box's slip along −y from the load time on, and its offset from the pads' centre.
class RobotiqGraspChecks : public SceneChecks {
 public:
  explicit RobotiqGraspChecks(int box) : box_(box) {}
  void Observe(const mjModel&, const mjData& data) override {
    using P = RobotiqGraspParameters;
    const double* p = data.xpos + 3 * box_;
    offset_ = std::max(offset_, std::abs(p[0]));
    if (data.time < P::kLoadTime) return;
    if (std::isnan(y_load_)) y_load_ = p[1];
    slip_ = std::max(slip_, y_load_ - p[1]);
  }
  std::vector<CheckResult> Results() const override {
    using P = RobotiqGraspParameters;
    return {{"box slip along gravity while held (m)", slip_, P::kMaxSlip, slip_ < P::kMaxSlip},
            {"box offset from the pads' centre (m)", offset_, P::kMaxOffset, offset_ < P::kMaxOffset}};
  }

 private:
  int box_;
  double y_load_{std::nan("")}, slip_{0}, offset_{0};
};

}  // namespace

Scene RobotiqGrasp() {
  using P = RobotiqGraspParameters;
  Scene scene;
  scene.name = kRobotiqGrasp;
  scene.model = LoadModelFromString(kRobotiqGraspMjcf, kRobotiqGrasp,
                                    (std::filesystem::path(ModelsDirectory()) / "menagerie" / "robotiq_2f85").string());
  const int fingers = Id(*scene.model, mjOBJ_ACTUATOR, "fingers_actuator");
  const int box = Id(*scene.model, mjOBJ_BODY, "box");
  const double close = scene.model->actuator_ctrlrange[2 * fingers + 1];
  scene.controller = [fingers, box, close](const mjModel&, mjData* data) {
    data->ctrl[fingers] = close * std::min(1.0, data->time / P::kCloseTime);
    data->xfrc_applied[6 * box + 1] = data->time >= P::kLoadTime ? -P::kBoxMass * P::kGravity : 0.0;
  };
  scene.contact = PenetrationAllowanceDefaults(*scene.model, kDefaultPenetrationAllowance);
  scene.stiction_tolerance = 1e-4;
  scene.duration = P::kDuration;
  scene.checks = std::make_shared<RobotiqGraspChecks>(box);
  return scene;
}

}  // namespace tamsi::scenes::internal
