#pragma once
/// @file
/// The MuJoCo front end: turns the state of an MJCF model into a tamsi::ContactProblem (DESIGN.md, "Scenes and the
/// front end"). MuJoCo (4.0) computes kinematics, the sparse mass matrix, bias/passive/actuator forces and contacts,
/// once per time step; the contact Jacobians are assembled sparsely here from the kinematic tree.

#include <mujoco/mujoco.h>
#include <tamsi/contact_problem.h>
#include <tamsi/kernels/sparse_pattern.h>
#include <tamsi/scenes/narrow_phase.h>

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

namespace tamsi::scenes {
namespace internal {
struct SparseRows;
}

/// Per-geom Hunt–Crossley parameters used where a geom's MJCF `user` data does not give them.
struct ContactDefaults {
  /// Per-geom stiffness k (N/m), > 0. Two geoms combine in series: k = k₁k₂/(k₁+k₂), so two geoms with the same
  /// value give k/2.
  double stiffness{2.0e4};
  /// Per-geom dissipation d (s/m), ≥ 0. Combined as d = (k₂d₁ + k₁d₂)/(k₁+k₂).
  double dissipation{10.0};
  /// When set, `stiffness` (`dissipation`) replaces the MJCF `user` value of every geom (command-line overrides).
  bool override_stiffness{false};
  bool override_dissipation{false};
};

/// Drake's penetration-allowance heuristic (paper era): a per-contact stiffness k = m_max g / allowance and
/// dissipation d = 1/sqrt(g · allowance), g = 9.81 m/s², m_max the largest body mass of the model. Returned as
/// per-geom values (2k, d) so that two default geoms in contact combine to exactly (k, d).
ContactDefaults PenetrationAllowanceDefaults(const mjModel& model, double allowance);

/// One contact row of a ContactProblem as the front end built it: a contact between two geoms, or a joint or tendon
/// limit (a frictionless contact whose penetration is the limit violation).
struct ContactInfo {
  enum class Kind { kGeoms, kJointLimit, kTendonLimit };
  Kind kind{Kind::kGeoms};
  /// kGeoms: the two geoms. Limits: geom1 = geom2 = −1 and `object` is the joint or tendon.
  int geom1{-1}, geom2{-1};
  int object{-1};
  /// kGeoms: contact point (world, m) and normal from geom1 to geom2 (world); zero for limits.
  Eigen::Vector3d position{Eigen::Vector3d::Zero()}, normal{Eigen::Vector3d::Zero()};
  /// kGeoms: the tangents t1, t2 of the rows of Jt (world; the contact frame's rows 1 and 2); zero for limits.
  Eigen::Vector3d tangent1{Eigen::Vector3d::Zero()}, tangent2{Eigen::Vector3d::Zero()};
};

/// The kind's name in outputs: "geoms", "joint_limit" or "tendon_limit".
const char* ToString(ContactInfo::Kind kind);

/// What a Build took from MuJoCo's constraints other than contact (DESIGN.md, "Constraints of the model").
struct ConstraintCounts {
  /// Limit rows appended to the contacts: hinge and slide joints and limited tendons up to 2 each (lower, upper),
  /// ball joints up to 1 (the cone, when rotated); a side only when the step may reach it (violated, or within the
  /// larger of the model's margin, the limit's solimp width and twice the distance covered in a step at the current
  /// speed).
  int joint_limits{0}, tendon_limits{0};
  /// Bilateral rows (ContactProblem::Jb): connect 3, weld 6, joint and tendon couplings 1 each.
  int equality_rows{0};
};

/// Builds ContactProblems from an mjModel/mjData pair. Holds per-model tables (the dof chain of each body, per-geom
/// contact parameters) and scratch space; reuse one object across steps.
///
/// Contact i's rows: vn_i = n·(v₂ − v₁), vt_i = (t₁·(v₂ − v₁), t₂·(v₂ − v₁)) where v₁, v₂ are the velocities of the
/// contact point moving with the bodies of geom1 and geom2, n = frame row 0 (from geom1 to geom2), t₁, t₂ = frame
/// rows 1, 2. So vn > 0 when the geoms separate, as tamsi::ContactProblem requires. Penetration δ0 = −dist.
class ContactProblemBuilder {
 public:
  /// Reads each geom's `user` data: with nuser_geom ≥ 2, user[0] = k (N/m) and user[1] = d (s/m) replace the
  /// defaults where user[0] > 0, unless the defaults' override flags are set. Throws std::invalid_argument naming the
  /// geom for a negative or non-finite value.
  ContactProblemBuilder(const mjModel& model, const ContactDefaults& defaults);
  ~ContactProblemBuilder();
  ContactProblemBuilder(ContactProblemBuilder&&) noexcept;
  ContactProblemBuilder& operator=(ContactProblemBuilder&&) noexcept;

  /// Runs MuJoCo's position and velocity stages and actuation at the state in `data` (qpos, qvel, ctrl, act,
  /// qfrc_applied, xfrc_applied), then fills `problem` for a step of length h (s): Jn (nc × nv), Jt (2nc × nv),
  /// δ0, k, d, μ (the geom contacts, then the joint and tendon limits), the bilateral rows Jb, g0, k, c of the
  /// model's active equality constraints (constraint_rows.cc documents both), v0 = v_guess = qvel, and
  ///   M̃ = M + h D  (nv × nv, both triangles),   p* = M̃ v0 + h τ(q0, v0),
  /// where τ = qfrc_passive + qfrc_actuator + qfrc_applied + Jᵀxfrc_applied − qfrc_bias and D (diagonal, N·s/m or
  /// N·m·s/rad) holds joint damping and the velocity gains of unsaturated joint actuators (implicit_damping), taken
  /// implicitly as MuJoCo's Euler integrator does (stiff PD actuators are unstable otherwise). Returns false (problem
  /// untouched) when the contact arena was full (the contact list or the collision's stack), so the caller can grow it
  /// (GrowArena) and rebuild.
  bool Build(const mjModel& model, mjData* data, double h, ContactProblem* problem);

  /// The narrow phase of Build's collision for sphere–cylinder and plane–mesh pairs (default NarrowPhase::kAnalytic).
  NarrowPhase narrow_phase() const { return narrow_phase_; }
  void set_narrow_phase(NarrowPhase narrow_phase) { narrow_phase_ = narrow_phase; }

  /// τ(q0, v0) of the last Build (nv, N or N·m).
  const Eigen::VectorXd& generalized_forces() const { return tau_; }
  /// The implicit damping D of the last Build (nv, diagonal, N·s/m or N·m·s/rad): joint damping plus gear² |b2| of
  /// each joint actuator with an affine velocity bias whose force is inside its forcerange (MuJoCo's
  /// implicit/implicitfast take the same actuator derivative, zero for a clamped force).
  const Eigen::VectorXd& implicit_damping() const { return damping_; }
  /// Re-targets a problem of the last Build to a step of length h: time_step = h and M̃ = M + h D. The caller sets
  /// p* (for substeps: p* = M̃ v_k + h (τ + D (v0 − v_k)), the linearization of τ about v0).
  void SetTimeStep(double h, ContactProblem* problem) const;
  /// Whether the last Build wrote its contact and limit rows into the values of the previous Build's Jn and Jt (the
  /// same geom contacts' body pairs in the same order, the same limit rows' pattern) instead of building them afresh.
  bool last_build_in_place() const { return last_build_in_place_; }
  /// The contact rows of the last Build, in problem order: the geom contacts, then the joint and tendon limits.
  const std::vector<ContactInfo>& contacts() const { return contacts_; }
  /// The limit and equality rows of the last Build.
  const ConstraintCounts& constraint_counts() const { return constraint_counts_; }

  /// Per-geom stiffness (N/m) and dissipation (s/m) after defaults (ngeom each).
  const std::vector<double>& geom_stiffness() const { return geom_stiffness_; }
  const std::vector<double>& geom_dissipation() const { return geom_dissipation_; }

 private:
  void BuildMassPattern(const mjModel& model);
  void AssembleMassMatrix(const mjData& data, SparseMatrix* M);
  void AssembleJacobians(const mjModel& model, const mjData& data, ContactProblem* problem);
  /// True when the last AssembleJacobians' patterns hold for `data`'s contacts and this step's limit rows (the same
  /// body pairs in the same order, the same limit rows' pattern) and `problem`'s Jn and Jt still have them: the rows
  /// can then be written into their values in place.
  bool JacobianPatternsHold(const mjModel& model, const mjData& data, const ContactProblem& problem) const;
  /// Starts a new set of scratch rows (up to 3) over the dofs.
  void BeginScratchRows();
  /// Adds sign · (the velocity of `point` moving with `body`) projected on the 3 frame rows to the scratch rows,
  /// or, with `angular`, sign · (the angular velocity of `body`) projected on them (`point` unused).
  void AccumulateBodyJacobian(const mjModel& model, const mjData& data, int body, const double point[3],
                              const double frame[9], double sign, bool angular = false);
  /// A contact's 3 rows (the velocity of `point` moving with `body` minus moving with `other`, projected on the rows
  /// of `frame`) in row_values_, over the dofs that move either body, listed in increasing order in touched_.
  void CalcContactRows(const mjModel& model, const mjData& data, int body, int other, const double point[3],
                       const double frame[9]);
  /// The scratch row for `dof` (3 values), zeroed and recorded on first touch.
  double* ScratchRow(int dof);
  /// Joint and tendon limits (into limit_rows_ and their vectors) and equality constraints (into problem's Jb, g0,
  /// constraint_stiffness, constraint_damping) at the positions of `data` (constraint_rows.cc).
  void CalcConstraintRows(const mjModel& model, const mjData& data, double h, ContactProblem* problem);
  void CalcLimitRows(const mjModel& model, const mjData& data, double h);
  /// Throws std::invalid_argument naming the first joint or tendon limit whose solref/solimp give no finite,
  /// non-negative stiffness and damping (at construction: a limit's row is built only near it).
  static void CheckLimitParameters(const mjModel& model);
  void CalcEqualityRows(const mjModel& model, const mjData& data, double h, ContactProblem* problem);

  std::vector<int> body_last_dof_;  // last dof of the chain that moves each body; -1 for bodies fixed to the world
  // The dofs that move body b, increasing: chain_dofs_[chain_ptr_[b] .. chain_ptr_[b + 1]).
  std::vector<int> chain_ptr_, chain_dofs_;
  std::vector<double> geom_stiffness_, geom_dissipation_;
  Eigen::VectorXd tau_;
  std::vector<ContactInfo> contacts_;
  // Scratch for one contact: 3 rows (n, t1, t2) over the touched dofs.
  std::vector<double> row_values_;  // nv × 3
  std::vector<int> dof_mark_;       // nv, the contact index that last touched the dof
  std::vector<int> touched_;
  int stamp_{-1};
  // The pattern of M (fixed per model) and, for each of its nonzeros, the qM address it reads.
  SparseMatrix mass_pattern_;
  std::vector<int> mass_source_;
  std::vector<int> mass_diagonal_index_;  // nv: position of M(i, i) among the nonzeros
  /// D's actuator terms: D[dof] += coefficient while the actuator's force is inside its forcerange.
  struct ActuatorDamping {
    int actuator, dof;
    double coefficient;
  };
  /// damping_ = joint_damping_ plus the terms of actuator_damping_ whose actuator is not saturated at `data`.
  void CalcImplicitDamping(const mjModel& model, const mjData& data);
  std::vector<ActuatorDamping> actuator_damping_;
  Eigen::VectorXd mass_diagonal_, joint_damping_, damping_;
  // Jn and Jt rows in CSR form, and the next free slot of each column while they are written column-major (nv).
  std::unique_ptr<internal::SparseRows> jn_rows_, jt_rows_;
  // What the last rows' transfer to Jn and Jt left: their patterns, where each CSR entry's value went, the body pairs
  // of the geom contacts (two per contact) and the limit rows' pattern they came from.
  kernels::SparsePattern jn_pattern_, jt_pattern_;
  std::vector<int> jn_slot_, jt_slot_, contact_bodies_, limit_outer_, limit_inner_;
  bool last_build_in_place_{false};
  // Limit rows (appended to Jn after the geom contacts): distance to the limit (m or rad, < 0 violated), the
  // Hunt–Crossley stiffness and dissipation, and their sources. Equality rows before they become Jb.
  std::unique_ptr<internal::SparseRows> limit_rows_, equality_rows_;
  std::vector<double> limit_distance_, limit_stiffness_, limit_dissipation_;
  std::vector<ContactInfo> limit_info_;
  std::vector<double> equality_value_, equality_stiffness_, equality_damping_;
  ConstraintCounts constraint_counts_;
  std::vector<int> column_next_;
  NarrowPhase narrow_phase_{NarrowPhase::kAnalytic};
};

/// Mechanical energy (J) of the state in `data`: kinetic ½ vᵀMv, gravity potential and hinge/slide joint springs, and
/// the elastic energy ½ k δ² stored in the contacts of `contacts` (a problem built at the same state; may be null).
/// Runs the position stage; does not change qpos, qvel.
double MechanicalEnergy(const mjModel& model, mjData* data, const ContactProblem* contacts);

}  // namespace tamsi::scenes
