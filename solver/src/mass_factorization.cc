#include "mass_factorization.h"

#include <Eigen/Cholesky>
#include <numeric>

namespace tamsi::internal {
namespace {

int Root(std::vector<int>& parent, int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

}  // namespace

bool MassFactorization::Analyze(const SparseMatrix& M, int num_threads, std::string* message) {
  const int n = static_cast<int>(M.rows());
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  for (int j = 0; j < n; ++j)
    for (SparseMatrix::InnerIterator it(M, j); it; ++it) {
      const int a = Root(parent, static_cast<int>(it.row())), b = Root(parent, j);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  // Components numbered by their smallest velocity; their velocities listed in ascending order.
  std::vector<int> component(n, -1), size;
  for (int i = 0; i < n; ++i) {
    const int r = Root(parent, i);
    if (component[r] < 0) {
      component[r] = static_cast<int>(size.size());
      size.push_back(0);
    }
    component[i] = component[r];
    ++size[component[i]];
  }
  const int num_components = static_cast<int>(size.size());
  component_ptr_.assign(num_components + 1, 0);
  for (int k = 0; k < num_components; ++k) component_ptr_[k + 1] = component_ptr_[k] + size[k];
  dofs_.resize(n);
  local_.resize(n);
  std::vector<int> next(component_ptr_.begin(), component_ptr_.end() - 1);
  for (int i = 0; i < n; ++i) {
    const int k = component[i];
    local_[i] = next[k] - component_ptr_[k];
    dofs_[next[k]++] = i;
  }
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
  for (int k = 0; k + 1 < static_cast<int>(component_ptr_.size()); ++k) {
    const int nk = component_ptr_[k + 1] - component_ptr_[k];
    Eigen::Map<Eigen::MatrixXd> block(blocks_.data() + block_ptr_[k], nk, nk);
    for (int a = 0; a < nk; ++a) {
      const int j = dofs_[component_ptr_[k] + a];
      for (SparseMatrix::InnerIterator it(M, j); it; ++it) block(local_[it.row()], a) = it.value();
    }
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(block);  // in place: the factor overwrites the block
    if (llt.info() != Eigen::Success) {
      if (message)
        *message = "Cholesky factorization failed in the block of velocities " +
                   std::to_string(dofs_[component_ptr_[k]]) + " to " + std::to_string(dofs_[component_ptr_[k + 1] - 1]);
      return false;
    }
  }
  return true;
}

bool MassFactorization::Solve(const Eigen::VectorXd& b, Eigen::VectorXd* x, std::string* message) {
  if (sparse_) return sparse_->Solve(b, x, message);
  x->resize(b.size());
  for (int k = 0; k + 1 < static_cast<int>(component_ptr_.size()); ++k) {
    const int begin = component_ptr_[k], nk = component_ptr_[k + 1] - begin;
    const Eigen::Map<const Eigen::MatrixXd> L(blocks_.data() + block_ptr_[k], nk, nk);
    auto y = gathered_.head(nk);
    for (int a = 0; a < nk; ++a) y[a] = b[dofs_[begin + a]];
    L.triangularView<Eigen::Lower>().solveInPlace(y);
    L.triangularView<Eigen::Lower>().adjoint().solveInPlace(y);
    for (int a = 0; a < nk; ++a) (*x)[dofs_[begin + a]] = y[a];
  }
  return true;
}

}  // namespace tamsi::internal
