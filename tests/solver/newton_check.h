#pragma once
// Test check: how far a converged v is from the two-way TAMSI solution, measured by one exact Newton update there.

#include <tamsi/kernels/parallel.h>
#include <tamsi/newton_system.h>

#include <Eigen/SparseLU>
#include <algorithm>
#include <limits>

namespace tamsi::testing {

/// One exact Newton update of eq. 21/23 at v (sparse LU of the two-way Newton matrix, with the tangent blocks of
/// eq. 16): the largest ‖Δvt,i‖ or |Δvn,i| over contacts (m/s), the quantity the solver's convergence test bounds by
/// relative_tolerance · v_s. +∞ when the matrix cannot be factored.
inline double NewtonUpdateAt(const ContactProblem& problem, const Eigen::VectorXd& v,
                             double stiction_tolerance = 1e-4) {
  const kernels::ThreadBudget budget(1);
  NewtonSystem system(problem, /*two_way=*/true, stiction_tolerance, FrictionRegularization::kLinear, budget);
  system.Evaluate(v);
  system.Assemble();
  const SparseMatrix A = system.Jacobian();
  Eigen::SparseLU<SparseMatrix> lu(A);
  if (lu.info() != Eigen::Success) return std::numeric_limits<double>::infinity();
  const Eigen::VectorXd dv = lu.solve(-system.residual());
  const Eigen::VectorXd dvn = problem.Jn * dv, dvt = problem.Jt * dv;
  double update = dvn.size() ? dvn.cwiseAbs().maxCoeff() : 0.0;
  for (int i = 0; i < problem.num_contacts(); ++i) update = std::max(update, dvt.segment<2>(2 * i).norm());
  return update;
}

/// Central differences (step eps, m/s) of the residual r(v) of `system` at v: nv × nv, column j = ∂r/∂v_j, to compare
/// with the assembled Newton matrix (eq. 23 / eq. 17). Leaves `system` evaluated at v − eps e_last.
inline Eigen::MatrixXd ResidualFiniteDifferences(NewtonSystem& system, const Eigen::VectorXd& v, double eps = 1e-7) {
  const Eigen::Index nv = v.size();
  Eigen::MatrixXd fd(nv, nv);
  for (Eigen::Index j = 0; j < nv; ++j) {
    Eigen::VectorXd vp = v, vm = v;
    vp[j] += eps;
    vm[j] -= eps;
    system.Evaluate(vp);
    const Eigen::VectorXd rp = system.residual();
    system.Evaluate(vm);
    fd.col(j) = (rp - system.residual()) / (2 * eps);
  }
  return fd;
}

}  // namespace tamsi::testing
