#pragma once
/// @file
/// Stateless per-contact kernels of TAMSI (Castro, Qu et al. 2020): Hunt–Crossley normal force (eq. 5, 19),
/// regularized friction (eq. 6–7, 16, 22) and the Transition-Aware Line Search (Sec. III-A).

#include <tamsi/kernels/friction_regularization.h>
#include <tamsi/kernels/thread_budget.h>

#include <Eigen/Core>
#include <cstdint>

namespace tamsi {

namespace kernels {

/// μ̃(s)/s and d/ds(μ̃(s)/s) · s: the two scalars the friction force (eq. 6) and its gradient (eq. 16) need, both
/// finite at s = 0. With g = μ̃/s: ft = −(π/v_s) g vt and ∂ft/∂vt = −(π/v_s)(g I + s g' v̂v̂ᵀ).
struct FrictionSlope {
  double g;     ///< μ̃(s)/s
  double s_dg;  ///< s · dg/ds
};
FrictionSlope RegularizedFrictionSlope(double mu, double s, FrictionRegularization regularization);

/// Hunt–Crossley normal force of the first-order penetration estimate δ = δ0 − h vn (eq. 19 in eq. 5):
/// π = k (1 − d vn)₊ δ₊ (N), and dπ/dvn (N·s/m, ≤ 0).
struct NormalForce {
  double pi;
  double dpi_dvn;
};
NormalForce HuntCrossleyForce(double k, double d, double delta0, double h, double vn);

/// Parameters shared by all contacts of one solve.
struct ContactModel {
  double time_step;           ///< h (s)
  double stiction_tolerance;  ///< v_s (m/s)
  FrictionRegularization regularization;
  bool two_way;  ///< true: π(vn) implicit (eq. 19); false: π frozen at pi_frozen (eq. 12)
};

/// Power of contact i's forces along a Newton direction, for the line searches: Δvn π(vn + αΔvn) +
/// Δvtᵀ ft(vt + αΔvt) (N·m/s per unit of α), with π of eq. 5/19 (two-way) or pi_frozen (one-way) in the normal
/// term and the friction of eq. 6 scaled by the normal force *pi_lag when given (π held at an iterate's value), else
/// by π(vn + αΔvn) itself, as in the residual of eq. 21. With π held, both terms are derivatives of convex
/// potentials, so the sum decreases monotonically in α; with π(α) it is the residual's own power, which two-way
/// coupling does not make monotone.
double ContactPower(const ContactModel& model, double k, double d, double mu, double delta0, double pi_frozen,
                    const double* pi_lag, double vn, const Eigen::Vector2d& vt, double dvn, const Eigen::Vector2d& dvt,
                    double alpha);

/// How the friction block of a sliding contact (‖vt‖ > v_s) is formed. Stiction blocks are always eq. 16's.
enum class SlidingBlock : std::uint8_t {
  /// The tangent of eq. 16: (π/v_s)(g I + s g' v̂v̂ᵀ); with μ̃ = μ beyond v_s it is (μπ/‖vt‖)(I − v̂v̂ᵀ), without
  /// stiffness along the slip direction v̂, so a Newton step that reverses a slip overshoots far across the stiction
  /// disk. W_tn column: μ v̂ dπ/dvn (eq. 22).
  kTangent,
  /// The secant (π μ̃/‖vt‖) I: the curvature of a quadratic majorizer of the friction potential μπ Φ(‖vt‖)
  /// (iteratively reweighted least squares), whose step does not overshoot. W_tn as kTangent. Used by TamsiSolver's
  /// secant safeguard (Options::secant_safeguard).
  kSecant,
  /// Primal–dual (Chan, Golub & Mulet 1999, for total-variation denoising): with a per-contact dual w ∈ R²,
  /// ‖w‖ ≤ 1, ft = −μ̃ π w and w = vt/max(v_s, ‖vt‖) at the solution, linearizing the pair (v, w) and eliminating Δw
  /// gives (π μ̃/‖vt‖)(I − ½(w v̂ᵀ + v̂ wᵀ)) and the W_tn column μ̃ w dπ/dvn. Where w = v̂ (at the solution) these are
  /// kTangent's, so the converged v and the final convergence rate are Newton's; away from it the block has
  /// stiffness along v̂ where the slip is about to reverse (w·v̂ < 1). It stays positive semidefinite (‖w‖ ≤ 1).
  /// Options::friction_newton.
  kPrimalDual,
};

/// Per-contact forces and Newton blocks. For contact i, with local velocities (vn_i, vt_2i, vt_2i+1), writes
/// pi(i) (N), ft(2i..2i+1) (N) and the row-major 3 × 3 block B_i = −∂(π, ft)/∂(vn, vt) into blocks[9i..9i+8], so that
/// the Newton matrix is M + h Σᵢ Jcᵢᵀ Bᵢ Jcᵢ with Jcᵢ = [Jnᵢ; Jtᵢ] (eq. 20, 22, 23; the one-way eq. 17 has only the
/// tangential block). Sizes: k, d, mu, delta0, pi_frozen, vn, pi: nc; vt, ft: 2nc; blocks: 9nc, or nullptr for the
/// forces alone (a solution's). Resizes and overwrites outputs.
///
/// `sliding_block` (nc entries, or nullptr for all kTangent): how each sliding contact's block is formed; `dual`
/// (2nc, read where sliding_block is kPrimalDual): each contact's dual w (dimensionless, ‖w‖ ≤ 1, in the tangent
/// basis of Jt's rows). Stiction blocks and the forces themselves do not depend on either.
void CalcContactForces(const ThreadBudget& budget, const ContactModel& model, const Eigen::VectorXd& k,
                       const Eigen::VectorXd& d, const Eigen::VectorXd& mu, const Eigen::VectorXd& delta0,
                       const Eigen::VectorXd& pi_frozen, const Eigen::VectorXd& vn, const Eigen::VectorXd& vt,
                       Eigen::VectorXd* pi, Eigen::VectorXd* ft, Eigen::VectorXd* blocks,
                       const SlidingBlock* sliding_block = nullptr, const Eigen::VectorXd* dual = nullptr);

/// One contact's primal–dual dual at tangential velocity vt (m/s): w = vt/max(v_s, ‖vt‖), its value at a solution
/// and the iteration's first value (FrictionNewton::kPrimalDual).
Eigen::Vector2d PrimalDualAt(const Eigen::Vector2d& vt, double stiction_tolerance);

/// The primal–dual update of one contact's dual w (SlidingBlock::kPrimalDual) from the full Newton step Δvt (not
/// scaled by the line search's α) at vt: with m = max(v_s, ‖vt‖), ŵ = (vt + Δvt − [‖vt‖ > v_s] w (v̂·Δvt))/m, the
/// linearization of w m(vt) = vt, projected onto the unit disk: w ← ŵ / max(1, ‖ŵ‖).
Eigen::Vector2d UpdatePrimalDual(const Eigen::Vector2d& vt, const Eigen::Vector2d& dvt, const Eigen::Vector2d& w,
                                 double stiction_tolerance);

/// TALS for one contact (Sec. III-A): the largest α ∈ (0, 1] for the update vt + α Δvt.
/// - From stiction (‖vt‖ ≤ v_s): α = 1; the Newton matrix is accurate there.
/// - From sliding, when the segment reaches the stiction disk ‖·‖ < v_s: α puts the iterate at the point of the line
///   closest to the origin, (vt + α Δvt)·Δvt = 0, inside the disk; α = 1 if the segment ends in the disk first.
/// - Sliding to sliding: the angle between vt and vt + α Δvt is limited to θ_max (tan_max = tan θ_max).
double TalsAlpha(const Eigen::Vector2d& vt, const Eigen::Vector2d& dvt, double stiction_tolerance, double cos_max,
                 double tan_max);

/// TALS limit α = minᵢ αᵢ as a parallel reduction (exact for any thread count), and the number of contacts with
/// αᵢ < 1: over the `num_contacts` contacts listed in `contacts` (an island), or over all nc contacts when
/// `contacts` is null. vt, dvt: 2nc (m/s).
struct TalsLimit {
  double alpha;
  int limited_contacts;
};
TalsLimit CalcTalsLimit(const ThreadBudget& budget, const Eigen::VectorXd& vt, const Eigen::VectorXd& dvt,
                        double stiction_tolerance, double max_angle, const int* contacts = nullptr,
                        int num_contacts = 0);

}  // namespace kernels
}  // namespace tamsi
