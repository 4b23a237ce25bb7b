#include "mass_factorization.h"

#include <Eigen/Cholesky>
#include <algorithm>

namespace tamsi::internal {

bool MassFactorization::Analyze(const SparseMatrix& M, int num_threads, std::string* message) {
  const int n = static_cast<int>(M.rows());
  components_ = FindComponents(n, M.outerIndexPtr(), M.innerIndexPtr());
  const int num_components = components_.count;
  std::vector<int> size(num_components);
  for (int k = 0; k < num_components; ++k) size[k] = components_.ptr[k + 1] - components_.ptr[k];
  const int largest = num_components == 0 ? 0 : *std::max_element(size.begin(), size.end());
  sparse_.reset();
  block_ptr_.clear();
  blocks_.clear();
  if (largest > kDenseLimit) {
    sparse_ = MakeLinearSolver(LinearSolverType::kCholmod, /*symmetric=*/true, num_threads);
    return sparse_->Analyze({n, M.outerIndexPtr(), M.innerIndexPtr(), M.valuePtr()}, message);
  }
  block_ptr_.assign(num_components + 1, 0);
  for (int k = 0; k < num_components; ++k) block_ptr_[k + 1] = block_ptr_[k] + size[k] * size[k];
  blocks_.resize(block_ptr_.back());
  gathered_.resize(largest);
  return true;
}

bool MassFactorization::Factor(const SparseMatrix& M, std::string* message) {
  const int n = static_cast<int>(M.rows());
  if (sparse_) return sparse_->Factor({n, M.outerIndexPtr(), M.innerIndexPtr(), M.valuePtr()}, message);
  std::fill(blocks_.begin(), blocks_.end(), 0.0);
  const Components& c = components_;
  for (int k = 0; k < c.count; ++k) {
    const int nk = c.ptr[k + 1] - c.ptr[k];
    Eigen::Map<Eigen::MatrixXd> block(blocks_.data() + block_ptr_[k], nk, nk);
    for (int a = 0; a < nk; ++a) {
      const int j = c.members[c.ptr[k] + a];
      for (SparseMatrix::InnerIterator it(M, j); it; ++it) block(c.local[it.row()], a) = it.value();
    }
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(block);  // in place: the factor overwrites the block
    if (llt.info() != Eigen::Success) {
      if (message)
        *message = "Cholesky factorization failed in the block of velocities " + std::to_string(c.members[c.ptr[k]]) +
                   " to " + std::to_string(c.members[c.ptr[k + 1] - 1]);
      return false;
    }
  }
  return true;
}

bool MassFactorization::Solve(const Eigen::VectorXd& b, Eigen::VectorXd* x, std::string* message) {
  if (sparse_) return sparse_->Solve(b, x, message);
  x->resize(b.size());
  const Components& c = components_;
  for (int k = 0; k < c.count; ++k) {
    const int begin = c.ptr[k], nk = c.ptr[k + 1] - begin;
    const Eigen::Map<const Eigen::MatrixXd> L(blocks_.data() + block_ptr_[k], nk, nk);
    auto y = gathered_.head(nk);
    for (int a = 0; a < nk; ++a) y[a] = b[c.members[begin + a]];
    L.triangularView<Eigen::Lower>().solveInPlace(y);
    L.triangularView<Eigen::Lower>().adjoint().solveInPlace(y);
    for (int a = 0; a < nk; ++a) (*x)[c.members[begin + a]] = y[a];
  }
  return true;
}

}  // namespace tamsi::internal
