#include "tamsi/quasistatic_examples/examples.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <ostream>
#include <stdexcept>

namespace tamsi::quasistatic::scenes {
namespace {

constexpr double kPi = 3.14159265358979323846;

using Kind = BodyId::Kind;

ModelParameters UnitParameters(int nm, double epsilon) {
  ModelParameters p;
  p.limit_surface = Eigen::Matrix3d::Identity();
  p.gain = Eigen::MatrixXd::Identity(nm, nm);
  p.epsilon = epsilon;
  return p;
}

// §7.1: a unit disk and two point fingers; μ = 1; h = 0.025, 400 steps.
Example DiskPush(const ExampleInfo& info, double epsilon, const Eigen::Vector3d& object0,
                 const Eigen::Vector4d& fingers0, Command command) {
  auto kinematics = std::make_shared<FreeFingers>(std::vector<bool>{false, false});
  System system(DiskShape{1.0}, kinematics, {PointShape{}, PointShape{}}, {},
                {{BodyId::Object(), BodyId::Manipulator(0), 1.0}, {BodyId::Object(), BodyId::Manipulator(1), 1.0}});
  Example ex{info,
             std::move(system),
             UnitParameters(4, epsilon),
             std::move(command),
             object0,
             fingers0,
             {"finger1_x", "finger1_y", "finger2_x", "finger2_y"},
             {}};
  ex.options.time_step = 0.025;
  ex.options.num_steps = 400;
  return ex;
}

Command ConstantCommand(const Eigen::VectorXd& u) {
  return [u](double, const Eigen::Vector3d&, const Eigen::VectorXd&) { return u; };
}

Example EvenPush(const ExampleInfo& info, double epsilon) {
  return DiskPush(info, epsilon, {0, 3, 0}, {0.5, 5, -0.5, 5}, ConstantCommand(Eigen::Vector4d(0, -1, 0, -1)));
}

Example LopsidedPush(const ExampleInfo& info, double epsilon) {
  return DiskPush(info, epsilon, {0, 5, 0}, {0.5, 8, -0.5, 7}, ConstantCommand(Eigen::Vector4d(0, -2, 0, -1)));
}

// The finger pair turns rigidly about (0, 0.866) at ω = π/10: u = (r_b ω sin ωt, −r_b ω cos ωt, r_s ω sin ωt,
// −r_s ω cos ωt) with r_b = 5.5, r_s = 4.5.
Example SemicirclePush(const ExampleInfo& info, double epsilon) {
  const double y0 = std::sqrt(3.0) / 2.0;
  Command command = [](double t, const Eigen::Vector3d&, const Eigen::VectorXd&) {
    const double w = kPi / 10.0, rb = 5.5, rs = 4.5;
    Eigen::VectorXd u(4);
    u << rb * w * std::sin(w * t), -rb * w * std::cos(w * t), rs * w * std::sin(w * t), -rs * w * std::cos(w * t);
    return u;
  };
  return DiskPush(info, epsilon, {-5, 0, 0}, {-5.5, y0, -4.5, y0}, std::move(command));
}

// §7.2: the disk pushed diagonally into the floor y = 0; contacts finger–disk ×2, disk–floor, finger–floor ×2.
Example WallPush(const ExampleInfo& info, double epsilon) {
  auto kinematics = std::make_shared<FreeFingers>(std::vector<bool>{false, false});
  System system(DiskShape{1.0}, kinematics, {PointShape{}, PointShape{}},
                {StaticBody{HalfPlaneShape{Eigen::Vector2d::UnitY(), 0.0}, Eigen::Vector3d::Zero()}},
                {{BodyId::Object(), BodyId::Manipulator(0), 1.0},
                 {BodyId::Object(), BodyId::Manipulator(1), 1.0},
                 {BodyId::Object(), BodyId::Static(0), 1.0},
                 {BodyId::Manipulator(0), BodyId::Static(0), 0.5},
                 {BodyId::Manipulator(1), BodyId::Static(0), 0.5}});
  Example ex{info,
             std::move(system),
             UnitParameters(4, epsilon),
             ConstantCommand(Eigen::Vector4d(1, -1, 1, -1)),
             {-2, 2, 0},
             Eigen::Vector4d(-3.75, 4.25, -4.25, 3.75),
             {"finger1_x", "finger1_y", "finger2_x", "finger2_y"},
             {}};
  ex.options.time_step = 0.025;
  ex.options.num_steps = 400;
  return ex;
}

// §7.3: the phase schedule of the peg-in-hole command; u = 5 G (q_m,des − q_m).
Eigen::VectorXd PegCommand(double t, const Eigen::Vector3d& peg, const Eigen::VectorXd& q_m) {
  struct Phase {
    double t_end;
    bool track_peg;
    Eigen::Vector3d world;
    Eigen::Vector2d rel1, rel2;
  };
  const double top = 3.0 + std::sqrt(2.0);
  static const Phase phases[] = {{1.0, true, {0, 0, 0}, {-1.5, 5}, {1.5, 5}},
                                 {1.5, true, {0, 0, 0}, {-1.5, 0}, {1.5, 0}},
                                 {1.75, true, {0, 0, 0}, {0, 0}, {0, 0}},
                                 {2.5, false, {-2, 7, 0}, {0, 0}, {0, 0}},
                                 {3.5, false, {-2, 2.5, 0}, {0, 0}, {0, 0}},
                                 {4.5, false, {0, 3.5, 0}, {0, 0}, {0, 0}},
                                 {7.5, false, {0, 3, 0}, {0, -0.5}, {0, -0.5}},
                                 {8.0, true, {0, 0, 0}, {-1.5, 0}, {1.5, 0}},
                                 {8.5, true, {0, 0, 0}, {-1.5, 0}, {1.5, 5}},
                                 {9.0, true, {0, 0, 0}, {-1.5, 0}, {0.5, 5}},
                                 {INFINITY, false, {0, -3, 0}, {-1.5, 0}, {0.5, top}}};
  int k = 0;
  while (t > phases[k].t_end) ++k;
  const Phase& phase = phases[k];
  const Eigen::Vector3d ref = phase.track_peg ? peg : phase.world;
  const Eigen::Matrix2d R = Rotation(ref(2));
  Eigen::VectorXd desired(6);
  desired << ref.head<2>() + R * phase.rel1, ref(2) + 3 * kPi / 4, ref.head<2>() + R * phase.rel2, ref(2) - kPi / 4;
  Eigen::VectorXd gain = Eigen::VectorXd::Ones(6);
  if (k == 4) gain << 1, 1, 3, 1, 1, 3;
  Eigen::VectorXd u = 5.0 * gain.cwiseProduct(desired - q_m);
  if (k == 10) u.head<3>().setZero();
  return u;
}

Example PegInHole(const ExampleInfo& info, double epsilon) {
  auto kinematics = std::make_shared<FreeFingers>(std::vector<bool>{true, true});
  const PolygonShape finger{{{1, -1}, {1, 1}, {-1, 1}}};
  // The slot: blocks x ∈ [−19.01, −1.01] and [1.01, 19.01], y ∈ [−10, 0], both counter-clockwise (the repository
  // mirrored S2 into clockwise order, which hid every S2 penetration; spec §7.3).
  std::vector<StaticBody> blocks = {{Rectangle(-19.01, -1.01, -10, 0), Eigen::Vector3d::Zero()},
                                    {Rectangle(1.01, 19.01, -10, 0), Eigen::Vector3d::Zero()}};
  const BodyId peg = BodyId::Object(), f1 = BodyId::Manipulator(0), f2 = BodyId::Manipulator(1);
  const BodyId s1 = BodyId::Static(0), s2 = BodyId::Static(1);
  System system(Rectangle(-1, 1, -3, 3), kinematics, {finger, finger}, std::move(blocks),
                {{peg, f1, 1.0},
                 {peg, f2, 1.0},
                 {peg, s1, 1.0},
                 {peg, s2, 1.0},
                 {f1, f2, 1.0},
                 {f1, s1, 1.0},
                 {f1, s2, 1.0},
                 {f2, s1, 1.0},
                 {f2, s2, 1.0}});
  const Eigen::Vector3d object0(-2, 7, kPi / 3);
  const Eigen::Matrix2d R = Rotation(object0(2));
  Eigen::VectorXd fingers0(6);
  fingers0 << object0.head<2>() + R * Eigen::Vector2d(-1.5, 5), object0(2) + 3 * kPi / 4,
      object0.head<2>() + R * Eigen::Vector2d(1.5, 5), object0(2) - kPi / 4;
  Example ex{info,
             std::move(system),
             UnitParameters(6, epsilon),
             PegCommand,
             object0,
             fingers0,
             {"finger1_x", "finger1_y", "finger1_theta", "finger2_x", "finger2_y", "finger2_theta"},
             {}};
  ex.options.time_step = 0.05;
  ex.options.num_steps = 240;
  return ex;
}

// Our own example for the paper's §6.3 (parameters are not recoverable; spec §7.4): a 2 × 2 square, limit surface
// A_b = diag(1, 1, 0.5), pinched at its four face centres by the point tips of four 2-link arms (links 2, 2) based
// at Rot(kπ/2)(3.5, −1.5). Joint gains K = diag(1, 1, 2, 2, 4, 4, 8, 8): arm k is 2^k times stiffer than arm 0.
// Command (resolved rate): u = J_tip⁻¹ · 4 (p_des − p_tip) per arm. For t ≤ 1 the tips close to 0.2 inside the
// faces (a squeeze: only finite feedback can hold it); for 1 < t ≤ 5 the grasp frame translates by (0.5, 0.25)
// and turns by π/12 at a uniform rate; then it holds. μ = 0.5, h = 0.02, 300 steps.
class FourArmPinchCommand {
 public:
  explicit FourArmPinchCommand(std::shared_ptr<const TwoLinkArms> arms) : arms_(std::move(arms)) {}

  Eigen::VectorXd operator()(double t, const Eigen::Vector3d&, const Eigen::VectorXd& q_m) const {
    const double s = std::clamp((t - 1.0) / 4.0, 0.0, 1.0);
    const Eigen::Vector2d shift = s * Eigen::Vector2d(0.5, 0.25);
    const double turn = s * kPi / 12;
    const double reach = t <= 1.0 ? 1.0 - 0.2 * t : 0.8;
    Eigen::VectorXd u(8);
    for (int k = 0; k < 4; ++k) {
      Eigen::Vector3d pose;
      Eigen::MatrixXd J;
      arms_->BodyPose(q_m, k, &pose, &J);
      const Eigen::Vector2d desired = shift + Rotation(turn + k * kPi / 2) * Eigen::Vector2d(reach, 0.0);
      const Eigen::Matrix2d Jtip = J.block<2, 2>(0, 2 * k);
      u.segment<2>(2 * k) = Jtip.partialPivLu().solve(4.0 * (desired - pose.head<2>()));
    }
    return u;
  }

 private:
  std::shared_ptr<const TwoLinkArms> arms_;
};

Example FourArmPinch(const ExampleInfo& info, double epsilon) {
  std::vector<TwoLinkArms::Arm> arm_list;
  for (int k = 0; k < 4; ++k) arm_list.push_back({Rotation(k * kPi / 2) * Eigen::Vector2d(3.5, -1.5), 2.0, 2.0});
  auto arms = std::make_shared<const TwoLinkArms>(arm_list);
  Eigen::VectorXd q_m0(8);
  for (int k = 0; k < 4; ++k) {
    q_m0.segment<2>(2 * k) = arms->InverseKinematics(k, Rotation(k * kPi / 2) * Eigen::Vector2d(1.0, 0.0), 1.0);
  }
  std::vector<ContactPair> pairs;
  for (int k = 0; k < 4; ++k) pairs.push_back({BodyId::Object(), BodyId::Manipulator(k), 0.5});
  System system(Rectangle(-1, 1, -1, 1), arms, {PointShape{}, PointShape{}, PointShape{}, PointShape{}}, {},
                std::move(pairs));
  ModelParameters parameters;
  parameters.limit_surface = Eigen::Vector3d(1.0, 1.0, 0.5).asDiagonal();
  parameters.gain = Eigen::VectorXd((Eigen::VectorXd(8) << 1, 1, 2, 2, 4, 4, 8, 8).finished()).asDiagonal();
  parameters.epsilon = epsilon;
  std::vector<std::string> names;
  for (int k = 1; k <= 4; ++k) {
    names.push_back("arm" + std::to_string(k) + "_q1");
    names.push_back("arm" + std::to_string(k) + "_q2");
  }
  Example ex{info, std::move(system), parameters, FourArmPinchCommand(arms), Eigen::Vector3d::Zero(),
             q_m0, std::move(names),  {}};
  ex.options.time_step = 0.02;
  ex.options.num_steps = 300;
  return ex;
}

}  // namespace

const std::vector<ExampleInfo>& ListExamples() {
  static const std::vector<ExampleInfo> examples = {
      {"even_push", "unit disk pushed straight down by two point fingers side by side (Sec. 6.1)", 0.0},
      {"lopsided_push", "unit disk pushed by two point fingers at unequal speeds, so it turns (Sec. 6.1)", 0.0},
      {"semicircle_push", "two point fingers carry a disk around a half-turn (Sec. 6.1)", 0.0},
      {"wall_push", "disk pushed diagonally into the floor: jams at eps = 0, rolls for eps > 0 (spec 7.2)",
       std::ldexp(1.0, -4)},
      {"peg_in_hole", "two triangular fingers grasp a peg and insert it into a slot (Sec. 6.2, slot corrected)", 0.01},
      {"four_arm_pinch", "a square pinched by four 2-link arms with unequal gains (Sec. 6.3, our parameters)", 0.01},
  };
  return examples;
}

Example MakeExample(const std::string& name, double epsilon) {
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon)) throw std::invalid_argument("MakeExample: epsilon must be >= 0");
  const auto& list = ListExamples();
  for (const ExampleInfo& info : list) {
    if (info.name != name) continue;
    if (name == "even_push") return EvenPush(info, epsilon);
    if (name == "lopsided_push") return LopsidedPush(info, epsilon);
    if (name == "semicircle_push") return SemicirclePush(info, epsilon);
    if (name == "wall_push") return WallPush(info, epsilon);
    if (name == "peg_in_hole") return PegInHole(info, epsilon);
    return FourArmPinch(info, epsilon);
  }
  std::string known;
  for (const ExampleInfo& info : list) known += (known.empty() ? "" : ", ") + info.name;
  throw std::invalid_argument("unknown quasistatic example '" + name + "' (known: " + known + ")");
}

Example MakeExample(const std::string& name) {
  for (const ExampleInfo& info : ListExamples())
    if (info.name == name) return MakeExample(name, info.default_epsilon);
  return MakeExample(name, 0.0);  // an unknown name: its error lists the known ones
}

void WriteTrajectoryCsv(const Example& example, const Trajectory& trajectory, std::ostream& out) {
  out << "time,object_x,object_y,object_theta";
  for (const std::string& n : example.manipulator_names) out << ',' << n;
  out << ",min_gap,max_normal_impulse,num_contacts\n";
  const auto precision = out.precision(12);
  for (size_t i = 0; i < trajectory.time.size(); ++i) {
    out << trajectory.time[i];
    for (int j = 0; j < 3; ++j) out << ',' << trajectory.object[i](j);
    for (Eigen::Index j = 0; j < trajectory.manipulator[i].size(); ++j) out << ',' << trajectory.manipulator[i](j);
    out << ',' << trajectory.min_gap[i] << ',' << trajectory.max_normal_impulse[i] << ',' << trajectory.num_contacts[i]
        << '\n';
  }
  out.precision(precision);
}

}  // namespace tamsi::quasistatic::scenes
