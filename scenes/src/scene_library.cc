#include <tamsi/scenes/scene_library.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>

#include "embedded_models.h"
#include "robot_scenes.h"

namespace tamsi::scenes {
namespace {

constexpr double kPi = 3.14159265358979323846;

constexpr char kBoxStickSlip[] = "box_stick_slip";
constexpr char kGripperMugShake[] = "gripper_mug_shake";
constexpr char kClutterBin[] = "clutter_bin";

Scene BoxStickSlip() {
  Scene scene;
  scene.name = kBoxStickSlip;
  scene.model = LoadModelFromString(internal::kBoxStickSlipMjcf, kBoxStickSlip);
  const int push = internal::Id(*scene.model, mjOBJ_ACTUATOR, "push");
  scene.controller = [push](const mjModel&, mjData* data) {
    data->ctrl[push] = BoxStickSlipParameters::Force(data->time);
  };
  scene.stiction_tolerance = 1e-4;
  scene.duration = 2.0;
  return scene;
}

Scene GripperMugShake() {
  Scene scene;
  scene.name = kGripperMugShake;
  scene.model = LoadModelFromString(internal::kGripperMugShakeMjcf, kGripperMugShake);
  const int shake = internal::Id(*scene.model, mjOBJ_ACTUATOR, "shake");
  const int grip = internal::Id(*scene.model, mjOBJ_ACTUATOR, "grip");
  scene.controller = [shake, grip](const mjModel&, mjData* data) {
    data->ctrl[shake] = GripperMugParameters::ShakeForce(data->time);
    data->ctrl[grip] = GripperMugParameters::kGripForce;
  };
  scene.stiction_tolerance = 1e-4;
  scene.duration = 5.0;
  scene.camera = "track:gripper";  // the shake carries the gripper out of a fixed camera's view
  return scene;
}

Scene ClutterBin(const SceneOptions& options) {
  Scene scene;
  scene.name = kClutterBin;
  const double speed = options.clutter_drop_speed;
  if (!(speed >= 0.0) || !std::isfinite(speed))
    throw std::invalid_argument("clutter_bin: the drop speed must be finite and ≥ 0 m/s, got " + std::to_string(speed));
  scene.model =
      LoadModelFromString(ClutterBinXml(options.clutter_bodies, options.clutter_seed, speed > 0.0), kClutterBin);
  // The "thrown" keyframe's velocities, set after compiling (MuJoCo's parser caps an attribute's length): each free
  // joint's velocity is (linear in the world frame, angular in the body frame).
  for (int b = 0; speed > 0.0 && b < options.clutter_bodies; ++b) scene.model->key_qvel[6 * b + 2] = -speed;
  scene.stiction_tolerance = 1e-4;
  scene.duration = 1.0;
  return scene;
}

std::string Fixed(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.5f", value);
  return buffer;
}

}  // namespace

double BoxStickSlipParameters::Force(double t) { return kForceAmplitude * std::sin(2.0 * kPi * kFrequency * t); }

double GripperMugParameters::Omega() { return 2.0 * kPi / kPeriod; }

double GripperMugParameters::ShakeForce(double t) {
  const double omega = Omega();
  return kGripperMass * kAmplitude * omega * omega * std::sin(omega * t);
}

const std::vector<SceneDescription>& BuiltinScenes() {
  static const std::vector<SceneDescription> scenes = {
      {kGripperMugShake,
       "parallel jaw gripper shaking a 100 g mug, mu = 0.1, 10 N grip, 15 cm at 2 Hz, h = 3 ms (paper Sec. VI-A)"},
      {kBoxStickSlip,
       "0.33 kg box on a plane, mu = 1, pushed by 4 N sin(2 pi t): periodic stick-slip (paper Sec. IV-A)"},
      {kClutterBin, "N free boxes, spheres, capsules, cylinders (2-6 cm, 50-300 g) dropped into a bin (--bodies N)"},
      {internal::kAllegroMug,
       "Menagerie Allegro hand holding a 94 g mug and twisting it back and forth, no gravity, h = 0.7 ms (paper Sec. "
       "VI-B)"},
      {internal::kIiwaPickShakePlace,
       "Menagerie KUKA iiwa 14 with a Robotiq 2F-85 picks a 0.5 kg bottle, shakes it and places it (paper Sec. VI-C)"},
      {internal::kRobotiqGrasp,
       "Menagerie Robotiq 2F-85 closing on a 50 mm, 100 g box whose weight then pulls sideways: friction holds it"},
  };
  return scenes;
}

const char* DefaultSceneName() { return kGripperMugShake; }

namespace {

Scene BuiltinScene(const std::string& name, const SceneOptions& options) {
  if (name == kGripperMugShake) return GripperMugShake();
  if (name == kBoxStickSlip) return BoxStickSlip();
  if (name == kClutterBin) return ClutterBin(options);
  if (name == internal::kRobotiqGrasp) return internal::RobotiqGrasp();
  if (name == internal::kAllegroMug) return internal::AllegroMug();
  if (name == internal::kIiwaPickShakePlace) return internal::IiwaPickShakePlace();
  return Scene();
}

}  // namespace

Scene LoadScene(const std::string& name_or_path, const SceneOptions& options) {
  Scene builtin = BuiltinScene(name_or_path, options);
  if (builtin.model) {
    builtin.built_in = true;
    return builtin;
  }
  const std::filesystem::path path(name_or_path);
  std::error_code ec;
  const bool looks_like_file = path.has_extension() || path.has_parent_path() || std::filesystem::exists(path, ec);
  if (!looks_like_file) {
    std::string names;
    for (const auto& scene : BuiltinScenes()) names += (names.empty() ? "" : ", ") + scene.name;
    throw UnknownSceneError("unknown scene '" + name_or_path + "' (built-in scenes: " + names +
                            "; or give the path of an MJCF or .mjb file)");
  }
  return SceneFromModel(LoadModelFromFile(name_or_path), path.stem().string());
}

Scene SceneFromModel(ModelPtr model, std::string name) {
  if (!model) throw std::invalid_argument("SceneFromModel: model is null");
  Scene scene;
  scene.name = std::move(name);
  scene.model = std::move(model);
  scene.contact = PenetrationAllowanceDefaults(*scene.model, kDefaultPenetrationAllowance);
  scene.stiction_tolerance = 1e-4;
  scene.duration = 1.0;
  return scene;
}

namespace {

// ClutterBinXml's generator: the bodies' shapes and drop poses drawn from `seed`; with `qpos` (7 per body, a free
// joint's position and quaternion), the bodies stand at those poses instead, in full precision (SettledPileXml).
std::string BinXml(int num_bodies, std::uint32_t seed, bool thrown, const char* model_name, const double* qpos) {
  if (num_bodies < 1 || num_bodies > kMaxClutterBodies) {
    throw std::invalid_argument("clutter_bin: the number of bodies must be in [1, " +
                                std::to_string(kMaxClutterBodies) + "], got " + std::to_string(num_bodies));
  }
  // Bodies start on a grid of cells (7 cm, larger than the 6 cm maximum extent), about ten layers high.
  constexpr double kCell = 0.07;
  const int per_side = std::max(6, static_cast<int>(std::ceil(std::sqrt(num_bodies / 10.0))));
  const int per_layer = per_side * per_side;
  const int layers = (num_bodies + per_layer - 1) / per_layer;
  const double half_width = 0.5 * per_side * kCell;
  // The lowest layer starts above the ground by the largest half-diagonal (a 6 cm cube: 5.2 cm).
  constexpr double kBottom = 0.06;
  const double top = kBottom + layers * kCell;
  const double wall_half_height = 0.5 * (top + 0.05);

  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  auto uniform = [&](double lo, double hi) { return lo + (hi - lo) * unit(rng); };

  std::ostringstream xml;
  xml << "<mujoco model=\"" << model_name << "_N" << num_bodies << "\">\n"
      << "  <option timestep=\"0.002\"/>\n"
      << "  <size nuser_geom=\"2\"/>\n"
      << "  <default>\n    <geom friction=\"0.5 0.005 0.0001\" user=\"20000 10\"/>\n  </default>\n"
      << "  <worldbody>\n"
      << "    <geom name=\"ground\" type=\"plane\" size=\"" << Fixed(half_width + 1.0) << " " << Fixed(half_width + 1.0)
      << " 0.1\"/>\n";
  const double wall = half_width + 0.01;
  const double wall_length = half_width + 0.02;
  struct Wall {
    const char* name;
    double x, y, half_x, half_y;
  };
  const Wall walls[] = {{"wall_xp", wall, 0.0, 0.01, wall_length},
                        {"wall_xn", -wall, 0.0, 0.01, wall_length},
                        {"wall_yp", 0.0, wall, wall_length, 0.01},
                        {"wall_yn", 0.0, -wall, wall_length, 0.01}};
  for (const Wall& w : walls) {
    xml << "    <geom name=\"" << w.name << "\" type=\"box\" pos=\"" << Fixed(w.x) << " " << Fixed(w.y) << " "
        << Fixed(wall_half_height) << "\" size=\"" << Fixed(w.half_x) << " " << Fixed(w.half_y) << " "
        << Fixed(wall_half_height) << "\" rgba=\".4 .4 .6 .3\"/>\n";
  }
  static const char* kTypes[4] = {"box", "sphere", "capsule", "cylinder"};
  for (int i = 0; i < num_bodies; ++i) {
    const int layer = i / per_layer, cell = i % per_layer;
    const double x = -half_width + kCell * (cell % per_side + 0.5) + uniform(-0.003, 0.003);
    const double y = -half_width + kCell * (cell / per_side + 0.5) + uniform(-0.003, 0.003);
    const double z = kBottom + layer * kCell;
    double q[4] = {normal(rng), normal(rng), normal(rng), normal(rng)};
    const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    const int type = static_cast<int>(unit(rng) * 4.0) % 4;
    // Sizes are half extents; every shape's largest extent lies in [2, 6] cm.
    std::string size;
    switch (type) {
      case 0:
        size = Fixed(uniform(0.01, 0.03)) + " " + Fixed(uniform(0.01, 0.03)) + " " + Fixed(uniform(0.01, 0.03));
        break;
      case 1:
        size = Fixed(uniform(0.01, 0.03));
        break;
      case 2: {
        const double radius = uniform(0.01, 0.02);
        size = Fixed(radius) + " " + Fixed(uniform(0.005, 0.03 - radius));
        break;
      }
      default:
        size = Fixed(uniform(0.01, 0.03)) + " " + Fixed(uniform(0.01, 0.03));
        break;
    }
    std::ostringstream pose;
    if (qpos) {  // full precision: a pile's resting penetrations are ~1e-5 m
      pose.precision(12);
      const double* p = qpos + 7 * i;
      pose << p[0] << " " << p[1] << " " << p[2] << "\" quat=\"" << p[3] << " " << p[4] << " " << p[5] << " " << p[6];
    } else {
      pose << Fixed(x) << " " << Fixed(y) << " " << Fixed(z) << "\" quat=\"" << Fixed(q[0] / norm) << " "
           << Fixed(q[1] / norm) << " " << Fixed(q[2] / norm) << " " << Fixed(q[3] / norm);
    }
    xml << "    <body name=\"o" << i << "\" pos=\"" << pose.str() << "\">\n      <freejoint/>\n      <geom type=\""
        << kTypes[type] << "\" size=\"" << size << "\" mass=\"" << Fixed(uniform(0.05, 0.3)) << "\"/>\n    </body>\n";
  }
  xml << "  </worldbody>\n";
  if (thrown) xml << "  <keyframe>\n    <key name=\"thrown\"/>\n  </keyframe>\n";
  xml << "</mujoco>\n";
  return xml.str();
}

}  // namespace

std::string ClutterBinXml(int num_bodies, std::uint32_t seed, bool thrown) {
  return BinXml(num_bodies, seed, thrown, "clutter_bin", nullptr);
}

std::string ModelsDirectory() {
  std::error_code ec;
  if (std::filesystem::is_directory(TAMSI_INSTALL_MODELS_DIR, ec)) return TAMSI_INSTALL_MODELS_DIR;
  return TAMSI_SOURCE_MODELS_DIR;
}

std::filesystem::path ThirdPartyModel(const std::string& relative, const std::string& needed_by) {
  constexpr char kSetting[] = "TAMSI_MODELS_DIR";
  const std::string help = ": set it to a folder holding menagerie_current/ and ycb_sim/ (README, \"Models\")";
  const char* dir = std::getenv(kSetting);
  if (dir == nullptr || *dir == '\0')
    throw ThirdPartyModelError(needed_by + " needs " + relative + " under " + kSetting + " (unset)" + help);
  const std::filesystem::path path = std::filesystem::path(dir) / relative;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw ThirdPartyModelError(needed_by + " needs " + relative + " under " + kSetting + " (" + dir +
                               "), which has no " + path.string() + help);
  }
  return path;
}

bool Settle(Simulator* simulator, double speed, double max_time) {
  const double end = simulator->time() + max_time;
  const int nv = simulator->model().nv;
  while (simulator->time() < end) {
    simulator->Step();
    const double* qvel = simulator->data().qvel;
    if (std::all_of(qvel, qvel + nv, [speed](double v) { return std::abs(v) < speed; })) return true;
  }
  return false;
}

std::string SettledPileXml(const SceneOptions& options, double settle_time, double* mean_speed, double* max_speed) {
  if (options.clutter_drop_speed != 0.0) throw std::invalid_argument("a settled pile is dropped from rest");
  if (!(std::isfinite(settle_time) && settle_time > 0.0))
    throw std::invalid_argument("settle time: must be finite and > 0, got " + std::to_string(settle_time));
  const int n = options.clutter_bodies;
  const std::string xml = ClutterBinXml(n, options.clutter_seed);
  SimulatorOptions engine;
  engine.engine = Engine::kMujoco;
  engine.mujoco_solver = mjSOL_CG;
  Simulator simulator(LoadModelFromString(xml, kClutterBin), engine);
  while (simulator.time() < settle_time) simulator.Step();
  double sum = 0.0, largest = 0.0;
  for (int i = 0; i < n; ++i) {
    const double speed = Eigen::Map<const Eigen::Vector3d>(simulator.data().qvel + 6 * i).norm();
    sum += speed;
    largest = std::max(largest, speed);
  }
  if (mean_speed) *mean_speed = sum / n;
  if (max_speed) *max_speed = largest;
  // Body i (id i + 1) has the free joint i: the same shapes, at their final poses.
  return BinXml(n, options.clutter_seed, /*thrown=*/false, "settled_pile", simulator.data().qpos);
}

}  // namespace tamsi::scenes
