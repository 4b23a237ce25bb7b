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
  const SparseMatrix& M = problem.M;
  const bool same_m = M.isCompressed() && static_cast<size_t>(M.outerSize()) + 1 == m_outer_.size() &&
                      std::equal(m_outer_.begin(), m_outer_.end(), M.outerIndexPtr()) &&
                      static_cast<size_t>(M.nonZeros()) == m_inner_.size() &&
                      std::equal(m_inner_.begin(), m_inner_.end(), M.innerIndexPtr());
  const bool keep = same_m && J_.HasPattern(problem.Jn, problem.Jt);
  if (M.isCompressed()) {
    M_ = &M;
  } else {
    M_compressed_ = M;
    M_compressed_.makeCompressed();
    M_ = &M_compressed_;
  }
  if (keep) {
    J_.SetValues(problem.Jn, problem.Jt);
  } else {
    J_ = kernels::ContactJacobian(problem.Jn, problem.Jt);
    pattern_ = kernels::NewtonMatrixPattern(*M_, J_);
    m_outer_.clear();
    m_inner_.clear();
    if (M.isCompressed()) {
      m_outer_.assign(M.outerIndexPtr(), M.outerIndexPtr() + M.outerSize() + 1);
      m_inner_.assign(M.innerIndexPtr(), M.innerIndexPtr() + M.nonZeros());
    }
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
      residual_[j] = Mv - problem_->p_star[j] - problem_->time_step * tau_[j];
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
