#pragma once
/// @file
/// The data of one TAMSI time step (Castro, Qu et al. 2020, Sec. V).

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <optional>

namespace tamsi {

/// Sparse matrix type of the solver's inputs (column-major, 64-bit indices are not needed below 2^31 nonzeros).
using SparseMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

/// One time step of multibody dynamics with compliant contact and regularized friction, positions frozen at q0.
///
/// The unknown is the vector of generalized velocities v (nv) at the end of the step. Contact i has a normal
/// row in Jn and two tangent rows 2i, 2i+1 in Jt (an orthonormal basis of the contact plane).
///
/// Sign conventions (paper Sec. II-A): vn = Jn v is the separation velocity, positive when the bodies move apart,
/// so the penetration rate is δ̇ = −vn (eq. 19). The generalized contact force is Jnᵀ fn + Jtᵀ ft with fn ≥ 0
/// pushing the bodies apart.
///
/// Unilateral constraints other than contact (joint and tendon limits) are frictionless contacts: a row of Jn whose
/// "penetration" δ0 is the limit violation (m or rad), zero rows in Jt and μ = 0. Bilateral constraints (MuJoCo's
/// equalities: connect, weld, joint and tendon couplings) are the optional rows of Jb below.
///
/// Validate() checks every field once and throws std::invalid_argument naming the bad field. nc = 0 and nv = 0
/// are valid. M's positive definiteness needs a factorization: TamsiSolver::Solve checks it (Validate checks
/// symmetry and a positive diagonal).
struct ContactProblem {
  /// Time step h (s), > 0.
  double time_step{0.0};
  /// Mass matrix M0 (nv × nv, kg or kg·m², symmetric positive definite; both triangles stored). Symmetric to 1e-10
  /// times its largest entry: an entry that small may lack its stored mirror (read as 0).
  SparseMatrix M;
  /// Normal velocity Jacobian Jn (nc × nv): vn = Jn v (m/s).
  SparseMatrix Jn;
  /// Tangential velocity Jacobian Jt (2nc × nv): vt = Jt v (m/s), rows 2i and 2i+1 for contact i.
  SparseMatrix Jt;
  /// Free-motion momentum p* = M0 v0 + h τ(q0, v0) (nv, N·s).
  Eigen::VectorXd p_star;
  /// Penetration δ0 at q0 (nc, m), positive when the geometries overlap.
  Eigen::VectorXd delta0;
  /// Hunt–Crossley stiffness k (nc, N/m), ≥ 0 (eq. 5).
  Eigen::VectorXd stiffness;
  /// Hunt–Crossley dissipation d (nc, s/m), ≥ 0 (eq. 5).
  Eigen::VectorXd dissipation;
  /// Coulomb friction coefficient μ (nc), ≥ 0 (eq. 6–7).
  Eigen::VectorXd friction;
  /// Optional generalized velocities v0 at the start of the step (nv, m/s). The one-way scheme freezes the normal
  /// forces at π(δ0, vn0 = Jn v0) (eq. 12); without v0 it takes vn0 = 0.
  std::optional<Eigen::VectorXd> v0;
  /// Optional initial Newton iterate (nv, m/s). Without it Newton starts from v* = M0⁻¹ p*.
  std::optional<Eigen::VectorXd> v_guess;
  /// Optional initial friction duals w (2nc, dimensionless, ‖wᵢ‖ ≤ 1, in contact i's (t₁, t₂) frame: ftᵢ = −μᵢ πᵢ wᵢ)
  /// for Options::friction_newton = kPrimalDual, e.g. the previous step's solution carried over to the same contacts:
  /// wᵢ = vtᵢ/max(v_s, ‖vtᵢ‖) there. Without it the duals start at the first iterate, wᵢ = vtᵢ/max(v_s, ‖vtᵢ‖) with
  /// vt = Jt v_guess. The guess changes the iterates only, not the solution. Ignored by kTangent.
  std::optional<Eigen::VectorXd> w_guess;

  /// Bilateral compliant constraints, nb rows (nb = 0 when Jb is empty): constraint functions g(q) (m or rad, zero
  /// when satisfied) linearized at q0 with the first-order estimate of eq. 19, g ≈ g0 + h Jb v, each with a linear
  /// spring–damper force λ = −k g − c ġ (N or N·m) and generalized force Jbᵀλ, implicit in v like the normal force
  /// of eq. 19–23. They add h Jbᵀ(k h + c)Jb (SPD) to the Newton matrix and leave the contact terms as they are.
  /// The solver folds them into M and p* once per solve (NewtonSystem::mass_matrix), on a plan kept while the patterns
  /// of M and Jb hold, so a steady-state solve with them allocates nothing either.
  /// Constraint Jacobian Jb (nb × nv): ġ = Jb v (m/s or rad/s).
  SparseMatrix Jb;
  /// Constraint values g0 at q0 (nb, m or rad).
  Eigen::VectorXd g0;
  /// Stiffness k (nb, N/m or N·m/rad) and damping c (nb, N·s/m or N·m·s/rad), ≥ 0.
  Eigen::VectorXd constraint_stiffness;
  Eigen::VectorXd constraint_damping;

  /// Number of generalized velocities (rows of M).
  int num_velocities() const { return static_cast<int>(M.rows()); }
  /// Number of contacts (rows of Jn).
  int num_contacts() const { return static_cast<int>(Jn.rows()); }
  /// Number of bilateral constraint rows (rows of Jb).
  int num_constraints() const { return static_cast<int>(Jb.rows()); }

  /// Checks shapes, finiteness, signs and symmetry of M. Throws std::invalid_argument whose message names the
  /// field, e.g. "ContactProblem.Jt: expected 6 × 12, got 6 × 11".
  void Validate() const;
};

}  // namespace tamsi
