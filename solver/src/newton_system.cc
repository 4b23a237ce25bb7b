#include <tamsi/kernels/parallel.h>
#include <tamsi/newton_system.h>

#include <algorithm>
#include <cmath>

namespace tamsi {

namespace {

/// Position of entry (row, col) in the compressed column `col` of A (which must hold it).
int Slot(const SparseMatrix& A, int row, int col) {
  const int* begin = A.innerIndexPtr() + A.outerIndexPtr()[col];
  const int* end = A.innerIndexPtr() + A.outerIndexPtr()[col + 1];
  return static_cast<int>(std::lower_bound(begin, end, row) - A.innerIndexPtr());
}

/// A itself when it is compressed, else its compressed copy in *copy: the fold and the factorizations read the
/// arrays entry by entry (an uncompressed matrix has free slots between its columns).
const SparseMatrix& Compressed(const SparseMatrix& A, SparseMatrix* copy) {
  if (A.isCompressed()) return A;
  *copy = A;
  copy->makeCompressed();
  return *copy;
}

/// Whether every stored entry (i, j) of the compressed A has its mirror (j, i) stored. Columns are visited in
/// increasing order, so the mirrors in column i are met in the order they are stored there.
bool IsStructurallySymmetric(const SparseMatrix& A) {
  const int* outer = A.outerIndexPtr();
  const int* inner = A.innerIndexPtr();
  std::vector<int> next(outer, outer + A.outerSize());  // per column: its next entry to be met as a mirror
  for (int j = 0; j < A.outerSize(); ++j)
    for (int p = outer[j]; p < outer[j + 1]; ++p) {
      int& q = next[inner[p]];
      if (q == outer[inner[p] + 1] || inner[q] != j) return false;
      ++q;
    }
  return true;
}

}  // namespace

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
  mass_pattern_kept_ = m_pattern_.Matches(M);
  const bool keep = mass_pattern_kept_ && J_.HasPattern(problem.Jn, problem.Jt);
  if (keep) {
    J_.SetValues(problem.Jn, problem.Jt);
  } else {
    J_ = kernels::ContactJacobian(problem.Jn, problem.Jt);
    pattern_ = kernels::NewtonMatrixPattern(budget_, M, J_);
    m_pattern_.Assign(M);
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
  const SparseMatrix& M = Compressed(problem.M, &m_compressed_);
  if (problem.num_constraints() == 0 && HasSymmetricPattern(M)) {
    M_ = &M;
    p_star_ = &problem.p_star;
    return;
  }
  const bool empty_jb = problem.Jb.cols() != M.cols();  // no constraints: Jb may be 0 × 0, folded as 0 × nv
  if (empty_jb && (jb_compressed_.rows() != 0 || jb_compressed_.cols() != M.cols())) jb_compressed_.resize(0, M.cols());
  const SparseMatrix& Jb = empty_jb ? jb_compressed_ : Compressed(problem.Jb, &jb_compressed_);
  if (!fold_m_pattern_.Matches(M) || !fold_jb_pattern_.Matches(Jb)) PlanConstraintFold(M, Jb);
  FoldConstraints(M, Jb, problem);
  M_ = &M_effective_;
  p_star_ = &p_star_effective_;
}

bool NewtonSystem::HasSymmetricPattern(const SparseMatrix& M) {
  if (checked_pattern_.Matches(M)) return checked_symmetric_;
  checked_pattern_.Assign(M);
  checked_symmetric_ = IsStructurallySymmetric(M);
  return checked_symmetric_;
}

void NewtonSystem::PlanConstraintFold(const SparseMatrix& M, const SparseMatrix& Jb) {
  // The pattern of M + Mᵀ + Jbᵀ Jb, from all-ones copies (no numerical cancellation can drop an entry); Mᵀ adds the
  // mirrors ContactProblem lets M leave out (entries below its symmetry tolerance).
  SparseMatrix ones_m = M, ones_b = Jb;
  ones_m.coeffs().setOnes();
  ones_b.coeffs().setOnes();
  M_effective_ = ones_m + SparseMatrix(ones_m.transpose()) + SparseMatrix(SparseMatrix(ones_b.transpose()) * ones_b);
  M_effective_.makeCompressed();
  fold_m_pattern_.Assign(M);
  fold_jb_pattern_.Assign(Jb);
  fold_m_slot_.resize(M.nonZeros());
  for (int j = 0; j < M.outerSize(); ++j)
    for (int k = M.outerIndexPtr()[j]; k < M.outerIndexPtr()[j + 1]; ++k)
      fold_m_slot_[k] = Slot(M_effective_, M.innerIndexPtr()[k], j);
  // Jb by rows: each row's entries (their positions in Jb's values, in column order), then every product pair's slot.
  const int nb = static_cast<int>(Jb.rows());
  jb_row_ptr_.assign(nb + 1, 0);
  for (int k = 0; k < Jb.nonZeros(); ++k) ++jb_row_ptr_[Jb.innerIndexPtr()[k] + 1];
  for (int r = 0; r < nb; ++r) jb_row_ptr_[r + 1] += jb_row_ptr_[r];
  jb_row_entry_.resize(Jb.nonZeros());
  jb_row_col_.resize(Jb.nonZeros());
  std::vector<int> next(jb_row_ptr_.begin(), jb_row_ptr_.end() - 1);
  for (int j = 0; j < Jb.outerSize(); ++j)
    for (int k = Jb.outerIndexPtr()[j]; k < Jb.outerIndexPtr()[j + 1]; ++k) {
      const int at = next[Jb.innerIndexPtr()[k]]++;
      jb_row_entry_[at] = k;
      jb_row_col_[at] = j;
    }
  fold_pair_slot_.clear();
  for (int r = 0; r < nb; ++r)
    for (int a = jb_row_ptr_[r]; a < jb_row_ptr_[r + 1]; ++a)
      for (int b = jb_row_ptr_[r]; b < jb_row_ptr_[r + 1]; ++b)
        fold_pair_slot_.push_back(Slot(M_effective_, jb_row_col_[a], jb_row_col_[b]));
}

void NewtonSystem::FoldConstraints(const SparseMatrix& M, const SparseMatrix& Jb, const ContactProblem& problem) {
  // λ = −k (g0 + h Jb v) − c Jb v is affine in v: −h Jbᵀλ = h Jbᵀ(k h + c) Jb v + h Jbᵀ(k ∘ g0).
  const double h = problem.time_step;
  const double* jb = Jb.valuePtr();
  double* values = M_effective_.valuePtr();
  std::fill(values, values + M_effective_.nonZeros(), 0.0);
  for (size_t k = 0; k < fold_m_slot_.size(); ++k) values[fold_m_slot_[k]] += M.valuePtr()[k];
  p_star_effective_ = problem.p_star;
  size_t pair = 0;
  for (int r = 0; r < problem.num_constraints(); ++r) {
    const double weight = h * (h * problem.constraint_stiffness[r] + problem.constraint_damping[r]);
    const double load = h * problem.constraint_stiffness[r] * problem.g0[r];
    for (int a = jb_row_ptr_[r]; a < jb_row_ptr_[r + 1]; ++a) {
      const double ja = jb[jb_row_entry_[a]];
      p_star_effective_[jb_row_col_[a]] -= load * ja;
      for (int b = jb_row_ptr_[r]; b < jb_row_ptr_[r + 1]; ++b)
        values[fold_pair_slot_[pair++]] += weight * ja * jb[jb_row_entry_[b]];
    }
  }
}

void NewtonSystem::CalcConstraintForces(const Eigen::VectorXd& v, Eigen::VectorXd* forces,
                                        double* max_violation) const {
  const ContactProblem& p = *problem_;
  forces->resize(p.num_constraints());
  forces->setZero();
  for (int j = 0; j < p.Jb.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(p.Jb, j); it; ++it) (*forces)[it.row()] += it.value() * v[j];  // ġ = Jb v
  *max_violation = 0.0;
  for (int r = 0; r < p.num_constraints(); ++r) {
    const double rate = (*forces)[r], g = p.g0[r] + p.time_step * rate;
    *max_violation = std::max(*max_violation, std::abs(g));
    (*forces)[r] = -(p.constraint_stiffness[r] * g + p.constraint_damping[r] * rate);
  }
}

void NewtonSystem::Evaluate(const Eigen::VectorXd& v, const kernels::SlidingBlock* sliding_block,
                            const Eigen::VectorXd* dual) {
  CalcForces(v, &blocks_, sliding_block, dual);
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

void NewtonSystem::EvaluateForces(const Eigen::VectorXd& v) { CalcForces(v, nullptr, nullptr, nullptr); }

void NewtonSystem::CalcForces(const Eigen::VectorXd& v, Eigen::VectorXd* blocks,
                              const kernels::SlidingBlock* sliding_block, const Eigen::VectorXd* dual) {
  J_.Multiply(budget_, v, &vn_, &vt_);
  kernels::CalcContactForces(budget_, model_, problem_->stiffness, problem_->dissipation, problem_->friction,
                             problem_->delta0, pi_frozen_, vn_, vt_, &pi_, &ft_, blocks, sliding_block, dual);
}

void NewtonSystem::Assemble(Eigen::VectorXd* symmetric_part) {
  if (symmetric_part) symmetric_part->resize(pattern_.nnz());
  pattern_.Assemble(budget_, *M_, J_, problem_->time_step, blocks_, values_.data(),
                    symmetric_part ? symmetric_part->data() : nullptr);
}

void NewtonSystem::AssembleDenseBlock(const int* velocities, int n, const int* contacts, int num_contacts,
                                      const int* local, Eigen::MatrixXd* A) const {
  kernels::AssembleDenseBlock(*M_, J_, problem_->time_step, blocks_, velocities, n, contacts, num_contacts, local, A);
}

SparseMatrix NewtonSystem::Jacobian() const {
  const int n = pattern_.size();
  return Eigen::Map<const SparseMatrix>(n, n, pattern_.nnz(), pattern_.col_ptr().data(), pattern_.row_index().data(),
                                        values_.data());
}

}  // namespace tamsi
