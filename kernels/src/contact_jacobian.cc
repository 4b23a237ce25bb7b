#include <tamsi/kernels/contact_jacobian.h>
#include <tamsi/kernels/debug_assert.h>
#include <tamsi/kernels/parallel.h>

#include <algorithm>

namespace tamsi::kernels {

namespace {
using Sparse = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;
}  // namespace

ContactJacobian::ContactJacobian(const Sparse& Jn, const Sparse& Jt)
    : num_contacts_(static_cast<int>(Jn.rows())), num_velocities_(static_cast<int>(Jn.cols())) {
  if (Jn.isCompressed() && Jt.isCompressed()) {  // kept for HasPattern
    jn_pattern_.Assign(Jn);
    jt_pattern_.Assign(Jt);
  }
  // S_i by counting sort over the columns in increasing order (so each support comes out sorted): column j joins the
  // support of every contact with an entry in it, once.
  const int nc = num_contacts_;
  std::vector<int> last(nc, -1);
  auto for_each_new_contact = [&](int j, auto&& f) {
    auto visit = [&](int i) {
      if (last[i] == j) return;
      last[i] = j;
      f(i);
    };
    for (Sparse::InnerIterator it(Jn, j); it; ++it) visit(static_cast<int>(it.row()));
    for (Sparse::InnerIterator it(Jt, j); it; ++it) visit(static_cast<int>(it.row()) / 2);
  };
  support_ptr_.assign(nc + 1, 0);
  for (int j = 0; j < num_velocities_; ++j) for_each_new_contact(j, [&](int i) { ++support_ptr_[i + 1]; });
  for (int i = 0; i < nc; ++i) support_ptr_[i + 1] += support_ptr_[i];
  support_.resize(support_ptr_[nc]);
  std::vector<int> next(support_ptr_.begin(), support_ptr_.end() - 1);
  std::fill(last.begin(), last.end(), -1);
  for (int j = 0; j < num_velocities_; ++j) for_each_new_contact(j, [&](int i) { support_[next[i]++] = j; });
  // Where each stored entry of Jn and Jt (in their own compressed order) lands in the blocks, and its value there.
  blocks_.assign(3 * support_.size(), 0.0);
  // Columns are visited in increasing order, so each contact's place in its sorted support only moves forward.
  std::vector<int> place(nc);
  auto slots = [&](const Sparse& A, int rows_per_contact, std::vector<int>* slot) {
    slot->clear();
    std::fill(place.begin(), place.end(), 0);
    for (int j = 0; j < A.outerSize(); ++j)
      for (Sparse::InnerIterator it(A, j); it; ++it) {
        const int i = static_cast<int>(it.row()) / rows_per_contact;
        const int local_row = rows_per_contact == 1 ? 0 : 1 + static_cast<int>(it.row()) % 2;
        const int* begin = support(i);
        int& a = place[i];
        while (begin[a] < j) ++a;
        TAMSI_DEBUG_ASSERT(a < support_size(i) && begin[a] == j);
        slot->push_back(3 * (support_ptr_[i] + a) + local_row);
        blocks_[slot->back()] += it.value();
      }
  };
  slots(Jn, 1, &jn_slot_);
  slots(Jt, 2, &jt_slot_);
  rows_.resize(blocks_.size());
  CalcRows();
  for (int i = 0; i < nc; ++i) {
    const int m = support_size(i);
    const int* S = support(i);
    for (int a = 0; a < m; ++a)
      if (a == 0 || S[a] != S[a - 1] + 1) run_begin_.push_back(a);
    run_begin_.push_back(m);
    run_ptr_.push_back(static_cast<int>(run_begin_.size()));
  }
  // Transpose map by counting sort, filled in increasing contact order.
  transpose_ptr_.assign(num_velocities_ + 1, 0);
  for (int col : support_) ++transpose_ptr_[col + 1];
  for (int j = 0; j < num_velocities_; ++j) transpose_ptr_[j + 1] += transpose_ptr_[j];
  transpose_entry_.resize(support_.size());
  transpose_contact_.resize(support_.size());
  next.assign(transpose_ptr_.begin(), transpose_ptr_.end() - 1);
  for (int i = 0; i < nc; ++i) {
    for (int e = support_ptr_[i]; e < support_ptr_[i + 1]; ++e) {
      const int slot = next[support_[e]]++;
      transpose_entry_[slot] = e;
      transpose_contact_[slot] = i;
    }
  }
}

bool ContactJacobian::HasPattern(const Sparse& Jn, const Sparse& Jt) const {
  return jn_pattern_.Matches(Jn) && jt_pattern_.Matches(Jt);
}

void ContactJacobian::SetValues(const Sparse& Jn, const Sparse& Jt) {
  std::fill(blocks_.begin(), blocks_.end(), 0.0);
  // Jn and Jt are compressed with the recorded patterns (HasPattern), so their k-th stored values go to slot[k].
  TAMSI_DEBUG_ASSERT(Jn.isCompressed() && Jt.isCompressed());
  auto add = [&](const Sparse& A, const std::vector<int>& slot) {
    const double* values = A.valuePtr();
    for (size_t k = 0; k < slot.size(); ++k) blocks_[slot[k]] += values[k];
  };
  add(Jn, jn_slot_);
  add(Jt, jt_slot_);
  CalcRows();
}

void ContactJacobian::CalcRows() {
  for (int i = 0; i < num_contacts_; ++i) {
    const int m = support_size(i);
    const double* column_major = blocks_.data() + 3 * support_ptr_[i];
    double* row_major = rows_.data() + 3 * support_ptr_[i];
    for (int a = 0; a < m; ++a) {
      row_major[a] = column_major[3 * a];
      row_major[m + a] = column_major[3 * a + 1];
      row_major[2 * m + a] = column_major[3 * a + 2];
    }
  }
}

void ContactJacobian::Multiply(const ThreadBudget& budget, const Eigen::VectorXd& v, Eigen::VectorXd* vn,
                               Eigen::VectorXd* vt) const {
  vn->resize(num_contacts_);
  vt->resize(2 * num_contacts_);
  budget.For(num_contacts_, 512, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      const Eigen::Vector3d c = MultiplyContact(i, v);
      (*vn)[i] = c[0];
      (*vt)[2 * i] = c[1];
      (*vt)[2 * i + 1] = c[2];
    }
  });
}

void ContactJacobian::MultiplyTranspose(const ThreadBudget& budget, const Eigen::VectorXd& fn,
                                        const Eigen::VectorXd& ft, Eigen::VectorXd* tau) const {
  tau->resize(num_velocities_);
  budget.For(num_velocities_, 512, [&](int begin, int end) {
    for (int j = begin; j < end; ++j) (*tau)[j] = MultiplyTransposeEntry(j, fn, ft);
  });
}

}  // namespace tamsi::kernels
