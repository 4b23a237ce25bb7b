#pragma once
/// @file
/// Per-contact dense blocks of the contact Jacobian Jc = [Jn; Jt], for deterministic parallel products.

#include <tamsi/kernels/sparse_pattern.h>
#include <tamsi/kernels/thread_budget.h>

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <algorithm>
#include <vector>

namespace tamsi::kernels {

/// The contact Jacobian regrouped per contact: contact i touches the sorted generalized velocities S_i (the union of
/// the nonzero columns of its rows in Jn and Jt) and stores the dense 3 × |S_i| block Jcᵢ = [Jnᵢ; Jtᵢ] restricted to
/// them (row 0 normal, rows 1–2 tangential). Products with Jc and Jcᵀ are parallel over contacts or over velocities
/// with a fixed summation order, hence bitwise identical for any thread count.
class ContactJacobian {
 public:
  ContactJacobian() = default;
  /// Jn: nc × nv, Jt: 2nc × nv (column-major sparse).
  ContactJacobian(const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& Jn,
                  const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& Jt);

  /// True when Jn and Jt are compressed and have exactly the sparsity pattern this object was built from: then
  /// SetValues() refreshes it without rebuilding.
  bool HasPattern(const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& Jn,
                  const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& Jt) const;
  /// Refills the blocks from Jn and Jt of the same pattern, compressed (HasPattern). Allocates nothing.
  void SetValues(const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& Jn,
                 const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& Jt);

  int num_contacts() const { return num_contacts_; }
  int num_velocities() const { return num_velocities_; }
  /// |S_i|, the columns of S_i and the 3 × |S_i| column-major block of contact i.
  int support_size(int i) const { return support_ptr_[i + 1] - support_ptr_[i]; }
  const int* support(int i) const { return support_.data() + support_ptr_[i]; }
  const double* block(int i) const { return blocks_.data() + 3 * support_ptr_[i]; }
  /// The same block row-major: Jnᵢ's row, then Jtᵢ's two, |S_i| entries each.
  const double* rows(int i) const { return rows_.data() + 3 * support_ptr_[i]; }
  /// S_i as runs of consecutive velocities (a body's): run r is entries [runs(i)[r], runs(i)[r + 1]) of S_i, for r
  /// in [0, num_runs(i)); runs(i)[num_runs(i)] = |S_i|.
  int num_runs(int i) const { return run_ptr_[i + 1] - run_ptr_[i] - 1; }
  const int* runs(int i) const { return run_begin_.data() + run_ptr_[i]; }
  /// Where contact i's columns start among all contacts' (Σ|S_i| in contact order): block(i) = block(0) + 3 · this.
  int support_begin(int i) const { return support_ptr_[i]; }
  /// The contacts touching velocity j are contact_of(c) for c in [contacts_ptr(j), contacts_ptr(j + 1)), increasing.
  int contacts_ptr(int j) const { return transpose_ptr_[j]; }
  int contact_of(int c) const { return transpose_contact_[c]; }
  /// Where velocity j sits among all contacts' columns (support_begin(i) + its index in S_i), i = contact_of(c).
  int column_entry(int c) const { return transpose_entry_[c]; }
  /// True when velocities j and k are touched by exactly the same contacts (both by none included).
  bool SameContacts(int j, int k) const {
    return std::equal(
        transpose_contact_.begin() + transpose_ptr_[j], transpose_contact_.begin() + transpose_ptr_[j + 1],
        transpose_contact_.begin() + transpose_ptr_[k], transpose_contact_.begin() + transpose_ptr_[k + 1]);
  }
  /// Σᵢ |S_i|.
  int support_total() const { return support_ptr_.empty() ? 0 : support_ptr_.back(); }

  /// (vn_i, vt_2i, vt_2i+1) of contact i: Jcᵢ v.
  Eigen::Vector3d MultiplyContact(int i, const Eigen::VectorXd& v) const {
    Eigen::Vector3d c = Eigen::Vector3d::Zero();
    const double* J = block(i);
    for (int e = support_ptr_[i]; e < support_ptr_[i + 1]; ++e, J += 3)
      c += Eigen::Map<const Eigen::Vector3d>(J) * v[support_[e]];
    return c;
  }
  /// vn = Jn v (nc), vt = Jt v (2nc). Overwrites.
  void Multiply(const ThreadBudget& budget, const Eigen::VectorXd& v, Eigen::VectorXd* vn, Eigen::VectorXd* vt) const;
  /// Entry j of Jnᵀ fn + Jtᵀ ft, summed over the contacts touching j in increasing order.
  double MultiplyTransposeEntry(int j, const Eigen::VectorXd& fn, const Eigen::VectorXd& ft) const {
    double sum = 0.0;
    for (int k = transpose_ptr_[j]; k < transpose_ptr_[j + 1]; ++k) {
      const int i = transpose_contact_[k];
      const double* J = blocks_.data() + 3 * transpose_entry_[k];
      sum += J[0] * fn[i] + J[1] * ft[2 * i] + J[2] * ft[2 * i + 1];
    }
    return sum;
  }
  /// tau = Jnᵀ fn + Jtᵀ ft (nv). Overwrites.
  void MultiplyTranspose(const ThreadBudget& budget, const Eigen::VectorXd& fn, const Eigen::VectorXd& ft,
                         Eigen::VectorXd* tau) const;

 private:
  void CalcRows();

  int num_contacts_{0};
  int num_velocities_{0};
  std::vector<int> support_ptr_{0};          // nc + 1
  std::vector<int> support_;                 // Σ|S_i| velocity indices
  std::vector<double> blocks_;               // Σ 3|S_i|
  std::vector<double> rows_;                 // the blocks row-major, Σ 3|S_i|
  std::vector<int> run_ptr_{0}, run_begin_;  // runs(i) = run_begin_ + run_ptr_[i], |S_i| closing each contact's
  // Per stored entry of Jn and Jt (compressed order): its index in blocks_. Patterns kept for HasPattern.
  std::vector<int> jn_slot_, jt_slot_;
  SparsePattern jn_pattern_, jt_pattern_;
  // Transpose map: for velocity j, the entries (contact, local column) in increasing contact order.
  std::vector<int> transpose_ptr_;    // nv + 1
  std::vector<int> transpose_entry_;  // index into support_ (global local-column index)
  std::vector<int> transpose_contact_;
};

}  // namespace tamsi::kernels
