#pragma once
/// @file
/// The TAMSI Newton system at a given v: the residual (eq. 21 two-way, eq. 12 one-way), the contact forces and the
/// Newton matrix (eq. 23 two-way, eq. 17 one-way). TamsiSolver iterates on it; it is public for diagnostics, tests
/// and users who drive their own Newton loop.

#include <tamsi/contact_problem.h>
#include <tamsi/kernels/contact_jacobian.h>
#include <tamsi/kernels/contact_kernels.h>
#include <tamsi/kernels/newton_assembly.h>
#include <tamsi/kernels/sparse_pattern.h>
#include <tamsi/kernels/thread_budget.h>

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace tamsi {

/// Built once per problem structure (per-contact Jacobian blocks, the Newton matrix pattern); Reset() moves it to a
/// new problem and keeps the structure when M, Jn and Jt have the same sparsity patterns. Evaluate() and Assemble()
/// run without allocating.
class NewtonSystem {
 public:
  /// `problem` must outlive this object and be valid (ContactProblem::Validate). two_way selects eq. 21/23 over
  /// eq. 12/17. stiction_tolerance v_s (m/s) > 0.
  NewtonSystem(const ContactProblem& problem, bool two_way, double stiction_tolerance,
               FrictionRegularization regularization, const kernels::ThreadBudget& budget);

  /// Points the system at `problem` (same requirements as the constructor; same scheme and v_s). Returns true when
  /// the structure was kept (M, Jn, Jt compressed with the previous patterns: only values are refreshed), false
  /// when it was rebuilt.
  bool Reset(const ContactProblem& problem);

  /// Contact velocities, forces and residual r(v) = M v − p* − h (Jnᵀ π + Jtᵀ ft + Jbᵀ λ) (N·s) at v (nv, m/s),
  /// with the bilateral constraints' λ(v) folded into mass_matrix() and p_star() (ContactProblem::Jb).
  /// `sliding_block` (nc, or nullptr for all kTangent) and `dual` (2nc, read for kPrimalDual): how each sliding
  /// contact's block in the next Assemble() is formed (kernels::CalcContactForces); the residual depends on neither.
  void Evaluate(const Eigen::VectorXd& v, const kernels::SlidingBlock* sliding_block = nullptr,
                const Eigen::VectorXd* dual = nullptr);
  /// vn, vt, π and ft at v (nv, m/s) alone, as Evaluate() computes them, without the residual and the Newton
  /// matrix's blocks: a solution's forces. Assemble() needs an Evaluate() after it.
  void EvaluateForces(const Eigen::VectorXd& v);
  /// Fills values() with the Newton matrix ∂r/∂v at the last Evaluate()d v (with the sliding blocks asked). With
  /// `symmetric_part` (or nullptr), the same pass also fills it (on pattern(), resized to its nnz) with the Newton
  /// matrix without its W_tn term, M + h(W_nn + W_tt): the symmetric part of eq. 23 (the W_tt blocks are symmetric,
  /// W_nn is diagonal in contact space), positive definite since M is and dπ/dvn ≤ 0 (eq. 19). One-way: the Newton
  /// matrix itself (eq. 17 has no W_tn).
  void Assemble(Eigen::VectorXd* symmetric_part = nullptr);

  /// The Newton matrix's block over an island's `velocities` (n, increasing) and `contacts` (increasing) as a dense
  /// n × n matrix (`A`, resized), equal bit for bit to that block of values() after Assemble(), at the last
  /// Evaluate()d v: kernels::AssembleDenseBlock. `local` (nv): each velocity's index in its island.
  void AssembleDenseBlock(const int* velocities, int n, const int* contacts, int num_contacts, const int* local,
                          Eigen::MatrixXd* A) const;
  const Eigen::VectorXd& residual() const { return residual_; }
  /// vn (nc, m/s), vt (2nc, m/s), π (nc, N), ft (2nc, N) at the last evaluated v.
  const Eigen::VectorXd& vn() const { return vn_; }
  const Eigen::VectorXd& vt() const { return vt_; }
  const Eigen::VectorXd& fn() const { return pi_; }
  const Eigen::VectorXd& ft() const { return ft_; }

  /// Newton matrix pattern (compressed columns, both triangles) and its values after Assemble().
  const kernels::NewtonMatrixPattern& pattern() const { return pattern_; }
  const Eigen::VectorXd& values() const { return values_; }
  /// The Newton matrix as an Eigen sparse matrix (a copy: for tests and diagnostics).
  SparseMatrix Jacobian() const;

  const kernels::ContactJacobian& contact_jacobian() const { return J_; }
  const kernels::ContactModel& model() const { return model_; }
  const ContactProblem& problem() const { return *problem_; }
  /// Normal forces of the one-way scheme (frozen, nc, N); zeros for two-way.
  const Eigen::VectorXd& frozen_normal_forces() const { return pi_frozen_; }
  /// M + h Jbᵀ(k h + c)Jb and p* − h Jbᵀ(k ∘ g0): the momentum balance with the bilateral constraints' forces, which
  /// are affine in v (ContactProblem::Jb), moved to the left. M and p* themselves when there are none.
  const SparseMatrix& mass_matrix() const { return *M_; }
  /// Whether the last Reset kept mass_matrix()'s sparsity pattern (false after construction).
  bool mass_pattern_kept() const { return mass_pattern_kept_; }
  const Eigen::VectorXd& p_star() const { return *p_star_; }
  /// The bilateral constraint forces λ = −k g − c Jb v at v (nb, N or N·m), into `forces`, with g = g0 + h Jb v, and
  /// the largest |g| (each row in its unit, m or rad; 0 without constraints) into `max_violation`.
  void CalcConstraintForces(const Eigen::VectorXd& v, Eigen::VectorXd* forces, double* max_violation) const;

 private:
  const ContactProblem* problem_;
  const kernels::ThreadBudget& budget_;
  kernels::ContactModel model_;
  /// vn, vt, π, ft and (with `blocks`, 9nc, or nullptr) each contact's Newton block at v: kernels::CalcContactForces.
  void CalcForces(const Eigen::VectorXd& v, Eigen::VectorXd* blocks, const kernels::SlidingBlock* sliding_block,
                  const Eigen::VectorXd* dual);
  /// Points M_ and p_star_ at the problem's M (or its compressed copy) and p*, or at M_effective_ and
  /// p_star_effective_ when it has bilateral constraints or M's pattern is not symmetric.
  void CalcEffectiveMomentumBalance(const ContactProblem& problem);
  /// Whether the compressed M has a symmetric pattern (every stored entry's mirror stored), which the Newton matrix's
  /// pattern needs; the last pattern's verdict is kept, so a steady state checks it by comparison alone.
  bool HasSymmetricPattern(const SparseMatrix& M);
  /// The pattern of M + Mᵀ + Jbᵀ Jb and where each term of the fold lands in it (M and Jb compressed): rebuilt when M's
  /// or Jb's pattern changes (allocates), reused otherwise.
  void PlanConstraintFold(const SparseMatrix& M, const SparseMatrix& Jb);
  /// M_effective_ = M + h Jbᵀ(k h + c) Jb and p_star_effective_ = p* − h Jbᵀ(k ∘ g0) on the planned pattern, summed in
  /// a fixed order; allocates nothing.
  void FoldConstraints(const SparseMatrix& M, const SparseMatrix& Jb, const ContactProblem& problem);

  SparseMatrix M_effective_;
  SparseMatrix m_compressed_, jb_compressed_;  // compressed copies of the problem's M and Jb when they are not
  Eigen::VectorXd p_star_effective_;
  // The fold's plan: the patterns it was made for, the slot of each nonzero of M, Jb's rows (entry, column) and the
  // slot of each product Jb(r, a) Jb(r, b).
  kernels::SparsePattern fold_m_pattern_, fold_jb_pattern_;
  std::vector<int> fold_m_slot_;
  kernels::SparsePattern checked_pattern_;  // the last pattern of M checked by HasSymmetricPattern
  bool checked_symmetric_{false};           // and its verdict
  std::vector<int> jb_row_ptr_, jb_row_entry_, jb_row_col_, fold_pair_slot_;
  const SparseMatrix* M_;
  const Eigen::VectorXd* p_star_;
  kernels::ContactJacobian J_;
  kernels::NewtonMatrixPattern pattern_;
  kernels::SparsePattern m_pattern_;  // the pattern of *M_, kept for Reset
  bool mass_pattern_kept_{false};
  Eigen::VectorXd pi_frozen_, vn_, vt_, pi_, ft_, blocks_, tau_, residual_, values_;
};

}  // namespace tamsi
