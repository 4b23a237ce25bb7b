#include <tamsi/kernels/contact_jacobian.h>

#include <algorithm>

namespace tamsi::kernels {

namespace {
using Sparse = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;
using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;
}  // namespace

ContactJacobian::ContactJacobian(const Sparse& Jn, const Sparse& Jt)
    : num_contacts_(static_cast<int>(Jn.rows())), num_velocities_(static_cast<int>(Jn.cols())) {
  const RowSparse n_rows = Jn;
  const RowSparse t_rows = Jt;
  const int nc = num_contacts_;
  support_ptr_.assign(nc + 1, 0);
  support_.clear();
  std::vector<int> cols;
  for (int i = 0; i < nc; ++i) {
    cols.clear();
    for (RowSparse::InnerIterator it(n_rows, i); it; ++it) cols.push_back(it.col());
    for (int r = 2 * i; r < 2 * i + 2; ++r)
      for (RowSparse::InnerIterator it(t_rows, r); it; ++it) cols.push_back(it.col());
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    support_.insert(support_.end(), cols.begin(), cols.end());
    support_ptr_[i + 1] = static_cast<int>(support_.size());
  }
  blocks_.assign(3 * support_.size(), 0.0);
  for (int i = 0; i < nc; ++i) {
    const int* begin = support(i);
    const int* end = begin + support_size(i);
    double* J = blocks_.data() + 3 * support_ptr_[i];
    auto put = [&](int local_row, int col, double value) {
      const int a = static_cast<int>(std::lower_bound(begin, end, col) - begin);
      J[3 * a + local_row] += value;
    };
    for (RowSparse::InnerIterator it(n_rows, i); it; ++it) put(0, it.col(), it.value());
    for (int t = 0; t < 2; ++t)
      for (RowSparse::InnerIterator it(t_rows, 2 * i + t); it; ++it) put(1 + t, it.col(), it.value());
  }
  // Transpose map by counting sort, filled in increasing contact order.
  transpose_ptr_.assign(num_velocities_ + 1, 0);
  for (int col : support_) ++transpose_ptr_[col + 1];
  for (int j = 0; j < num_velocities_; ++j) transpose_ptr_[j + 1] += transpose_ptr_[j];
  transpose_entry_.resize(support_.size());
  transpose_contact_.resize(support_.size());
  std::vector<int> next(transpose_ptr_.begin(), transpose_ptr_.end() - 1);
  for (int i = 0; i < nc; ++i) {
    for (int e = support_ptr_[i]; e < support_ptr_[i + 1]; ++e) {
      const int slot = next[support_[e]]++;
      transpose_entry_[slot] = e;
      transpose_contact_[slot] = i;
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
    for (int j = begin; j < end; ++j) {
      double sum = 0.0;
      for (int k = transpose_ptr_[j]; k < transpose_ptr_[j + 1]; ++k) {
        const int i = transpose_contact_[k];
        const double* J = blocks_.data() + 3 * transpose_entry_[k];
        sum += J[0] * fn[i] + J[1] * ft[2 * i] + J[2] * ft[2 * i + 1];
      }
      (*tau)[j] = sum;
    }
  });
}

}  // namespace tamsi::kernels
