#include <tamsi/newton_system.h>

#include <algorithm>

namespace tamsi {

NewtonSystem::NewtonSystem(const ContactProblem& problem, bool two_way, double stiction_tolerance,
                           FrictionRegularization regularization, const kernels::ThreadBudget& budget)
    : problem_(&problem), budget_(budget), model_{problem.time_step, stiction_tolerance, regularization, two_way} {
  Reset(problem);
}

bool NewtonSystem::Reset(const ContactProblem& problem) {
  problem_ = &problem;
  model_.time_step = problem.time_step;
  CalcEffectiveMomentumBalance(problem);
  const SparseMatrix& M = *M_;
  const bool same_m = static_cast<size_t>(M.outerSize()) + 1 == m_outer_.size() &&
                      std::equal(m_outer_.begin(), m_outer_.end(), M.outerIndexPtr()) &&
                      static_cast<size_t>(M.nonZeros()) == m_inner_.size() &&
                      std::equal(m_inner_.begin(), m_inner_.end(), M.innerIndexPtr());
  const bool keep = same_m && J_.HasPattern(problem.Jn, problem.Jt);
  if (keep) {
    J_.SetValues(problem.Jn, problem.Jt);
  } else {
    J_ = kernels::ContactJacobian(problem.Jn, problem.Jt);
    pattern_ = kernels::NewtonMatrixPattern(M, J_);
    m_outer_.assign(M.outerIndexPtr(), M.outerIndexPtr() + M.outerSize() + 1);
    m_inner_.assign(M.innerIndexPtr(), M.innerIndexPtr() + M.nonZeros());
  }
  const int nc = problem.num_contacts();
  // One-way: normal forces frozen at π(δ0, vn0) of eq. 5 (h = 0 in eq. 19: no first-order update).
  pi_frozen_.setZero(nc);
  if (!model_.two_way) {
    if (problem.v0) J_.Multiply(budget_, *problem.v0, &vn_, &vt_);
    for (int i = 0; i < nc; ++i)
      pi_frozen_[i] = kernels::HuntCrossleyForce(problem.stiffness[i], problem.dissipation[i], problem.delta0[i], 0.0,
                                                 problem.v0 ? vn_[i] : 0.0)
                          .pi;
  }
  blocks_.resize(9 * nc);
  values_.resize(pattern_.nnz());
  return keep;
}

void NewtonSystem::CalcEffectiveMomentumBalance(const ContactProblem& problem) {
  const double h = problem.time_step;
  if (problem.num_constraints() == 0) {
    if (problem.M.isCompressed()) {
      M_ = &problem.M;
    } else {
      M_effective_ = problem.M;
      M_effective_.makeCompressed();
      M_ = &M_effective_;
    }
    p_star_ = &problem.p_star;
    return;
  }
  // λ = −k (g0 + h Jb v) − c Jb v is affine in v: −h Jbᵀλ = h Jbᵀ(k h + c) Jb v + h Jbᵀ(k ∘ g0).
  const Eigen::VectorXd implicit_stiffness = h * (h * problem.constraint_stiffness + problem.constraint_damping);
  const SparseMatrix JbT = problem.Jb.transpose();
  M_effective_ = problem.M + SparseMatrix(JbT * implicit_stiffness.asDiagonal() * problem.Jb);
  M_effective_.makeCompressed();
  M_ = &M_effective_;
  p_star_effective_ = problem.p_star - h * (JbT * problem.constraint_stiffness.cwiseProduct(problem.g0));
  p_star_ = &p_star_effective_;
}

Eigen::VectorXd NewtonSystem::CalcConstraintForces(const Eigen::VectorXd& v) const {
  const ContactProblem& p = *problem_;
  if (p.num_constraints() == 0) return Eigen::VectorXd();
  const Eigen::VectorXd rate = p.Jb * v;
  return -(p.constraint_stiffness.cwiseProduct(p.g0 + p.time_step * rate) + p.constraint_damping.cwiseProduct(rate));
}

void NewtonSystem::Evaluate(const Eigen::VectorXd& v, const kernels::SlidingBlock* sliding_block,
                            const Eigen::VectorXd* dual) {
  J_.Multiply(budget_, v, &vn_, &vt_);
  kernels::CalcContactForces(budget_, model_, problem_->stiffness, problem_->dissipation, problem_->friction,
                             problem_->delta0, pi_frozen_, vn_, vt_, &pi_, &ft_, &blocks_, sliding_block, dual);
  J_.MultiplyTranspose(budget_, pi_, ft_, &tau_);
  // M v for symmetric M stored in full: column j is row j, so each entry is one fixed-order dot product.
  residual_.resize(v.size());
  budget_.For(static_cast<int>(v.size()), 512, [&](int begin, int end) {
    for (int j = begin; j < end; ++j) {
      double Mv = 0.0;
      for (SparseMatrix::InnerIterator it(*M_, j); it; ++it) Mv += it.value() * v[it.row()];
      residual_[j] = Mv - (*p_star_)[j] - problem_->time_step * tau_[j];
    }
  });
}

void NewtonSystem::Assemble(Eigen::VectorXd* symmetric_part) {
  if (symmetric_part) symmetric_part->resize(pattern_.nnz());
  pattern_.Assemble(budget_, *M_, J_, problem_->time_step, blocks_, values_.data(),
                    symmetric_part ? symmetric_part->data() : nullptr);
}

SparseMatrix NewtonSystem::Jacobian() const {
  const int n = pattern_.size();
  return Eigen::Map<const SparseMatrix>(n, n, pattern_.nnz(), pattern_.col_ptr().data(), pattern_.row_index().data(),
                                        values_.data());
}

}  // namespace tamsi
