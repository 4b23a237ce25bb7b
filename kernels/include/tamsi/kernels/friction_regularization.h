#pragma once
/// @file
/// The regularized friction coefficient's shape, a setting of the kernels (contact_kernels.h) and of the solver's
/// Options (tamsi_solver.h).

namespace tamsi {

/// Regularized friction coefficient μ̃(s), s = ‖vt‖/v_s.
enum class FrictionRegularization {
  /// The paper's eq. 7: μ̃ = μ s for s ≤ 1, μ beyond.
  kLinear,
  /// C¹ alternative: μ̃ = μ s (2 − s) for s ≤ 1, μ beyond (stiction slope 2μ/v_s at s = 0).
  kSmooth,
};

}  // namespace tamsi
