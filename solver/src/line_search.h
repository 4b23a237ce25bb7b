#pragma once
/// @file
/// Internal: the exact line search of LineSearch::kExact.

#include <tamsi/kernels/parallel.h>
#include <tamsi/newton_system.h>

#include <Eigen/Core>

namespace tamsi::internal {

/// What the line search zeroes along Δv.
enum class LineSearchSlope {
  /// ℓ'(α) of the convex potential whose gradient is the residual with the friction's normal force held at the
  /// current iterate's πᵏ (LineSearch::kExact): monotone in α.
  kLaggedPotential,
  /// Δvᵀ r(v + αΔv), the residual of eq. 21 itself projected on Δv (friction scaled by π(α)): zero at α = 1 where
  /// the Newton model is exact, so near the solution the step is Newton's. Two-way coupling has no potential, so it
  /// need not be monotone; the search keeps a sign change. The primal–dual iteration's (FrictionNewton): the lagged
  /// potential's minimizer lies a constant factor away from the residual's root on fast-sliding contacts whose normal
  /// force changes along the line, and Newton then converges only linearly (measured on thrown bins).
  kResidual,
};

/// Line search over one island: the root in (0, max_alpha] of
///   s(α) = Δvᵀ(M v − p*) + α ΔvᵀMΔv − h Σᵢ [Δvnᵢ πᵢ(α) + Δvtᵢ·ftᵢ(α; π)],
/// with π in the friction held at πᵏ or not (`slope`), by regula falsi with the Illinois modification (the bracket
/// doubles past 1 while s < 0; max_alpha ≥ 1), to |s(α)| ≤ max(1e-6 |s(0)|, the rounding of s's sums: 4ε times the
/// sum of their terms' magnitudes). Returns max_alpha when s(max_alpha) ≤ 0, and 0 (no step) when s(0) ≥ 0, i.e.
/// Δv is not a descent direction. `evaluations` counts evaluations of the contact laws along the line: s(0) reads the
/// iterate's forces, so `system` must have been evaluated at v (NewtonSystem::Evaluate).
/// v, dv: the iterate and the Newton direction (nv; only the island's entries are read); dvn, dvt: the contact
/// velocity changes (nc, 2nc; likewise). The sums over the island's velocities and contacts run under `budget` on
/// ranges fixed by their counts alone (ThreadBudget::Sum): the result is bitwise the same for any thread count.
double ExactLineSearch(const kernels::ThreadBudget& budget, const NewtonSystem& system, const Eigen::VectorXd& v,
                       const Eigen::VectorXd& dv, const int* dofs, int n, const int* contacts, int num_contacts,
                       const Eigen::VectorXd& dvn, const Eigen::VectorXd& dvt, double max_alpha, LineSearchSlope slope,
                       int* evaluations);

}  // namespace tamsi::internal
