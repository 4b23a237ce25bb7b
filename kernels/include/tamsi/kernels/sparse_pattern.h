#pragma once
/// @file
/// A compressed sparse matrix's pattern, kept to tell whether a later matrix has the same one: what was built from
/// the pattern is then kept and only values are refreshed.

#include <Eigen/SparseCore>
#include <algorithm>
#include <vector>

namespace tamsi::kernels {

class SparsePattern {
 public:
  using Matrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

  /// Records A's shape, column starts and row indices (A compressed).
  void Assign(const Matrix& A) {
    rows_ = A.rows();
    outer_.assign(A.outerIndexPtr(), A.outerIndexPtr() + A.outerSize() + 1);
    inner_.assign(A.innerIndexPtr(), A.innerIndexPtr() + A.nonZeros());
  }
  /// True when A is compressed with exactly the recorded shape and pattern; false before any Assign.
  bool Matches(const Matrix& A) const {
    return A.isCompressed() && A.rows() == rows_ && static_cast<size_t>(A.outerSize()) + 1 == outer_.size() &&
           std::equal(outer_.begin(), outer_.end(), A.outerIndexPtr()) &&
           static_cast<size_t>(A.nonZeros()) == inner_.size() &&
           std::equal(inner_.begin(), inner_.end(), A.innerIndexPtr());
  }

 private:
  Eigen::Index rows_{-1};
  std::vector<int> outer_, inner_;
};

}  // namespace tamsi::kernels
