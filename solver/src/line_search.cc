#include "line_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tamsi::internal {
namespace {

constexpr int kGrain = 512;  // velocities or contacts per summed range (ThreadBudget::Sum)

}  // namespace

double ExactLineSearch(const kernels::ThreadBudget& budget, const NewtonSystem& system, const Eigen::VectorXd& v,
                       const Eigen::VectorXd& dv, const int* dofs, int n, const int* contacts, int num_contacts,
                       const Eigen::VectorXd& dvn, const Eigen::VectorXd& dvt, double max_alpha,
                       LineSearchSlope slope_kind, int* evaluations) {
  const ContactProblem& p = system.problem();
  const SparseMatrix& M = system.mass_matrix();  // with the bilateral constraints folded in, as p_star
  const Eigen::VectorXd& p_star = system.p_star();
  // Δvᵀ(M v − p*), ΔvᵀMΔv and Σ|Δv|(|M v| + |p*|) (the first's magnitude before it cancels) over the island (its
  // columns of M touch only its own velocities).
  const Eigen::Vector3d ab = budget.Sum<Eigen::Vector3d>(n, kGrain, [&](int begin, int end) {
    Eigen::Vector3d sum = Eigen::Vector3d::Zero();
    for (int c = begin; c < end; ++c) {
      const int j = dofs[c];
      double Mv = 0.0, Mdv = 0.0;
      for (SparseMatrix::InnerIterator it(M, j); it; ++it) {
        Mv += it.value() * v[it.row()];
        Mdv += it.value() * dv[it.row()];
      }
      sum += Eigen::Vector3d(dv[j] * (Mv - p_star[j]), dv[j] * Mdv,
                             std::abs(dv[j]) * (std::abs(Mv) + std::abs(p_star[j])));
    }
    return sum;
  });
  const kernels::ContactModel& model = system.model();
  // Σᵢ termᵢ and Σᵢ |termᵢ| over the island's contacts, for a contact's power along Δv.
  auto sum_powers = [&](auto term) {
    return budget.Sum<Eigen::Vector2d>(num_contacts, kGrain, [&](int begin, int end) {
      Eigen::Vector2d sum = Eigen::Vector2d::Zero();
      for (int c = begin; c < end; ++c) {
        const double t = term(contacts[c]);
        sum += Eigen::Vector2d(t, std::abs(t));
      }
      return sum;
    });
  };
  auto power = [&](double alpha) {
    ++*evaluations;
    return sum_powers([&](int i) {
      return kernels::ContactPower(model, p.stiffness[i], p.dissipation[i], p.friction[i], p.delta0[i],
                                   system.frozen_normal_forces()[i],
                                   slope_kind == LineSearchSlope::kLaggedPotential ? &system.fn()[i] : nullptr,
                                   system.vn()[i], system.vt().segment<2>(2 * i), dvn[i], dvt.segment<2>(2 * i), alpha);
    });
  };
  auto slope = [&](double alpha) { return ab[0] + alpha * ab[1] - p.time_step * power(alpha)[0]; };
  // At α = 0 both slopes' forces are the iterate's own (πᵏ is π(vᵏ)), which the residual already holds: the power
  // is Σᵢ Δvnᵢ πᵢ + Δvtᵢ·ftᵢ without evaluating the contact laws again.
  const Eigen::VectorXd& fn = system.fn();
  const Eigen::VectorXd& ft = system.ft();
  const Eigen::Vector2d power0 =
      sum_powers([&](int i) { return dvn[i] * fn[i] + dvt.segment<2>(2 * i).dot(ft.segment<2>(2 * i)); });
  double lo = 0.0, hi = 1.0;
  double f_lo = ab[0] - p.time_step * power0[0];
  if (!(f_lo < 0.0)) return 0.0;
  // A root to 1e-6 of the first slope, but not below the rounding of the sums whose difference s is: near convergence
  // Δvᵀ(M v − p*) and h Σ powerᵢ agree to many digits, and s(α) is then noise that the bracket would chase down to its
  // 1e-12 width (tens of evaluations on the robot scenes).
  const double rounding = 4 * std::numeric_limits<double>::epsilon() * (ab[2] + ab[1] + p.time_step * power0[1]);
  const double tolerance = std::max(1e-6 * -f_lo, rounding);
  if (!std::isfinite(tolerance)) return 0.0;  // the sums overflowed: no step along Δv
  double f_hi = slope(hi);
  while (f_hi <= 0.0) {
    if (hi >= max_alpha) return max_alpha;
    lo = hi;
    f_lo = f_hi;
    hi = std::min(2.0 * hi, max_alpha);
    f_hi = slope(hi);
  }
  if (f_hi <= tolerance) return hi;  // hi is a root to the tolerance already
  int side = 0;
  double alpha = 1.0;
  for (int k = 0; k < 100 && hi - lo > 1e-12; ++k) {
    alpha = (lo * f_hi - hi * f_lo) / (f_hi - f_lo);
    const double f = slope(alpha);
    if (std::abs(f) <= tolerance) break;
    if (f < 0.0) {
      lo = alpha;
      f_lo = f;
      if (side == -1) f_hi *= 0.5;
      side = -1;
    } else {
      hi = alpha;
      f_hi = f;
      if (side == 1) f_lo *= 0.5;
      side = 1;
    }
  }
  return alpha;
}

}  // namespace tamsi::internal
