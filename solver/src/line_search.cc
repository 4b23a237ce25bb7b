#include "line_search.h"

#include <algorithm>
#include <cmath>

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
  // Δvᵀ(M v − p*) and ΔvᵀMΔv over the island (its columns of M touch only its own velocities).
  const Eigen::Vector2d ab = budget.Sum<Eigen::Vector2d>(n, kGrain, [&](int begin, int end) {
    Eigen::Vector2d sum = Eigen::Vector2d::Zero();
    for (int c = begin; c < end; ++c) {
      const int j = dofs[c];
      double Mv = 0.0, Mdv = 0.0;
      for (SparseMatrix::InnerIterator it(M, j); it; ++it) {
        Mv += it.value() * v[it.row()];
        Mdv += it.value() * dv[it.row()];
      }
      sum += dv[j] * Eigen::Vector2d(Mv - p_star[j], Mdv);
    }
    return sum;
  });
  const kernels::ContactModel& model = system.model();
  auto slope = [&](double alpha) {
    ++*evaluations;
    const double power = budget.Sum<double>(num_contacts, kGrain, [&](int begin, int end) {
      double sum = 0.0;
      for (int c = begin; c < end; ++c) {
        const int i = contacts[c];
        sum += kernels::ContactPower(
            model, p.stiffness[i], p.dissipation[i], p.friction[i], p.delta0[i], system.frozen_normal_forces()[i],
            slope_kind == LineSearchSlope::kLaggedPotential ? &system.fn()[i] : nullptr, system.vn()[i],
            system.vt().segment<2>(2 * i), dvn[i], dvt.segment<2>(2 * i), alpha);
      }
      return sum;
    });
    return ab[0] + alpha * ab[1] - p.time_step * power;
  };
  double lo = 0.0, hi = 1.0;
  double f_lo = slope(lo), f_hi = slope(hi);
  if (!(f_lo < 0.0)) return 0.0;
  const double tolerance = 1e-6 * -f_lo;
  while (f_hi <= 0.0) {
    if (hi >= max_alpha) return max_alpha;
    lo = hi;
    f_lo = f_hi;
    hi = std::min(2.0 * hi, max_alpha);
    f_hi = slope(hi);
  }
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
