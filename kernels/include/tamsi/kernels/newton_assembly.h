#pragma once
/// @file
/// Assembly of the TAMSI Newton matrix A = M + h Σᵢ Jcᵢᵀ Bᵢ Jcᵢ (eq. 17 one-way, eq. 23 two-way) from per-contact
/// blocks, in parallel and deterministically.

#include <tamsi/kernels/contact_jacobian.h>
#include <tamsi/kernels/thread_budget.h>

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <vector>

namespace tamsi::kernels {

/// The sparsity pattern of A (the union of M's pattern and the dense |S_i| × |S_i| block of every contact, full:
/// both triangles) in compressed-column form, and where each contribution lands. Built once per problem
/// structure; Assemble() then refills the values without allocating.
///
/// Assembly runs in two parallel passes: (1) per contact, Bᵢ Jcᵢ (3 × |S_i|); (2) per group
/// of consecutive columns with the same rows and contacts (a body's velocities), the contacts touching them in
/// increasing order each add their columns Kᵢ(:, b) = Jcᵢᵀ (Bᵢ Jcᵢ)(:, b) into the entries where they are stored, run
/// of rows by run of rows across the group's columns (ContactJacobian::rows(), ::runs()), then M's values are added. A
/// contact's support is a few runs of consecutive velocities (a body's six), and a run's rows sit in consecutive slots
/// of a column, so each (group, contact) pair needs one slot per run rather than one index per entry (Kᵢ itself, |S_i|²
/// per contact, is never stored). On the settled 500-body pile this takes 20 % less time than a gather of each entry's
/// contributions through two indices each (16 % fewer instructions); on the 8-velocity gripper, whose supports are runs
/// of 1, 5 and 8, it takes 12 % more instructions. No two tasks write the same entry and every sum has a fixed order,
/// so values are bitwise identical for any thread count.
class NewtonMatrixPattern {
 public:
  NewtonMatrixPattern() = default;
  /// M: nv × nv with both triangles stored; J: the contact Jacobian of the same nv. Built under `budget` in ranges
  /// fixed by nv and nc alone: the same pattern and summation order for any thread count.
  NewtonMatrixPattern(const ThreadBudget& budget, const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& M,
                      const ContactJacobian& J);

  int size() const { return static_cast<int>(col_ptr_.size()) - 1; }
  int nnz() const { return static_cast<int>(row_index_.size()); }
  const std::vector<int>& col_ptr() const { return col_ptr_; }
  const std::vector<int>& row_index() const { return row_index_; }

  /// values (nnz) = M + h Σᵢ Jcᵢᵀ Bᵢ Jcᵢ, with blocks Bᵢ (9nc, row-major 3 × 3, see CalcContactForces). M and J
  /// must be the ones the pattern was built from. With `symmetric_values` (nnz, or nullptr), the same pass also
  /// writes the matrix without the W_tn coupling, M + h Σᵢ Jcᵢᵀ B̄ᵢ Jcᵢ where B̄ᵢ is Bᵢ with its −∂ft/∂vn column
  /// (entries (1, 0), (2, 0)) zeroed: the symmetric part of eq. 23 (NewtonSystem::Assemble). Each Kᵢ differs from its
  /// symmetric counterpart by the rank-one uᵢ Jnᵢ, uᵢ = Jtᵢᵀ Bᵢ(1:2, 0), so the second output costs a fraction of a
  /// second assembly. Bitwise identical for any thread count, both outputs.
  void Assemble(const ThreadBudget& budget, const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& M,
                const ContactJacobian& J, double h, const Eigen::VectorXd& blocks, double* values,
                double* symmetric_values = nullptr);

 private:
  /// col_ptr_ and row_index_: each column's rows (M's and its contacts' supports), sorted, once each.
  void CalcColumns(const ThreadBudget& budget, const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& M,
                   const ContactJacobian& J);
  /// m_slot_, and the slots of each contact's runs (ContactJacobian::runs()) in each column of its support.
  void CalcSources(const ThreadBudget& budget, const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& M,
                   const ContactJacobian& J);

  std::vector<int> col_ptr_{0};
  std::vector<int> row_index_;
  std::vector<int> m_slot_;  // per stored entry k of M: its entry of A
  // Groups of consecutive columns with the same rows and the same contacts (a body's): group g is columns
  // [group_start_[g], group_start_[g + 1]).
  std::vector<int> group_start_;
  // Per group g and contact i touching it (ContactJacobian's transposed order of the group's first column j0): the
  // slots in column j0 of the first rows of contact i's runs, from run_slot_[slot_ptr_[g]] on.
  std::vector<int> slot_ptr_, run_slot_;
  std::vector<double> bj_;  // Bᵢ Jcᵢ, laid out as the ContactJacobian's blocks (3 per column)
  std::vector<double> u_;   // per column a of contact i: uᵢ,a = Jtᵢ(:, a) · Bᵢ(1:2, 0), for the symmetric part

  int num_groups() const { return static_cast<int>(group_start_.size()) - 1; }
};

/// One island's block of the Newton matrix M + h Σᵢ Jcᵢᵀ Bᵢ Jcᵢ (`blocks` as in NewtonMatrixPattern::Assemble) as a
/// dense n × n matrix `A` (resized), for an island factored densely: no pattern, and no gather into a dense copy.
/// `velocities` (n, increasing) and `contacts` (increasing): the island's, closed under M's and the contacts'
/// couplings; `local` (nv): each of `velocities`' index in the island. Every entry is the same sum, in the same order,
/// as NewtonMatrixPattern::Assemble's value of it (zero outside that pattern), so the two agree bit for bit.
void AssembleDenseBlock(const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& M, const ContactJacobian& J, double h,
                        const Eigen::VectorXd& blocks, const int* velocities, int n, const int* contacts,
                        int num_contacts, const int* local, Eigen::MatrixXd* A);

}  // namespace tamsi::kernels
