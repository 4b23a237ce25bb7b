#include "tamsi/quasistatic/model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tamsi::quasistatic {
namespace {

bool IsSpd(const Eigen::MatrixXd& A) {
  if (A.rows() != A.cols() || !A.allFinite()) return false;
  const double scale = std::max(1.0, A.cwiseAbs().maxCoeff());
  if ((A - A.transpose()).cwiseAbs().maxCoeff() > 1e-12 * scale) return false;
  Eigen::LLT<Eigen::MatrixXd> llt(A);
  return llt.info() == Eigen::Success;
}

// Velocity Jacobian (2 × nv) of the material point p of a body whose pose Jacobian is P (3 × nv):
// ṗ = ċ + θ̇ (−(p − c)_y, (p − c)_x).
Eigen::MatrixXd PointJacobian(const Eigen::Vector3d& pose, const Eigen::MatrixXd& P, const Eigen::Vector2d& p) {
  const Eigen::Vector2d r = p - pose.head<2>();
  Eigen::MatrixXd J = P.topRows<2>();
  J.row(0) -= r.y() * P.row(2);
  J.row(1) += r.x() * P.row(2);
  return J;
}

}  // namespace

FreeFingers::FreeFingers(std::vector<bool> rotates) : rotates_(std::move(rotates)) {
  if (rotates_.empty()) throw std::invalid_argument("FreeFingers: needs at least one finger");
  for (bool r : rotates_) {
    offsets_.push_back(num_coordinates_);
    num_coordinates_ += r ? 3 : 2;
  }
}

void FreeFingers::BodyPose(const Eigen::VectorXd& q_m, int k, Eigen::Vector3d* pose, Eigen::MatrixXd* jacobian) const {
  const int o = offsets_.at(k);
  const int dofs = rotates_[k] ? 3 : 2;
  *pose << q_m(o), q_m(o + 1), rotates_[k] ? q_m(o + 2) : 0.0;
  jacobian->setZero(3, num_coordinates_);
  for (int i = 0; i < dofs; ++i) (*jacobian)(i, o + i) = 1.0;
}

TwoLinkArms::TwoLinkArms(std::vector<Arm> arms) : arms_(std::move(arms)) {
  if (arms_.empty()) throw std::invalid_argument("TwoLinkArms: needs at least one arm");
  for (const Arm& a : arms_) {
    if (!(a.link1 > 0.0) || !(a.link2 > 0.0)) throw std::invalid_argument("TwoLinkArms.Arm.link1/link2 must be > 0");
  }
}

void TwoLinkArms::BodyPose(const Eigen::VectorXd& q_m, int k, Eigen::Vector3d* pose, Eigen::MatrixXd* jacobian) const {
  const Arm& a = arms_.at(k);
  const double q1 = q_m(2 * k), q12 = q_m(2 * k) + q_m(2 * k + 1);
  const double c1 = std::cos(q1), s1 = std::sin(q1), c12 = std::cos(q12), s12 = std::sin(q12);
  *pose << a.base.x() + a.link1 * c1 + a.link2 * c12, a.base.y() + a.link1 * s1 + a.link2 * s12, q12;
  jacobian->setZero(3, num_coordinates());
  (*jacobian)(0, 2 * k) = -a.link1 * s1 - a.link2 * s12;
  (*jacobian)(0, 2 * k + 1) = -a.link2 * s12;
  (*jacobian)(1, 2 * k) = a.link1 * c1 + a.link2 * c12;
  (*jacobian)(1, 2 * k + 1) = a.link2 * c12;
  (*jacobian)(2, 2 * k) = 1.0;
  (*jacobian)(2, 2 * k + 1) = 1.0;
}

Eigen::Vector2d TwoLinkArms::InverseKinematics(int k, const Eigen::Vector2d& tip, double elbow_sign) const {
  const Arm& a = arms_.at(k);
  const Eigen::Vector2d d = tip - a.base;
  const double c2 = (d.squaredNorm() - a.link1 * a.link1 - a.link2 * a.link2) / (2 * a.link1 * a.link2);
  if (!(std::abs(c2) <= 1.0)) throw std::invalid_argument("TwoLinkArms::InverseKinematics: tip out of reach");
  const double q2 = (elbow_sign >= 0 ? 1.0 : -1.0) * std::acos(c2);
  const double q1 = std::atan2(d.y(), d.x()) - std::atan2(a.link2 * std::sin(q2), a.link1 + a.link2 * std::cos(q2));
  return {q1, q2};
}

ContactSet ContactSet::Subset(const std::vector<int>& indices) const {
  const int m = static_cast<int>(indices.size());
  ContactSet s;
  s.phi.resize(m);
  s.mu.resize(m);
  s.Jn.resize(m, Jn.cols());
  s.Jt.resize(2 * m, Jt.cols());
  for (int r = 0; r < m; ++r) {
    const int i = indices[r];
    s.phi(r) = phi(i);
    s.mu(r) = mu(i);
    s.Jn.row(r) = Jn.row(i);
    s.Jt.row(2 * r) = Jt.row(2 * i);
    s.Jt.row(2 * r + 1) = Jt.row(2 * i + 1);
    s.points.push_back(points[i]);
  }
  return s;
}

System::System(Shape object, std::shared_ptr<const ManipulatorKinematics> kinematics,
               std::vector<Shape> manipulator_shapes, std::vector<StaticBody> static_bodies,
               std::vector<ContactPair> pairs)
    : object_(std::move(object)),
      kinematics_(std::move(kinematics)),
      manipulator_shapes_(std::move(manipulator_shapes)),
      static_bodies_(std::move(static_bodies)),
      pairs_(std::move(pairs)) {
  if (!kinematics_) throw std::invalid_argument("System: kinematics must not be null");
  if (static_cast<int>(manipulator_shapes_.size()) != kinematics_->num_bodies()) {
    throw std::invalid_argument("System: manipulator_shapes must have one shape per kinematic body");
  }
  ValidateShape(object_);
  for (const Shape& s : manipulator_shapes_) ValidateShape(s);
  for (const StaticBody& b : static_bodies_) ValidateShape(b.shape);
  for (const ContactPair& p : pairs_) {
    for (const BodyId& id : {p.first, p.second}) {
      if (id.kind == BodyId::Kind::kManipulator &&
          (id.index < 0 || id.index >= static_cast<int>(manipulator_shapes_.size()))) {
        throw std::invalid_argument("System: pairs name a manipulator body that does not exist");
      }
      if (id.kind == BodyId::Kind::kStatic && (id.index < 0 || id.index >= static_cast<int>(static_bodies_.size()))) {
        throw std::invalid_argument("System: pairs name a static body that does not exist");
      }
    }
    if (p.first.kind == BodyId::Kind::kStatic && p.second.kind == BodyId::Kind::kStatic) {
      throw std::invalid_argument("System: pairs between two static bodies are not allowed");
    }
    if (!(p.friction >= 0.0)) throw std::invalid_argument("System: pairs friction must be >= 0");
    num_candidates_ += NumContactCandidates(ShapeOf(p.first), ShapeOf(p.second));
  }
}

const Shape& System::ShapeOf(BodyId id) const {
  switch (id.kind) {
    case BodyId::Kind::kObject:
      return object_;
    case BodyId::Kind::kManipulator:
      return manipulator_shapes_[id.index];
    case BodyId::Kind::kStatic:
      return static_bodies_[id.index].shape;
  }
  return object_;
}

void System::Pose(BodyId id, const Eigen::Vector3d& q_o, const Eigen::VectorXd& q_m, Eigen::Vector3d* pose,
                  Eigen::MatrixXd* jacobian) const {
  const int nm = num_manipulator_coordinates();
  jacobian->setZero(3, 3 + nm);
  switch (id.kind) {
    case BodyId::Kind::kObject:
      *pose = q_o;
      jacobian->leftCols<3>().setIdentity();
      return;
    case BodyId::Kind::kManipulator: {
      Eigen::MatrixXd Jm;
      kinematics_->BodyPose(q_m, id.index, pose, &Jm);
      jacobian->rightCols(nm) = Jm;
      return;
    }
    case BodyId::Kind::kStatic:
      *pose = static_bodies_[id.index].pose;
      return;
  }
}

ContactSet System::EvaluateContacts(const Eigen::Vector3d& q_o, const Eigen::VectorXd& q_m) const {
  if (q_m.size() != num_manipulator_coordinates()) {
    throw std::invalid_argument("System::EvaluateContacts: q_m must have num_manipulator_coordinates() entries");
  }
  const int N = num_candidates_, nv = num_velocities();
  ContactSet set;
  set.phi.resize(N);
  set.mu.resize(N);
  set.Jn.resize(N, nv);
  set.Jt.resize(2 * N, nv);
  set.points.reserve(N);
  Eigen::Vector3d pose1, pose2;
  Eigen::MatrixXd P1, P2;
  for (const ContactPair& pair : pairs_) {
    Pose(pair.first, q_o, q_m, &pose1, &P1);
    Pose(pair.second, q_o, q_m, &pose2, &P2);
    const size_t begin = set.points.size();
    AppendContacts(ShapeOf(pair.first), pose1, ShapeOf(pair.second), pose2, &set.points);
    for (size_t i = begin; i < set.points.size(); ++i) {
      const ContactPoint& c = set.points[i];
      // Body a owns the normal; the relative velocity is that of b's witness point minus a's.
      const Eigen::Vector3d& pose_a = c.swapped ? pose2 : pose1;
      const Eigen::Vector3d& pose_b = c.swapped ? pose1 : pose2;
      const Eigen::MatrixXd& Pa = c.swapped ? P2 : P1;
      const Eigen::MatrixXd& Pb = c.swapped ? P1 : P2;
      const Eigen::MatrixXd Jrel = PointJacobian(pose_b, Pb, c.point_b) - PointJacobian(pose_a, Pa, c.point_a);
      const Eigen::Vector2d t(-c.normal.y(), c.normal.x());
      set.phi(i) = c.phi;
      set.mu(i) = pair.friction;
      set.Jn.row(i) = c.normal.transpose() * Jrel;
      set.Jt.row(2 * i) = t.transpose() * Jrel;
      set.Jt.row(2 * i + 1) = -set.Jt.row(2 * i);
    }
  }
  return set;
}

Eigen::VectorXd System::EvaluateGaps(const Eigen::Vector3d& q_o, const Eigen::VectorXd& q_m) const {
  if (q_m.size() != num_manipulator_coordinates()) {
    throw std::invalid_argument("System::EvaluateGaps: q_m must have num_manipulator_coordinates() entries");
  }
  std::vector<ContactPoint> points;
  points.reserve(num_candidates_);
  Eigen::Vector3d pose1, pose2;
  Eigen::MatrixXd P1, P2;
  for (const ContactPair& pair : pairs_) {
    Pose(pair.first, q_o, q_m, &pose1, &P1);
    Pose(pair.second, q_o, q_m, &pose2, &P2);
    AppendContacts(ShapeOf(pair.first), pose1, ShapeOf(pair.second), pose2, &points);
  }
  Eigen::VectorXd phi(points.size());
  for (size_t i = 0; i < points.size(); ++i) phi(i) = points[i].phi;
  return phi;
}

void ModelParameters::Validate(int num_manipulator_coordinates) const {
  if (!IsSpd(limit_surface))
    throw std::invalid_argument("ModelParameters.limit_surface must be symmetric positive definite");
  if (gain.rows() != num_manipulator_coordinates || gain.cols() != num_manipulator_coordinates) {
    throw std::invalid_argument(
        "ModelParameters.gain must be n_m x n_m (n_m = " + std::to_string(num_manipulator_coordinates) + ")");
  }
  if (!IsSpd(gain)) throw std::invalid_argument("ModelParameters.gain must be symmetric positive definite");
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon)) {
    throw std::invalid_argument("ModelParameters.epsilon must be finite and >= 0");
  }
}

Eigen::Matrix3d ModelParameters::WorldLimitSurface(double theta) const {
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  R.topLeftCorner<2, 2>() = Rotation(theta);
  return R * limit_surface * R.transpose();
}

Eigen::MatrixXd ModelParameters::Compliance() const {
  if (epsilon == 0.0) return Eigen::MatrixXd::Zero(gain.rows(), gain.cols());
  return epsilon * gain.llt().solve(Eigen::MatrixXd::Identity(gain.rows(), gain.cols()));
}

namespace {

ContactLcp BuildLcpMatrix(const ContactSet& c, const Eigen::Matrix3d& A, const Eigen::MatrixXd& B) {
  const int m = c.size();
  const int nm = static_cast<int>(B.rows());
  Eigen::MatrixXd J(3 * m, 3 + nm);
  J << c.Jn, c.Jt;
  const Eigen::MatrixXd Jo = J.leftCols<3>();
  const Eigen::MatrixXd Jm = J.rightCols(nm);
  const Eigen::MatrixXd W = Jo * A * Jo.transpose() + Jm * B * Jm.transpose();
  ContactLcp lcp;
  lcp.M.setZero(4 * m, 4 * m);
  lcp.M.topLeftCorner(3 * m, 3 * m) = W;
  for (int i = 0; i < m; ++i) {
    lcp.M(m + 2 * i, 3 * m + i) = 1.0;  // E
    lcp.M(m + 2 * i + 1, 3 * m + i) = 1.0;
    lcp.M(3 * m + i, i) = c.mu(i);       // μ
    lcp.M(3 * m + i, m + 2 * i) = -1.0;  // −Eᵀ
    lcp.M(3 * m + i, m + 2 * i + 1) = -1.0;
  }
  lcp.q.setZero(4 * m);
  return lcp;
}

void CheckSizes(const ContactSet& c, const Eigen::Matrix3d& A, const Eigen::MatrixXd& B, const Eigen::VectorXd& u) {
  if (B.rows() != B.cols() || B.rows() != u.size() || c.Jn.cols() != 3 + u.size()) {
    throw std::invalid_argument("contact LCP: B must be n_m x n_m and u must have n_m entries, n_m = nv - 3");
  }
  if (!A.allFinite() || !B.allFinite() || !u.allFinite()) {
    throw std::invalid_argument("contact LCP: A, B and u must be finite");
  }
}

}  // namespace

ContactLcp BuildVelocityLcp(const ContactSet& contacts, const Eigen::Matrix3d& A, const Eigen::MatrixXd& B,
                            const Eigen::VectorXd& u) {
  CheckSizes(contacts, A, B, u);
  ContactLcp lcp = BuildLcpMatrix(contacts, A, B);
  const int m = contacts.size(), nm = static_cast<int>(u.size());
  lcp.q.head(m) = contacts.Jn.rightCols(nm) * u;
  lcp.q.segment(m, 2 * m) = contacts.Jt.rightCols(nm) * u;
  return lcp;
}

ContactLcp BuildTimeSteppingLcp(const ContactSet& contacts, const Eigen::Matrix3d& A, const Eigen::MatrixXd& B,
                                const Eigen::VectorXd& u, double h) {
  if (!(h > 0.0)) throw std::invalid_argument("BuildTimeSteppingLcp: h must be positive");
  CheckSizes(contacts, A, B, u);
  ContactLcp lcp = BuildLcpMatrix(contacts, A, B);
  const int m = contacts.size(), nm = static_cast<int>(u.size());
  lcp.q.head(m) = contacts.phi + h * (contacts.Jn.rightCols(nm) * u);
  lcp.q.segment(m, 2 * m) = h * (contacts.Jt.rightCols(nm) * u);
  return lcp;
}

VelocitySolution SolveVelocityLcp(const System& system, const ModelParameters& parameters, const Eigen::Vector3d& q_o,
                                  const Eigen::VectorXd& q_m, const Eigen::VectorXd& u, double touching_gap,
                                  const LemkeOptions& lemke) {
  const int nm = system.num_manipulator_coordinates();
  parameters.Validate(nm);
  if (u.size() != nm) throw std::invalid_argument("SolveVelocityLcp: u must have n_m entries");
  const ContactSet all = system.EvaluateContacts(q_o, q_m);
  std::vector<int> touching;
  for (int i = 0; i < all.size(); ++i) {
    if (std::abs(all.phi(i)) <= touching_gap) touching.push_back(i);
  }
  const ContactSet c = all.Subset(touching);
  const int m = c.size();
  const Eigen::Matrix3d A = parameters.WorldLimitSurface(q_o(2));
  const Eigen::MatrixXd B = parameters.Compliance();
  const ContactLcp lcp = BuildVelocityLcp(c, A, B, u);
  VelocitySolution s;
  s.lcp = SolveLcp(lcp.M, lcp.q, lemke);
  s.lambda_n = s.lcp.z.head(m);
  s.lambda_t = s.lcp.z.segment(m, 2 * m);
  s.gamma = s.lcp.z.tail(m);
  Eigen::MatrixXd J(3 * m, 3 + nm);
  J << c.Jn, c.Jt;
  const Eigen::VectorXd lambda = s.lcp.z.head(3 * m);
  s.object_velocity = A * (J.leftCols<3>().transpose() * lambda);
  s.manipulator_velocity = u + B * (J.rightCols(nm).transpose() * lambda);
  return s;
}

}  // namespace tamsi::quasistatic
