#pragma once
/// @file
/// Internal: the exact line search of LineSearch::kExact.

#include <tamsi/newton_system.h>

#include <Eigen/Core>

namespace tamsi::internal {

/// Exact line search (LineSearch::kExact) over one island: the root in (0, 1] of the slope
///   ℓ'(α) = Δvᵀ(M v − p*) + α ΔvᵀMΔv − h Σᵢ [Δvnᵢ πᵢ(α) + Δvtᵢ·ftᵢ(α; πᵢᵏ)],
/// monotone in α, by regula falsi with the Illinois modification, over (0, max_alpha] (max_alpha ≥ 1; the bracket
/// doubles past 1 while ℓ' < 0). Returns max_alpha when ℓ'(max_alpha) ≤ 0, and 0 (no step) when ℓ'(0) ≥ 0, i.e. Δv
/// is not a descent direction. `evaluations` counts slope evaluations.
/// v, dv: the iterate and the Newton direction (nv; only the island's entries are read); dvn, dvt: the contact
/// velocity changes (nc, 2nc; likewise).
double ExactLineSearch(const NewtonSystem& system, const Eigen::VectorXd& v, const Eigen::VectorXd& dv, const int* dofs,
                       int n, const int* contacts, int num_contacts, const Eigen::VectorXd& dvn,
                       const Eigen::VectorXd& dvt, double max_alpha, int* evaluations);

}  // namespace tamsi::internal
