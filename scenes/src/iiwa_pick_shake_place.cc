// iiwa_pick_shake_place (paper Sec. VI-C): the merged Menagerie model, the pinch point's path and IK, the controller
// with its inverse-dynamics feed-forward and regulated grip, and the scene's checks (IiwaPickShakePlaceParameters).
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "robot_scenes.h"

namespace tamsi::scenes::internal {
namespace {

constexpr double kPi = 3.14159265358979323846;

std::string ReadModelFile(const std::filesystem::path& path) {
  std::ifstream file(path);
  if (!file) throw ModelLoadError("cannot read model file '" + path.string() + "'");
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

/// The text between the first `open` and the following `close`.
std::string Between(const std::string& text, const std::string& open, const std::string& close) {
  const auto begin = text.find(open);
  const auto end = text.find(close, begin);
  if (begin == std::string::npos || end == std::string::npos || end < begin)
    throw std::logic_error("model text lacks " + open + " ... " + close);
  return text.substr(begin + open.size(), end - begin - open.size());
}

/// Inserts `what` at the first (or last) `anchor`, before or after it.
void Insert(std::string* text, const std::string& anchor, const std::string& what, bool after, bool last = false) {
  const auto at = last ? text->rfind(anchor) : text->find(anchor);
  if (at == std::string::npos) throw std::logic_error("model text lacks " + anchor);
  text->insert(after ? at + anchor.size() : at, what);
}

std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

constexpr int kArm = 7;  // the iiwa's joints come first in the merged model

/// Differential inverse kinematics of the pinch point (the 2F-85's site "pinch", between its pads) on a scratch
/// mjData: its pose at an arm configuration, and the joint velocity that moves it at a desired twist, by damped least
/// squares over the arm's 7 joints.
class PinchIk {
 public:
  explicit PinchIk(const mjModel& model)
      : model_(model), data_(mj_makeData(&model)), site_(Id(model, mjOBJ_SITE, "pinch")) {}
  /// Position p (m) and orientation R (world, row-major) of the pinch point at arm configuration q (7).
  void Pose(const double* q, double p[3], double R[9]) {
    std::copy(q, q + kArm, data_->qpos);
    mj_kinematics(&model_, data_.get());
    mj_comPos(&model_, data_.get());
    std::copy(data_->site_xpos + 3 * site_, data_->site_xpos + 3 * site_ + 3, p);
    std::copy(data_->site_xmat + 9 * site_, data_->site_xmat + 9 * site_ + 9, R);
  }
  /// The arm's q̇ giving the pinch point the twist (v, ω) (world frame), at the configuration of the last Pose().
  Eigen::Matrix<double, kArm, 1> Rate(const Eigen::Matrix<double, 6, 1>& twist) {
    Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor> jp(3, model_.nv), jr(3, model_.nv);
    mj_jacSite(&model_, data_.get(), jp.data(), jr.data(), site_);
    Eigen::Matrix<double, 6, kArm> J;
    J << jp.leftCols(kArm), jr.leftCols(kArm);
    const Eigen::Matrix<double, 6, 6> A = J * J.transpose() + 1e-4 * Eigen::Matrix<double, 6, 6>::Identity();
    return J.transpose() * A.ldlt().solve(twist);
  }

 private:
  const mjModel& model_;
  DataPtr data_;
  int site_;
};

/// The gripper pointing down, closing along world x: the pinch frame's axes x = (0, −1, 0), y = (−1, 0, 0),
/// z = (0, 0, −1), row-major.
constexpr double kDown[9] = {0, -1, 0, -1, 0, 0, 0, 0, -1};

/// Position error p_d − p and orientation error ½ Σᵢ rᵢ × r_d,ᵢ (columns of R and R_d) of the pinch point.
Eigen::Matrix<double, 6, 1> PoseError(const double target[3], const double p[3], const double R[9]) {
  Eigen::Matrix<double, 6, 1> e;
  for (int k = 0; k < 3; ++k) e[k] = target[k] - p[k];
  Eigen::Vector3d rotation = Eigen::Vector3d::Zero();
  for (int c = 0; c < 3; ++c) {
    const Eigen::Vector3d r(R[c], R[3 + c], R[6 + c]), rd(kDown[c], kDown[3 + c], kDown[6 + c]);
    rotation += 0.5 * r.cross(rd);
  }
  e.tail<3>() = rotation;
  return e;
}

/// The pinch point's path: keyframes joined by smoothsteps (zero velocity at each), the shake added on top.
/// Returns the position and writes the velocity.
Eigen::Vector3d PinchPath(double t, const Eigen::Vector3d& start, Eigen::Vector3d* velocity) {
  using P = IiwaPickShakePlaceParameters;
  const Eigen::Vector3d grasp(P::kBottleX, P::kBottleY, P::kTableTop + P::kBottleHalfHeight);
  const Eigen::Vector3d up(0, 0, 1), along(0, P::kPlaceOffset, 0);
  struct Keyframe {
    double time;
    Eigen::Vector3d p;
  };
  const Keyframe keys[] = {{0.0, start},
                           {1.0, grasp + 0.2 * up},
                           {2.0, grasp},
                           {3.0, grasp},  // the grip closes
                           {4.0, grasp + P::kLift * up},
                           {4.0 + P::kShakeTime, grasp + P::kLift * up},  // the shake
                           {7.5, grasp + along + P::kLift * up},
                           {8.5, grasp + along},
                           {9.0, grasp + along},  // the grip opens
                           {10.0, grasp + along + 0.2 * up}};
  Eigen::Vector3d p = keys[std::size(keys) - 1].p;
  velocity->setZero();
  for (size_t k = 0; k + 1 < std::size(keys); ++k) {
    if (t < keys[k].time || t >= keys[k + 1].time) continue;
    const double span = keys[k + 1].time - keys[k].time, x = (t - keys[k].time) / span;
    const double s = x * x * (3 - 2 * x), ds = 6 * x * (1 - x) / span;
    p = keys[k].p + s * (keys[k + 1].p - keys[k].p);
    *velocity = ds * (keys[k + 1].p - keys[k].p);
  }
  const double shake_start = 4.0;
  if (t >= shake_start && t < shake_start + P::kShakeTime) {
    // y += A w(τ) sin(2π f τ), w rising and falling over the first and last quarter second.
    const double tau = t - shake_start, omega = 2 * kPi * P::kShakeFrequency;
    const double ramp = 0.25;
    double w = 1, dw = 0;
    if (tau < ramp) {
      w = tau / ramp;
      dw = 1 / ramp;
    } else if (tau > P::kShakeTime - ramp) {
      w = (P::kShakeTime - tau) / ramp;
      dw = -1 / ramp;
    }
    p[1] += P::kShakeAmplitude * w * std::sin(omega * tau);
    (*velocity)[1] += P::kShakeAmplitude * (dw * std::sin(omega * tau) + w * omega * std::cos(omega * tau));
  }
  return p;
}

/// iiwa_pick_shake_place's controller (the parameters' description): IK references, servo targets with an
/// inverse-dynamics feed-forward, and the regulated grip.
class IiwaController : public Checkpointable {
 public:
  IiwaController(const mjModel& model, const double* q_start, std::shared_ptr<double> grip_force)
      : ik_(model), grip_force_(std::move(grip_force)), fingers_(Id(model, mjOBJ_ACTUATOR, "fingers_actuator")) {
    std::copy(q_start, q_start + kArm, q_ref_.data());
    double p[3], R[9];
    ik_.Pose(q_ref_.data(), p, R);
    start_ = Eigen::Vector3d(p[0], p[1], p[2]);
  }

  void operator()(const mjModel& model, mjData* data) {
    using P = IiwaPickShakePlaceParameters;
    const double t = data->time, dt = last_time_ < 0 ? 0.0 : t - last_time_;
    last_time_ = t;
    // References: one differential-IK step of the path from the current reference configuration.
    Eigen::Vector3d velocity;
    const Eigen::Vector3d target = PinchPath(t, start_, &velocity);
    double p[3], R[9];
    ik_.Pose(q_ref_.data(), p, R);
    Eigen::Matrix<double, 6, 1> twist = 20.0 * PoseError(target.data(), p, R);
    twist.head<3>() += velocity;
    const Eigen::Matrix<double, kArm, 1> qdot = ik_.Rate(twist);
    const Eigen::Matrix<double, kArm, 1> qddot = dt > 0 ? ((qdot - qdot_ref_) / dt).eval() : qdot_ref_ * 0.0;
    qdot_ref_ = qdot;
    q_ref_ += dt * qdot_ref_;
    // The servos (force 2000 (ctrl − q) − 200 q̇) track q_ref; the feed-forward adds M q̈_ref + c(q, q̇) and the
    // servo damping at q̇_ref.
    mj_kinematics(&model, data);
    mj_comPos(&model, data);
    mj_comVel(&model, data);
    std::fill(data->qacc, data->qacc + model.nv, 0.0);
    for (int j = 0; j < kArm; ++j) data->qacc[j] = qddot[j];
    std::vector<double>& inverse = inverse_dynamics_;
    inverse.resize(model.nv);
    mj_rne(&model, data, 1, inverse.data());
    for (int j = 0; j < kArm; ++j) {
      data->ctrl[j] = q_ref_[j];
      data->qfrc_applied[j] = inverse[j] - model.actuator_biasprm[mjNBIAS * j + 2] * qdot_ref_[j];
    }
    // The grip: open, then integral regulation of the pads' normal force, then open again to release.
    const bool holding = t >= 2.0 && t < 9.0;
    grip_ = holding ? std::clamp(grip_ + 40.0 * (P::kGripForce - *grip_force_) * dt, 0.0, 255.0) : 0.0;
    data->ctrl[fingers_] = grip_;
  }

  /// q_ref, q̇_ref, the last call's time, the grip command and the sensed grip force.
  std::vector<double> SaveState() const override {
    std::vector<double> state(q_ref_.data(), q_ref_.data() + kArm);
    state.insert(state.end(), qdot_ref_.data(), qdot_ref_.data() + kArm);
    state.insert(state.end(), {last_time_, grip_, *grip_force_});
    return state;
  }
  void RestoreState(const std::vector<double>& state) override {
    ExpectStateSize(state, 2 * kArm + 3, "iiwa_pick_shake_place controller");
    std::copy(state.begin(), state.begin() + kArm, q_ref_.data());
    std::copy(state.begin() + kArm, state.begin() + 2 * kArm, qdot_ref_.data());
    last_time_ = state[2 * kArm], grip_ = state[2 * kArm + 1], *grip_force_ = state[2 * kArm + 2];
  }

 private:
  PinchIk ik_;
  std::shared_ptr<double> grip_force_;
  int fingers_;
  Eigen::Matrix<double, kArm, 1> q_ref_, qdot_ref_ = Eigen::Matrix<double, kArm, 1>::Zero();
  Eigen::Vector3d start_;
  double last_time_{-1.0}, grip_{0.0};
  std::vector<double> inverse_dynamics_;
};

/// iiwa_pick_shake_place's checks.
class IiwaPickShakePlaceChecks : public SceneChecks {
 public:
  IiwaPickShakePlaceChecks(int bottle, int pinch) : bottle_(bottle), pinch_(pinch) {}
  void Observe(const mjModel&, const mjData& data) override {
    using P = IiwaPickShakePlaceParameters;
    const Eigen::Map<const Eigen::Vector3d> b(data.xpos + 3 * bottle_), pinch(data.site_xpos + 3 * pinch_);
    lift_ = std::max(lift_, b[2] - (P::kTableTop + P::kBottleHalfHeight));
    // The bottle's place relative to the pinch point from the shake's start to its end.
    if (data.time >= 4.0 && data.time <= 4.0 + P::kShakeTime) {
      const Eigen::Vector3d relative = b - pinch;
      if (!shaking_) relative_start_ = relative;
      shaking_ = true;
      slip_ = std::max(slip_, (relative - relative_start_).norm());
    }
    place_error_ = std::hypot(b[0] - P::kBottleX, b[1] - (P::kBottleY + P::kPlaceOffset));
    tilt_ = std::acos(std::clamp(data.xmat[9 * bottle_ + 8], -1.0, 1.0));  // the bottle's axis against world z
  }
  std::vector<CheckResult> Results() const override {
    using P = IiwaPickShakePlaceParameters;
    return {{"bottle lifted off the table (m, at least)", lift_, P::kMinLift, lift_ >= P::kMinLift},
            {"bottle slip in the gripper through the shake (m)", slip_, P::kMaxSlip, shaking_ && slip_ < P::kMaxSlip},
            {"bottle distance from its target at the end (m)", place_error_, P::kMaxPlaceError,
             place_error_ < P::kMaxPlaceError},
            {"bottle tilt at the end (rad)", tilt_, P::kMaxTilt, tilt_ < P::kMaxTilt}};
  }
  std::vector<double> SaveState() const override {
    return {shaking_ ? 1.0 : 0.0,
            relative_start_[0],
            relative_start_[1],
            relative_start_[2],
            lift_,
            slip_,
            place_error_,
            tilt_};
  }
  void RestoreState(const std::vector<double>& state) override {
    ExpectStateSize(state, 8, "iiwa_pick_shake_place checks");
    shaking_ = state[0] != 0.0;
    relative_start_ = Eigen::Vector3d(state[1], state[2], state[3]);
    lift_ = state[4], slip_ = state[5], place_error_ = state[6], tilt_ = state[7];
  }

 private:
  int bottle_, pinch_;
  bool shaking_{false};
  Eigen::Vector3d relative_start_{Eigen::Vector3d::Zero()};
  double lift_{0}, slip_{0}, place_error_{0}, tilt_{0};
};

}  // namespace

std::string IiwaWithRobotiqXml(const std::string& menagerie) {
  const std::filesystem::path dir(menagerie);
  std::string arm = ReadModelFile(dir / "kuka_iiwa_14" / "iiwa14.xml");
  std::string hand = ReadModelFile(dir / "robotiq_2f85" / "2f85.xml");
  // Names both models use, renamed in the gripper's text; its meshes found from the arm's mesh directory.
  for (const std::string name : {"gray", "black", "visual", "collision"})
    hand = ReplaceAll(hand, "\"" + name + "\"", "\"2f85_" + name + "\"");
  hand = ReplaceAll(hand, "name=\"base\"", "name=\"2f85_base\"");
  hand = ReplaceAll(hand, "body1=\"base\"", "body1=\"2f85_base\"");
  hand = ReplaceAll(hand, "file=\"", "file=\"../../robotiq_2f85/assets/");
  std::string defaults = Between(hand, "<default>", "<worldbody>");  // the gripper's classes, and the outer end tag
  defaults.erase(defaults.rfind("</default>"));
  // Beside the arm's class "iiwa" (whose end tag the outer <default>'s follows), not inside it.
  const auto iiwa_end = arm.find("</default>\n  </default>");
  if (iiwa_end == std::string::npos) throw std::logic_error("iiwa14.xml: unexpected <default> layout");
  arm.insert(iiwa_end + std::strlen("</default>\n"), defaults + "\n");
  Insert(&arm, "</asset>", Between(hand, "<asset>", "</asset>"), /*after=*/false);
  Insert(&arm, "<site pos=\"0 0 0.045\" name=\"attachment_site\"/>",
         "\n<body name=\"gripper\" pos=\"0 0 0.045\">" + Between(hand, "<worldbody>", "</worldbody>") + "</body>",
         /*after=*/true);
  // The arm's keyframe has the arm's qpos only: the scene declares its own.
  const auto key = arm.find("<keyframe>");
  if (key != std::string::npos) arm.erase(key, arm.find("</keyframe>") + std::strlen("</keyframe>") - key);
  for (const std::string section : {"contact", "tendon", "equality", "actuator"}) {
    const std::string open = "<" + section + ">", close = "</" + section + ">";
    Insert(&arm, "</mujoco>", open + Between(hand, open, close) + close + "\n", /*after=*/false, /*last=*/true);
  }
  return arm;
}

Scene IiwaPickShakePlace() {
  using P = IiwaPickShakePlaceParameters;
  // Both robots from the same Menagerie checkout: the merged text finds the gripper's meshes from the arm's folder.
  const std::filesystem::path arm = ThirdPartyModel("menagerie_current/kuka_iiwa_14", kIiwaPickShakePlace);
  ThirdPartyModel("menagerie_current/robotiq_2f85", kIiwaPickShakePlace);
  std::string xml = IiwaWithRobotiqXml(arm.parent_path().string());
  // The table top is a plane only the bottle touches (collision bits 2), drawn as a box; the bottle touches the
  // robot (bit 1) too.
  std::ostringstream scene;
  scene << "\n<geom name=\"floor\" type=\"plane\" size=\"2 2 0.05\" contype=\"0\" conaffinity=\"0\"/>"
        << "\n<geom name=\"table_top\" type=\"plane\" size=\"0.3 0.4 0.05\" pos=\"0.6 0 " << P::kTableTop
        << "\" contype=\"2\" conaffinity=\"2\"/>"
        << "\n<geom name=\"table\" type=\"box\" size=\"0.3 0.4 " << P::kTableTop / 2 << "\" pos=\"0.6 0 "
        << P::kTableTop / 2 << "\" contype=\"0\" conaffinity=\"0\" rgba=\"0.6 0.5 0.4 1\"/>"
        << "\n<body name=\"bottle\" pos=\"" << P::kBottleX << " " << P::kBottleY << " "
        << P::kTableTop + P::kBottleHalfHeight << "\"><freejoint/><geom name=\"bottle\" type=\"cylinder\" size=\""
        << P::kBottleRadius << " " << P::kBottleHalfHeight << "\" mass=\"" << P::kBottleMass
        << "\" contype=\"3\" conaffinity=\"3\" friction=\"1\" rgba=\"0.2 0.5 0.8 1\"/></body>\n";
  xml.insert(xml.rfind("</worldbody>"), scene.str());
  // The start (keyframe 0): the arm's joints are set below by IK; the gripper open, the bottle on the table.
  std::ostringstream key;
  key << "<keyframe><key name=\"start\" qpos=\"0 0 0 0 0 0 0  0 0 0 0 0 0 0 0  " << P::kBottleX << " " << P::kBottleY
      << " " << P::kTableTop + P::kBottleHalfHeight << " 1 0 0 0\"/></keyframe>\n";
  xml.insert(xml.rfind("</mujoco>"), key.str());
  Scene result;
  result.name = kIiwaPickShakePlace;
  result.model = LoadModelFromString(xml, kIiwaPickShakePlace, arm.string());
  mjModel& model = *result.model;
  // The arm's start: the pinch point 20 cm above the bottle's centre, pointing down (IK from a bent arm).
  double q[kArm] = {0, 0.6, 0, -1.4, 0, 1.2, 0};
  {
    PinchIk ik(model);
    const double above[3] = {P::kBottleX, P::kBottleY, P::kTableTop + P::kBottleHalfHeight + 0.2};
    for (int iteration = 0; iteration < 500; ++iteration) {
      double p[3], R[9];
      ik.Pose(q, p, R);
      const Eigen::Matrix<double, kArm, 1> step = ik.Rate(PoseError(above, p, R));
      for (int j = 0; j < kArm; ++j) q[j] += 0.5 * step[j];
    }
  }
  for (int j = 0; j < kArm; ++j) model.key_qpos[j] = model.key_ctrl[j] = q[j];
  auto grip_force = std::make_shared<double>(0.0);
  auto controller = std::make_shared<IiwaController>(model, q, grip_force);
  result.controller = [controller](const mjModel& m, mjData* d) { (*controller)(m, d); };
  result.controller_state = controller;
  const int right = Id(model, mjOBJ_BODY, "right_pad"), left = Id(model, mjOBJ_BODY, "left_pad");
  const int bottle = Id(model, mjOBJ_BODY, "bottle");
  result.sensor = [grip_force, right, left, bottle](const Simulator& sim) {
    *grip_force = 0.5 * (sim.NormalForceBetween(right, bottle) + sim.NormalForceBetween(left, bottle));
  };
  result.contact = PenetrationAllowanceDefaults(model, kDefaultPenetrationAllowance);
  result.stiction_tolerance = 1e-4;
  result.duration = P::kDuration;
  result.checks = std::make_shared<IiwaPickShakePlaceChecks>(bottle, Id(model, mjOBJ_SITE, "pinch"));
  return result;
}

}  // namespace tamsi::scenes::internal
