#pragma once
/// @file
/// The quasi-static planar manipulation model with finite manipulator feedback (Halm & Posa 2018; spec
/// quasistatic.md §1–§4): one object with an ellipsoidal limit surface, manipulator bodies driven by a
/// finite-gain velocity servo, static bodies, and Coulomb contacts. Generalized coordinates q = (q_o, q_m) with
/// q_o = (x, y, θ) of the object (m, m, rad) and q_m the manipulator's n_m coordinates; v = q̇ (planar).

#include <Eigen/Dense>
#include <memory>
#include <string>
#include <vector>

#include "tamsi/quasistatic/geometry.h"
#include "tamsi/quasistatic/lemke.h"

namespace tamsi::quasistatic {

/// Maps manipulator coordinates q_m (n_m) to the poses (x, y, θ) of the manipulator bodies and their Jacobians.
class ManipulatorKinematics {
 public:
  virtual ~ManipulatorKinematics() = default;
  /// n_m.
  virtual int num_coordinates() const = 0;
  /// Number of manipulator bodies.
  virtual int num_bodies() const = 0;
  /// Pose of body k (3) and its Jacobian ∂pose/∂q_m (3 × n_m) at q_m.
  virtual void BodyPose(const Eigen::VectorXd& q_m, int k, Eigen::Vector3d* pose, Eigen::MatrixXd* jacobian) const = 0;
};

/// Independent fingers: a point finger has coordinates (x, y); a rigid finger has (x, y, θ). Coordinates are stacked
/// in finger order, e.g. two point fingers give q_m = (x1, y1, x2, y2) (spec §1).
class FreeFingers final : public ManipulatorKinematics {
 public:
  /// @param rotates  one entry per finger: false for a translating point (2 coordinates), true for a rigid body (3).
  explicit FreeFingers(std::vector<bool> rotates);
  int num_coordinates() const override { return num_coordinates_; }
  int num_bodies() const override { return static_cast<int>(rotates_.size()); }
  void BodyPose(const Eigen::VectorXd& q_m, int k, Eigen::Vector3d* pose, Eigen::MatrixXd* jacobian) const override;

 private:
  std::vector<bool> rotates_;
  std::vector<int> offsets_;
  int num_coordinates_ = 0;
};

/// Planar 2-link arms with revolute joints. Arm k has coordinates (q1, q2) (rad, q1 from the world x axis, q2
/// relative to link 1) at q_m(2k), q_m(2k+1); its body is the fingertip at
/// base + l1 (cos q1, sin q1) + l2 (cos(q1+q2), sin(q1+q2)) with orientation q1 + q2.
class TwoLinkArms final : public ManipulatorKinematics {
 public:
  struct Arm {
    Eigen::Vector2d base = Eigen::Vector2d::Zero();  ///< m, world.
    double link1 = 1.0;                              ///< m, > 0.
    double link2 = 1.0;                              ///< m, > 0.
  };
  explicit TwoLinkArms(std::vector<Arm> arms);
  int num_coordinates() const override { return 2 * num_bodies(); }
  int num_bodies() const override { return static_cast<int>(arms_.size()); }
  void BodyPose(const Eigen::VectorXd& q_m, int k, Eigen::Vector3d* pose, Eigen::MatrixXd* jacobian) const override;
  /// Joint angles (q1, q2) that put arm k's tip at `tip` (world), elbow on the side given by `elbow_sign` (±1).
  /// @throws std::invalid_argument if the tip is out of reach.
  Eigen::Vector2d InverseKinematics(int k, const Eigen::Vector2d& tip, double elbow_sign) const;

 private:
  std::vector<Arm> arms_;
};

/// Which body of a System a contact pair refers to.
struct BodyId {
  enum class Kind { kObject, kManipulator, kStatic };
  Kind kind = Kind::kObject;
  int index = 0;  ///< Manipulator body or static body index; ignored for the object.

  static BodyId Object() { return {Kind::kObject, 0}; }
  static BodyId Manipulator(int k) { return {Kind::kManipulator, k}; }
  static BodyId Static(int k) { return {Kind::kStatic, k}; }
};

/// A pair of bodies that may touch, with its Coulomb friction coefficient (≥ 0).
struct ContactPair {
  BodyId first;
  BodyId second;
  double friction = 1.0;
};

/// A body fixed in the world.
struct StaticBody {
  Shape shape;
  Eigen::Vector3d pose = Eigen::Vector3d::Zero();  ///< (x, y, θ).
};

/// All N candidate contacts at one configuration (spec §1). nv = 3 + n_m. Rows of contact i: J_n row i,
/// J_t rows 2i (along +t̂) and 2i+1 (along −t̂), with t̂ = Rot(+90°) n̂.
struct ContactSet {
  Eigen::VectorXd phi;               ///< N, signed gaps (m).
  Eigen::MatrixXd Jn;                ///< N × nv, J_n v = φ̇ (separation rate).
  Eigen::MatrixXd Jt;                ///< 2N × nv, ± tangential relative velocity.
  Eigen::VectorXd mu;                ///< N, friction coefficients.
  std::vector<ContactPoint> points;  ///< N, the witness points and normals (world).

  int size() const { return static_cast<int>(phi.size()); }
  /// The candidates `indices` (in that order), with their tangential row pairs.
  ContactSet Subset(const std::vector<int>& indices) const;
};

/// Bodies and candidate contacts of a scene. Immutable after construction.
class System {
 public:
  /// @throws std::invalid_argument for an invalid shape, a pair naming a missing body, a pair between two
  ///         static bodies, a negative friction coefficient, or an unsupported shape combination.
  System(Shape object, std::shared_ptr<const ManipulatorKinematics> kinematics, std::vector<Shape> manipulator_shapes,
         std::vector<StaticBody> static_bodies, std::vector<ContactPair> pairs);

  int num_manipulator_coordinates() const { return kinematics_->num_coordinates(); }
  int num_velocities() const { return 3 + num_manipulator_coordinates(); }
  int num_candidates() const { return num_candidates_; }
  const ManipulatorKinematics& kinematics() const { return *kinematics_; }
  const Shape& object_shape() const { return object_; }
  const std::vector<Shape>& manipulator_shapes() const { return manipulator_shapes_; }
  const std::vector<StaticBody>& static_bodies() const { return static_bodies_; }
  const std::vector<ContactPair>& pairs() const { return pairs_; }

  /// Gaps and Jacobians of all candidates, pairs in order, at q_o (3) and q_m (n_m).
  /// @throws std::invalid_argument if q_m has the wrong size.
  ContactSet EvaluateContacts(const Eigen::Vector3d& q_o, const Eigen::VectorXd& q_m) const;

  /// Gaps only (cheaper than EvaluateContacts), N.
  Eigen::VectorXd EvaluateGaps(const Eigen::Vector3d& q_o, const Eigen::VectorXd& q_m) const;

 private:
  void Pose(BodyId id, const Eigen::Vector3d& q_o, const Eigen::VectorXd& q_m, Eigen::Vector3d* pose,
            Eigen::MatrixXd* jacobian) const;
  const Shape& ShapeOf(BodyId id) const;

  Shape object_;
  std::shared_ptr<const ManipulatorKinematics> kinematics_;
  std::vector<Shape> manipulator_shapes_;
  std::vector<StaticBody> static_bodies_;
  std::vector<ContactPair> pairs_;
  int num_candidates_ = 0;
};

/// Physical parameters of the model (spec §2).
struct ModelParameters {
  /// 3 × 3 SPD body-frame limit-surface matrix A_b: the object twist is q̇_o = A(θ) J_oᵀ λ with
  /// A(θ) = R(θ) A_b R(θ)ᵀ, R = blkdiag(Rot(θ), 1). Units (m/s)/N on the translational block.
  Eigen::Matrix3d limit_surface = Eigen::Matrix3d::Identity();
  /// n_m × n_m SPD velocity-feedback gain K. The servo force is (1/ε) K (u − q̇_m).
  Eigen::MatrixXd gain;
  /// Feedback scaling ε ≥ 0; the compliance is B = ε K⁻¹. ε = 0 is perfect velocity control.
  double epsilon = 0.0;

  /// @throws std::invalid_argument naming the field if A_b or K is not SPD, K has the wrong size, or ε < 0.
  void Validate(int num_manipulator_coordinates) const;
  /// A(θ), 3 × 3.
  Eigen::Matrix3d WorldLimitSurface(double theta) const;
  /// B = ε K⁻¹, n_m × n_m.
  Eigen::MatrixXd Compliance() const;
};

/// An assembled LCP of the model. z = (λ_n or Λ_n (m), λ_t or Λ_t (2m), γ or Γ (m)).
struct ContactLcp {
  Eigen::MatrixXd M;  ///< 4m × 4m: [[W_nn, W_nt, 0], [W_tn, W_tt, E], [μ, −Eᵀ, 0]] (spec §3).
  Eigen::VectorXd q;  ///< 4m.
};

/// The velocity LCP of spec §3 for the contacts `contacts` (all taken as touching), object limit surface A (3 × 3,
/// world), compliance B (n_m × n_m) and command u (n_m): q = (J_nm u, J_tm u, 0).
ContactLcp BuildVelocityLcp(const ContactSet& contacts, const Eigen::Matrix3d& A, const Eigen::MatrixXd& B,
                            const Eigen::VectorXd& u);

/// The time-stepping LCP of spec §4 with the linearized gap: q = (φ + h J_nm u, h J_tm u, 0), h in s.
ContactLcp BuildTimeSteppingLcp(const ContactSet& contacts, const Eigen::Matrix3d& A, const Eigen::MatrixXd& B,
                                const Eigen::VectorXd& u, double h);

/// A solved velocity LCP (spec §3).
struct VelocitySolution {
  LemkeResult lcp;           ///< The Lemke outcome; the fields below are valid when lcp.status is kSolved.
  Eigen::VectorXd lambda_n;  ///< m, normal forces (N), ≥ 0.
  Eigen::VectorXd lambda_t;  ///< 2m, friction components along +t̂, −t̂ (N), ≥ 0.
  Eigen::VectorXd gamma;     ///< m, sliding-speed slack (m/s).
  Eigen::Vector3d object_velocity = Eigen::Vector3d::Zero();  ///< q̇_o = A J_oᵀ λ.
  Eigen::VectorXd manipulator_velocity;                       ///< q̇_m = u + B J_mᵀ λ.
};

/// Solves the velocity LCP at (q_o, q_m) for the candidates with |φ| ≤ `touching_gap`, with command u (n_m).
/// Infeasibility (e.g. a squeeze at ε = 0) is reported through `lcp.status`, never thrown.
/// @throws std::invalid_argument for invalid parameters or sizes.
VelocitySolution SolveVelocityLcp(const System& system, const ModelParameters& parameters, const Eigen::Vector3d& q_o,
                                  const Eigen::VectorXd& q_m, const Eigen::VectorXd& u, double touching_gap = 1e-9,
                                  const LemkeOptions& lemke = {});

}  // namespace tamsi::quasistatic
