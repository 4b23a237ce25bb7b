#pragma once
/// @file
/// The built-in scenes of `tamsi run` (paper scenes and clutter), their controllers and descriptions, and the loading
/// of any MJCF file as a scene.

#include <tamsi/scenes/mujoco_frontend.h>
#include <tamsi/scenes/mujoco_model.h>
#include <tamsi/scenes/simulator.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tamsi::scenes {

/// Thrown for a scene name that is neither built in nor a model file.
class UnknownSceneError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Thrown by ThirdPartyModel when the models folder is not set or lacks the model asked for.
class ThirdPartyModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Name and one-line description of a built-in scene.
struct SceneDescription {
  std::string name;
  std::string description;
};

/// The built-in scenes, the default (gripper_mug_shake) first.
const std::vector<SceneDescription>& BuiltinScenes();
/// The scene `tamsi run` runs without an argument.
const char* DefaultSceneName();

/// The most bodies clutter_bin generates (checked before its model is built: each body costs ~20 KB in MuJoCo's model
/// and data, and the largest shared pile has 10,000).
inline constexpr int kMaxClutterBodies = 100000;

/// Parameters of built-in scenes that the command line can change.
struct SceneOptions {
  /// clutter_bin: number of free bodies (1 to kMaxClutterBodies) and the seed of their shapes, sizes, masses and drop
  /// poses.
  int clutter_bodies{200};
  std::uint32_t clutter_seed{1};
  /// clutter_bin: the bodies' initial downward speed (m/s, ≥ 0): 0 drops them from rest, more throws them in.
  double clutter_drop_speed{0.0};
};

/// One success criterion of a scene: a measured value against its bound.
struct CheckResult {
  std::string name;  // what is measured, with its unit, e.g. "box slip along gravity while held (m)"
  double value{0}, bound{0};
  bool passed{false};
};

/// State a scene keeps between steps outside mjData (its controller's references and integrators, its sensor's last
/// reading, its checks' running extremes), as a flat vector of doubles for checkpoints (scenes/checkpoint.h).
class Checkpointable {
 public:
  virtual ~Checkpointable() = default;
  virtual std::vector<double> SaveState() const = 0;
  /// Throws std::invalid_argument when `state` is not a vector SaveState() of this kind of object could give.
  virtual void RestoreState(const std::vector<double>& state) = 0;
};

/// A scene's success checks: Observe() after every step of a run (from its start), then Results().
class SceneChecks : public Checkpointable {
 public:
  virtual void Observe(const mjModel& model, const mjData& data) = 0;
  virtual std::vector<CheckResult> Results() const = 0;
};

/// A model ready to simulate: the compiled model, its controller, and the scene's defaults.
struct Scene {
  std::string name;
  ModelPtr model;
  /// Null for models loaded from a file (zero controls).
  Controller controller;
  /// Per-geom contact parameters for geoms without MJCF `user` data.
  ContactDefaults contact;
  /// The scene's stiction tolerance v_s (m/s) and default duration (s).
  double stiction_tolerance{1e-4};
  double duration{1.0};
  /// The camera of its videos unless the user names one (RenderOptions::camera: "" for a free camera on the whole
  /// model, a model camera's name, or "track:BODY").
  std::string camera;
  /// The scene's success checks; null when it has none.
  std::shared_ptr<SceneChecks> checks;
  /// Scenes whose controller feeds back simulated contact forces read them here after every step (give it to
  /// Simulator::set_step_observer); null otherwise.
  std::function<void(const Simulator&)> sensor;
  /// The state the controller and sensor keep between steps; null when the controller reads only mjData.
  std::shared_ptr<Checkpointable> controller_state;
  /// A built-in scene (LoadScene by name), whose contact parameters `contact` are chosen on purpose: no warning for
  /// its geoms' own solref/solimp.
  bool built_in{false};
};

/// Loads a built-in scene by name, or else an MJCF/URDF file by path. Throws UnknownSceneError for a name that is
/// neither (listing the built-in names), ModelLoadError for a file MuJoCo cannot load, std::invalid_argument for
/// invalid options, ThirdPartyModelError for a robot scene (robotiq_grasp, allegro_mug, iiwa_pick_shake_place)
/// without today's MuJoCo Menagerie in the models folder (ThirdPartyModel).
Scene LoadScene(const std::string& name_or_path, const SceneOptions& options = SceneOptions());

/// A model loaded from a file (or handed over by a caller, e.g. a Python mujoco.MjModel copied) as a scene, with the
/// defaults `tamsi run FILE` gives it: no controller, contact parameters from PenetrationAllowanceDefaults with
/// kDefaultPenetrationAllowance for geoms without `user` data, v_s = 1e-4 m/s, duration 1 s. Throws
/// std::invalid_argument when `model` is null.
Scene SceneFromModel(ModelPtr model, std::string name);

/// The project's own scene models (scenes/models: the built-in scenes' MJCF files, which the library also embeds): the
/// installed share/tamsi/models when it exists, else the source tree's scenes/models. Third-party models are never
/// there: see ThirdPartyModel.
std::string ModelsDirectory();

/// The third-party model file or folder `relative` (e.g. "menagerie_current/robotiq_2f85") in the models folder, the
/// one setting for third-party models: the environment variable TAMSI_MODELS_DIR, read at every call, names a folder
/// laid out as
///   menagerie_current/   a checkout of https://github.com/google-deepmind/mujoco_menagerie (the robot scenes'
///                        robotiq_2f85/, wonik_allegro/, kuka_iiwa_14/)
///   ycb_sim/             a checkout of https://github.com/vikashplus/YCB_sim
/// (README, "Models"). Returns $TAMSI_MODELS_DIR/relative. Throws ThirdPartyModelError, one line naming
/// `needed_by` (who needs it, e.g. a scene), the setting and the missing path, when TAMSI_MODELS_DIR is unset or
/// empty or has nothing at `relative`.
std::filesystem::path ThirdPartyModel(const std::string& relative, const std::string& needed_by);

/// Geoms without `user` data in a model loaded from a file get Drake's paper-era heuristic with this penetration
/// allowance (m): see PenetrationAllowanceDefaults.
constexpr double kDefaultPenetrationAllowance = 1e-3;

/// The paper's box (Sec. IV-A): m = 0.33 kg, μ = 1, g = 9.8 m/s², f(t) = 4 N sin(2π · 1 Hz · t) along x.
struct BoxStickSlipParameters {
  static constexpr double kMass = 0.33, kFriction = 1.0, kGravity = 9.8;
  static constexpr double kForceAmplitude = 4.0, kFrequency = 1.0;
  /// f(t) (N).
  static double Force(double t);
};

/// The paper's gripper (Sec. VI-A): grip G = 10 N, μ = 0.1, mug 0.1 kg; z(t) = −A sin(ωt) with A = 0.15 m and period
/// 0.5 s, driven by f(t) = m_gripper A ω² sin(ωt) with m_gripper = 1.088882 kg (Drake's example ignores the mug).
struct GripperMugParameters {
  static constexpr double kGripForce = 10.0, kFriction = 0.1, kMugMass = 0.1;
  static constexpr double kAmplitude = 0.15, kPeriod = 0.5, kGripperMass = 1.088882;
  static double Omega();
  /// The shaking force on translate_joint (N) at time t (s).
  static double ShakeForce(double t);
};

/// robotiq_grasp: the Menagerie 2F-85 closes on a 50 mm, 100 g box (ctrl ramped 0 → 255 over kCloseTime); from
/// kLoadTime the box's weight pulls it along −y, sideways to the closing direction, so only friction holds it.
/// Checks: the box slips less than kMaxSlip along −y from kLoadTime on, and stays within kMaxOffset of the
/// centre between the pads (x).
struct RobotiqGraspParameters {
  static constexpr double kBoxMass = 0.1, kGravity = 9.81;
  static constexpr double kCloseTime = 0.4, kLoadTime = 0.6, kDuration = 2.0;
  static constexpr double kMaxSlip = 5e-3, kMaxOffset = 5e-3;
};

/// allegro_mug (paper Sec. VI-B, Drake's open-loop twisting script with the Menagerie hand): no gravity, h = 0.7 ms,
/// penetration allowance 1 mm and v_s = 1e-3 m/s (the paper era's defaults). The hand opens, closes its thumb at
/// kThumbTime, takes the grasp pose at kGraspTime (joint targets in kGraspPose, model order ff, mf, rf, th), records
/// the joint positions q_c it reached at kTwistStart, then alternates every kTwistTime between q_c + 0.1 (1, 1, 0.5) on
/// the middle finger's joints 1–3 with the index finger's joints 1–3 at + 0.6 (1, 0.3, 0.5), and the same with the
/// ring finger instead of the index, the thumb held at its grasp pose. Checks: the mug stays within kMaxDrift of
/// where it was at kTwistStart, and each twist turns it by at least kMinTwist (the angle between its orientations at
/// the ends of consecutive twists).
struct AllegroMugParameters {
  static constexpr double kThumbTime = 0.3, kGraspTime = 0.6, kTwistStart = 1.2, kTwistTime = 1.0, kDuration = 15.0;
  static constexpr double kGraspPose[16] = {0.08, 0.9, 0.75, 1.5, 0.1,   0.9,  0.75, 1.5,
                                            0.12, 0.9, 0.75, 1.5, 1.396, 0.85, 0.0,  1.3};
  static constexpr double kMaxDrift = 0.02, kMinTwist = 0.05;
};

/// iiwa_pick_shake_place (paper Sec. VI-C): the Menagerie KUKA iiwa 14 with the Menagerie Robotiq 2F-85 on its
/// flange picks a 0.5 kg bottle (a cylinder of radius 3 cm, 20 cm tall) from a table, shakes it, and places it
/// kPlaceOffset further along y. The gripper's pinch point follows Cartesian keyframes (smoothstep between them,
/// the gripper pointing down): above the bottle, down to its centre, grasp, lift by kLift, shake along y
/// (kShakeAmplitude at kShakeFrequency for kShakeTime), over the target, down, release, up. Joint references come
/// from differential (damped least-squares) IK on the pinch point; the arm's own position servos track them with
/// an inverse-dynamics feed-forward M q̈ + c(q, q̇) (MuJoCo's mj_rne) in qfrc_applied. The grip is regulated to
/// kGripForce (N, the mean of the two pads' summed normal contact forces, fed back from the simulated contacts).
/// Checks: the bottle is lifted at least kMinLift off the table; it slips less than kMaxSlip in the gripper
/// through the shake; it ends within kMaxPlaceError of its target and upright within kMaxTilt.
struct IiwaPickShakePlaceParameters {
  static constexpr double kBottleMass = 0.5, kBottleRadius = 0.03, kBottleHalfHeight = 0.1;
  static constexpr double kBottleX = 0.55, kBottleY = -0.1, kTableTop = 0.3, kPlaceOffset = 0.2;
  static constexpr double kLift = 0.2, kShakeAmplitude = 0.04, kShakeFrequency = 2.0, kShakeTime = 2.0;
  static constexpr double kGripForce = 20.0, kDuration = 10.0;
  static constexpr double kMinLift = 0.1, kMaxSlip = 0.01, kMaxPlaceError = 0.01, kMaxTilt = 0.1;
};

/// MJCF text of clutter_bin: `num_bodies` free boxes, spheres, capsules and cylinders (2–6 cm, 50–300 g, drawn from
/// `seed`) above a bin, dropped under gravity; timestep 2 ms; per-geom k = 2e4 N/m, d = 10 s/m. `thrown`: declares a
/// keyframe "thrown" at the initial poses, whose velocities LoadScene sets from SceneOptions::clutter_drop_speed.
/// Throws std::invalid_argument when num_bodies is not in [1, kMaxClutterBodies], before generating anything.
std::string ClutterBinXml(int num_bodies, std::uint32_t seed, bool thrown = false);

/// Steps `simulator` until every generalized velocity is below `speed` (m/s or rad/s) or `max_time` (s) of
/// simulated time passed; returns true when it came to rest. Used to start benchmarks from a resting pile.
bool Settle(Simulator* simulator, double speed, double max_time);

/// A settled pile: clutter_bin's bodies (options.clutter_bodies, options.clutter_seed) dropped and simulated for
/// `settle_time` (s) by MuJoCo's CG solver. Returns ClutterBinXml's text with every body's pos and quat at its final
/// pose, so that the file's own configuration is the pile (velocities zero), named settled_pile_N<N>;
/// `mean_speed` and `max_speed` (optional) receive the bodies' linear speeds (m/s) at the end (spheres on the open
/// floor may still roll: condim 3 has no rolling friction). Throws std::invalid_argument for a drop speed (a pile is
/// dropped from rest) or a settle_time that is not finite and > 0, and what ClutterBinXml throws.
std::string SettledPileXml(const SceneOptions& options, double settle_time, double* mean_speed = nullptr,
                           double* max_speed = nullptr);

}  // namespace tamsi::scenes
