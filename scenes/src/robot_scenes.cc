#include "robot_scenes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "embedded_models.h"

namespace tamsi::scenes::internal {
namespace {

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
  std::vector<double> SaveState() const override { return {y_load_, slip_, offset_}; }
  void RestoreState(const std::vector<double>& state) override {
    ExpectStateSize(state, 3, "robotiq_grasp checks");
    y_load_ = state[0], slip_ = state[1], offset_ = state[2];
  }

 private:
  int box_;
  double y_load_{std::nan("")}, slip_{0}, offset_{0};
};

/// allegro_mug's checks: the mug's drift from its place when the twists start, and the smallest turn per twist.
class AllegroMugChecks : public SceneChecks {
 public:
  explicit AllegroMugChecks(int mug) : mug_(mug) {}
  void Observe(const mjModel&, const mjData& data) override {
    using P = AllegroMugParameters;
    if (data.time < P::kTwistStart) return;
    const double* p = data.xpos + 3 * mug_;
    const double* q = data.xquat + 4 * mug_;
    if (phase_ < 0) std::copy(p, p + 3, start_);
    drift_ = std::max(drift_, std::hypot(p[0] - start_[0], p[1] - start_[1], p[2] - start_[2]));
    // At a phase change, last_ holds the orientation at the end of the twist that just finished.
    const int phase = static_cast<int>((data.time - P::kTwistStart) / P::kTwistTime);
    if (phase != phase_ && phase_ >= 1) {
      double inverse[4], relative[4], rotation[3];
      mju_negQuat(inverse, previous_end_);
      mju_mulQuat(relative, last_, inverse);
      mju_quat2Vel(rotation, relative, 1.0);
      min_twist_ = std::min(min_twist_, mju_norm3(rotation));
    }
    if (phase != phase_ && phase_ >= 0) std::copy(last_, last_ + 4, previous_end_);
    phase_ = phase;
    std::copy(q, q + 4, last_);
  }
  std::vector<CheckResult> Results() const override {
    using P = AllegroMugParameters;
    const double twist = std::isinf(min_twist_) ? 0.0 : min_twist_;
    return {{"mug drift from its place in the hand (m)", drift_, P::kMaxDrift, drift_ < P::kMaxDrift},
            {"smallest turn of the mug per twist (rad, at least)", twist, P::kMinTwist, twist >= P::kMinTwist}};
  }
  std::vector<double> SaveState() const override {
    std::vector<double> state{static_cast<double>(phase_), drift_, min_twist_};
    state.insert(state.end(), start_, start_ + 3);
    state.insert(state.end(), last_, last_ + 4);
    state.insert(state.end(), previous_end_, previous_end_ + 4);
    return state;
  }
  void RestoreState(const std::vector<double>& state) override {
    ExpectStateSize(state, 14, "allegro_mug checks");
    phase_ = static_cast<int>(state[0]), drift_ = state[1], min_twist_ = state[2];
    std::copy(state.begin() + 3, state.begin() + 6, start_);
    std::copy(state.begin() + 6, state.begin() + 10, last_);
    std::copy(state.begin() + 10, state.begin() + 14, previous_end_);
  }

 private:
  int mug_;
  int phase_{-1};
  double start_[3]{}, last_[4]{1, 0, 0, 0}, previous_end_[4]{1, 0, 0, 0};
  double drift_{0}, min_twist_{std::numeric_limits<double>::infinity()};
};

/// allegro_mug's controller state: q_c, the joint positions the grasp reached, recorded once at kTwistStart.
struct RecordedGrasp : Checkpointable {
  std::vector<double> closed;  // empty until recorded, then the hand's 16 joint positions
  std::vector<double> SaveState() const override {
    std::vector<double> state{closed.empty() ? 0.0 : 1.0};
    state.insert(state.end(), closed.begin(), closed.end());
    return state;
  }
  void RestoreState(const std::vector<double>& state) override {
    ExpectStateSize(state, state.empty() || state[0] == 0.0 ? 1 : 17, "allegro_mug controller");
    closed.assign(state.begin() + 1, state.end());
  }
};

}  // namespace

Scene AllegroMug() {
  using P = AllegroMugParameters;
  Scene scene;
  scene.name = kAllegroMug;
  scene.model = LoadModelFromString(kAllegroMugMjcf, kAllegroMug,
                                    ThirdPartyModel("menagerie_current/wonik_allegro", kAllegroMug).string());
  if (scene.model->nu != 16) throw std::logic_error("allegro_mug: expected the hand's 16 actuators");
  const int mug = Id(*scene.model, mjOBJ_BODY, "mug");
  auto grasp = std::make_shared<RecordedGrasp>();
  scene.controller_state = grasp;
  scene.controller = [grasp](const mjModel&, mjData* data) {
    const double t = data->time;
    double target[16] = {0};
    target[12] = 0.263;  // the thumb base's lowest position
    if (t >= P::kThumbTime) {
      target[12] = 1.396;
      target[13] = 0.3;
    }
    if (t >= P::kGraspTime) std::copy(P::kGraspPose, P::kGraspPose + 16, target);
    if (t >= P::kTwistStart) {
      std::vector<double>& closed = grasp->closed;
      if (closed.empty()) closed.assign(data->qpos, data->qpos + 16);
      std::copy(closed.begin(), closed.begin() + 12, target);
      const double middle[3] = {0.1, 0.1, 0.05}, twist[3] = {0.6, 0.18, 0.3};
      const bool index = std::fmod(t - P::kTwistStart, 2 * P::kTwistTime) < P::kTwistTime;
      for (int k = 0; k < 3; ++k) {
        target[5 + k] += middle[k];
        target[(index ? 1 : 9) + k] += twist[k];
      }
    }
    std::copy(target, target + 16, data->ctrl);
  };
  scene.contact = PenetrationAllowanceDefaults(*scene.model, kDefaultPenetrationAllowance);
  scene.stiction_tolerance = 1e-3;
  scene.duration = P::kDuration;
  scene.checks = std::make_shared<AllegroMugChecks>(mug);
  return scene;
}

Scene RobotiqGrasp() {
  using P = RobotiqGraspParameters;
  Scene scene;
  scene.name = kRobotiqGrasp;
  scene.model = LoadModelFromString(kRobotiqGraspMjcf, kRobotiqGrasp,
                                    ThirdPartyModel("menagerie_current/robotiq_2f85", kRobotiqGrasp).string());
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
