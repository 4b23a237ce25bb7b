#include "linear_solver.h"

#include <cholmod.h>
#include <klu.h>
#include <omp.h>
#include <tamsi/kernels/debug_assert.h>
#include <umfpack.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace tamsi::internal {
namespace {

class UmfpackSolver final : public LinearSolver {
 public:
  UmfpackSolver() {
    umfpack_di_defaults(control_);
    control_[UMFPACK_PRL] = 0;
    control_[UMFPACK_IRSTEP] = 0;  // Refinement makes solves 3.5–15× slower and Newton corrects anyway.
  }
  ~UmfpackSolver() override { Release(); }

  bool Analyze(const CscView& A, std::string* message) override {
    Release();
    n_ = A.n;
    const int status = umfpack_di_symbolic(A.n, A.n, A.col_ptr, A.row_index, A.values, &symbolic_, control_, info_);
    return Check(status, "umfpack_di_symbolic", message);
  }

  bool Factor(const CscView& A, std::string* message) override {
    TAMSI_DEBUG_ASSERT(A.value_index == nullptr);
    if (numeric_) umfpack_di_free_numeric(&numeric_);
    col_ptr_ = A.col_ptr;
    row_index_ = A.row_index;
    values_ = A.values;
    const int status = umfpack_di_numeric(A.col_ptr, A.row_index, A.values, symbolic_, &numeric_, control_, info_);
    return Check(status, "umfpack_di_numeric", message);
  }

  bool Solve(const Eigen::VectorXd& b, Eigen::VectorXd* x, std::string* message) override {
    x->resize(n_);
    const int status =
        umfpack_di_solve(UMFPACK_A, col_ptr_, row_index_, values_, x->data(), b.data(), numeric_, control_, info_);
    return Check(status, "umfpack_di_solve", message);
  }

 private:
  static bool Check(int status, const char* call, std::string* message) {
    if (status == UMFPACK_OK) return true;
    if (message) {
      *message = std::string(call) + " returned " + std::to_string(status) +
                 (status == UMFPACK_WARNING_singular_matrix ? " (singular matrix)"
                  : status == UMFPACK_ERROR_out_of_memory   ? " (out of memory)"
                                                            : "");
    }
    return false;
  }
  void Release() {
    if (numeric_) umfpack_di_free_numeric(&numeric_);
    if (symbolic_) umfpack_di_free_symbolic(&symbolic_);
  }
  int n_{0};
  void* symbolic_{nullptr};
  void* numeric_{nullptr};
  const int* col_ptr_{nullptr};
  const int* row_index_{nullptr};
  const double* values_{nullptr};
  double control_[UMFPACK_CONTROL];
  double info_[UMFPACK_INFO];
};

class KluSolver final : public LinearSolver {
 public:
  KluSolver() {
    klu_defaults(&common_);
    common_.halt_if_singular = 1;
  }
  ~KluSolver() override { Release(); }

  bool Analyze(const CscView& A, std::string* message) override {
    Release();
    n_ = A.n;
    symbolic_ = klu_analyze(A.n, const_cast<int*>(A.col_ptr), const_cast<int*>(A.row_index), &common_);
    return symbolic_ != nullptr || Fail("klu_analyze", message);
  }

  bool Factor(const CscView& A, std::string* message) override {
    TAMSI_DEBUG_ASSERT(A.value_index == nullptr);
    int* p = const_cast<int*>(A.col_ptr);
    int* i = const_cast<int*>(A.row_index);
    double* x = const_cast<double*>(A.values);
    // Refactor with the previous pivot sequence (no allocation); pivot afresh when that fails or the reciprocal
    // condition estimate says the old pivots no longer fit the values.
    if (numeric_ && klu_refactor(p, i, x, symbolic_, numeric_, &common_) && common_.status == KLU_OK &&
        klu_rcond(symbolic_, numeric_, &common_) && common_.rcond > kMinRcond) {
      return true;
    }
    if (numeric_) klu_free_numeric(&numeric_, &common_);
    numeric_ = klu_factor(p, i, x, symbolic_, &common_);
    if (!numeric_ || common_.status != KLU_OK) return Fail("klu_factor", message);
    if (!klu_rcond(symbolic_, numeric_, &common_) || !(common_.rcond > kMinRcond)) {
      if (message)
        *message = "klu_factor: matrix singular to working precision (rcond " + std::to_string(common_.rcond) + ")";
      return false;
    }
    return true;
  }

  bool Solve(const Eigen::VectorXd& b, Eigen::VectorXd* x, std::string* message) override {
    *x = b;
    return klu_solve(symbolic_, numeric_, n_, 1, x->data(), &common_) || Fail("klu_solve", message);
  }

 private:
  static constexpr double kMinRcond = 1e-13;
  bool Fail(const char* call, std::string* message) const {
    if (message) {
      *message = std::string(call) + " failed with KLU status " + std::to_string(common_.status) +
                 (common_.status == KLU_SINGULAR ? " (singular matrix)" : "");
    }
    return false;
  }
  void Release() {
    if (numeric_) klu_free_numeric(&numeric_, &common_);
    if (symbolic_) klu_free_symbolic(&symbolic_, &common_);
  }
  int n_{0};
  klu_common common_;
  klu_symbolic* symbolic_{nullptr};
  klu_numeric* numeric_{nullptr};
};

// CHOLMOD 3 (SuiteSparse 5) runs parts of its supernodal factorization and solves in OpenMP regions sized by
// OpenMP's default, one thread per core, whatever thread budget the caller gave tamsi. Those threads spin-wait on
// each other: on 2 cores with one of them busy elsewhere, a 3,000-velocity pile matrix took 440 ms to factor instead
// of 5 ms with one thread; next to TBB's own workers they oversubscribe the cores. So CHOLMOD's calls run with the
// backend's thread count (the solver's budget for an island that dominates the problem, else 1) and dynamic
// adjustment on, set for the calling thread during the call and restored after: the caller's own OpenMP is unchanged.
class ScopedOmpThreads {
 public:
  explicit ScopedOmpThreads(int num_threads) : threads_(omp_get_max_threads()), dynamic_(omp_get_dynamic()) {
    omp_set_num_threads(num_threads);
    omp_set_dynamic(1);
  }
  ~ScopedOmpThreads() {
    omp_set_num_threads(threads_);
    omp_set_dynamic(dynamic_);
  }
  ScopedOmpThreads(const ScopedOmpThreads&) = delete;
  ScopedOmpThreads& operator=(const ScopedOmpThreads&) = delete;

 private:
  int threads_;
  int dynamic_;
};

// CHOLMOD factors the matrix it is given in its own permuted lower-triangular form; handed A with a fill-reducing
// ordering, every cholmod_factorize first builds tril(PAPᵀ) by a permuted transpose (5–6 % of a pile run's time). So
// Analyze finds the ordering P once (CHOLMOD's own choice, postordered) with its symbolic factor, which is the symbolic
// factor of T = tril(PAPᵀ) in natural order, and builds the pattern of T with the place in A of each of its entries;
// Factor gathers T's values and factors T as it is (CHOLMOD's transpose-free path), and Solve permutes b and x around
// the solve with T.
class CholmodSolver final : public LinearSolver {
 public:
  explicit CholmodSolver(int num_threads) : num_threads_(num_threads) {
    cholmod_start(&common_);
    common_.print = 0;
    common_.error_handler = nullptr;
    common_.final_ll = 1;  // simplicial factorizations LLᵀ too: LDLᵀ would factor an indefinite matrix silently
    common_.nmethods = 0;  // CHOLMOD's default orderings, postordered
    common_.postorder = 1;
  }
  ~CholmodSolver() override {
    if (factor_) cholmod_free_factor(&factor_, &common_);
    if (x_) cholmod_free_dense(&x_, &common_);
    if (y_) cholmod_free_dense(&y_, &common_);
    if (e_) cholmod_free_dense(&e_, &common_);
    cholmod_finish(&common_);
  }

  bool Analyze(const CscView& A, std::string* message) override {
    if (factor_) cholmod_free_factor(&factor_, &common_);
    cholmod_sparse view = SymmetricView(A.n, A.col_ptr, A.row_index, A.values, 1);
    factor_ = cholmod_analyze(&view, &common_);
    if (!factor_ || common_.status < CHOLMOD_OK) return Fail("cholmod_analyze", message);
    // The symbolic factor is that of T = tril(PAPᵀ) in natural order: record P, then let CHOLMOD take T as given, so
    // that cholmod_factorize reads it in place instead of permuting and transposing A in every factorization.
    int* perm = static_cast<int*>(factor_->Perm);
    permutation_.assign(perm, perm + A.n);
    std::iota(perm, perm + A.n, 0);
    factor_->ordering = CHOLMOD_NATURAL;
    BuildPermutedLower(A);
    rhs_.resize(A.n);
    return true;
  }

  bool Factor(const CscView& A, std::string* message) override {
    TAMSI_DEBUG_ASSERT(A.value_index == nullptr);
    for (size_t k = 0; k < lower_values_.size(); ++k) lower_values_[k] = A.values[lower_source_[k]];
    cholmod_sparse lower = LowerView(A.n);
    const ScopedOmpThreads threads(num_threads_);
    const int ok = cholmod_factorize(&lower, factor_, &common_);
    if (!ok || common_.status < CHOLMOD_OK) return Fail("cholmod_factorize", message);
    if (common_.status == CHOLMOD_NOT_POSDEF || factor_->minor < factor_->n) {
      if (message) {
        const int column = factor_->minor < factor_->n ? permutation_[factor_->minor] : static_cast<int>(factor_->n);
        *message = "cholmod_factorize: matrix not positive definite (column " + std::to_string(column) + ")";
      }
      return false;
    }
    return true;
  }

  bool Solve(const Eigen::VectorXd& b, Eigen::VectorXd* x, std::string* message) override {
    const int n = static_cast<int>(b.size());
    for (int i = 0; i < n; ++i) rhs_[i] = b[permutation_[i]];
    cholmod_dense rhs{};
    rhs.nrow = rhs.d = static_cast<size_t>(n);
    rhs.ncol = 1;
    rhs.nzmax = rhs.nrow;
    rhs.x = rhs_.data();
    rhs.xtype = CHOLMOD_REAL;
    rhs.dtype = CHOLMOD_DOUBLE;
    // cholmod_solve2 reuses x_, y_, e_ across calls: no allocation at steady state.
    const ScopedOmpThreads threads(num_threads_);
    if (!cholmod_solve2(CHOLMOD_A, factor_, &rhs, nullptr, &x_, nullptr, &y_, &e_, &common_))
      return Fail("cholmod_solve2", message);
    const double* y = static_cast<const double*>(x_->x);
    x->resize(n);
    for (int i = 0; i < n; ++i) (*x)[permutation_[i]] = y[i];
    return true;
  }

 private:
  // A symmetric CHOLMOD matrix on borrowed compressed columns (sorted rows): stype 1 reads the upper triangle, −1 the
  // lower one.
  static cholmod_sparse SymmetricView(int n, const int* col_ptr, const int* row_index, const double* values,
                                      int stype) {
    cholmod_sparse view{};
    view.nrow = view.ncol = static_cast<size_t>(n);
    view.nzmax = static_cast<size_t>(col_ptr[n]);
    view.p = const_cast<int*>(col_ptr);
    view.i = const_cast<int*>(row_index);
    view.x = const_cast<double*>(values);
    view.stype = stype;
    view.itype = CHOLMOD_INT;
    view.xtype = CHOLMOD_REAL;
    view.dtype = CHOLMOD_DOUBLE;
    view.sorted = 1;
    view.packed = 1;
    return view;
  }
  // T = tril(PAPᵀ), T(i, j) = A(p_i, p_j), from A's upper triangle: compressed columns with sorted rows, and for
  // each entry of T the index of its value in A.
  void BuildPermutedLower(const CscView& A) {
    const int n = A.n;
    std::vector<int> inverse(n);
    for (int i = 0; i < n; ++i) inverse[permutation_[i]] = i;
    lower_col_ptr_.assign(n + 1, 0);
    for (int j = 0; j < n; ++j)
      for (int p = A.col_ptr[j]; p < A.col_ptr[j + 1]; ++p)
        if (A.row_index[p] <= j) ++lower_col_ptr_[std::min(inverse[A.row_index[p]], inverse[j]) + 1];
    for (int j = 0; j < n; ++j) lower_col_ptr_[j + 1] += lower_col_ptr_[j];
    const int nnz = lower_col_ptr_[n];
    lower_row_index_.resize(nnz);
    lower_source_.resize(nnz);
    lower_values_.assign(nnz, 0.0);
    std::vector<int> next(lower_col_ptr_.begin(), lower_col_ptr_.end() - 1);
    for (int j = 0; j < n; ++j) {
      for (int p = A.col_ptr[j]; p < A.col_ptr[j + 1]; ++p) {
        if (A.row_index[p] > j) continue;
        const int a = inverse[A.row_index[p]], b = inverse[j];  // entry (a, b) of PAPᵀ: in T at (max, min)
        const int slot = next[std::min(a, b)]++;
        TAMSI_DEBUG_ASSERT(slot < lower_col_ptr_[std::min(a, b) + 1]);
        lower_row_index_[slot] = std::max(a, b);
        lower_source_[slot] = p;
      }
    }
    std::vector<std::pair<int, int>> column;
    for (int j = 0; j < n; ++j) {
      column.clear();
      for (int k = lower_col_ptr_[j]; k < lower_col_ptr_[j + 1]; ++k)
        column.emplace_back(lower_row_index_[k], lower_source_[k]);
      std::sort(column.begin(), column.end());
      for (size_t k = 0; k < column.size(); ++k)
        std::tie(lower_row_index_[lower_col_ptr_[j] + k], lower_source_[lower_col_ptr_[j] + k]) = column[k];
    }
  }
  cholmod_sparse LowerView(int n) {  // T
    return SymmetricView(n, lower_col_ptr_.data(), lower_row_index_.data(), lower_values_.data(), -1);
  }
  bool Fail(const char* call, std::string* message) const {
    if (message) *message = std::string(call) + " failed with CHOLMOD status " + std::to_string(common_.status);
    return false;
  }
  std::vector<int> permutation_;  // P: T(i, j) = A(permutation_[i], permutation_[j])
  std::vector<int> lower_col_ptr_, lower_row_index_, lower_source_;
  std::vector<double> lower_values_;
  std::vector<double> rhs_;
  int num_threads_;
  cholmod_common common_;
  cholmod_factor* factor_{nullptr};
  cholmod_dense* x_{nullptr};
  cholmod_dense* y_{nullptr};
  cholmod_dense* e_{nullptr};
};

}  // namespace

bool DenseSolver::Factor(const CscView& A, std::string* message) {
  TAMSI_DEBUG_ASSERT(A.value_index == nullptr);
  ScatterToDense(A, &dense_);
  return FactorDense(message);
}

bool DenseSolver::FactorMatrix(Eigen::MatrixXd* A, std::string* message) {
  dense_.swap(*A);
  return FactorDense(message);
}

bool DenseSolver::FactorDense(std::string* message) {
  // Singularity test on the pivots (largest over smallest magnitude): Eigen's rcond() estimate allocates.
  double smallest = 0.0, largest = 0.0;
  bool singular = false;
  if (symmetric_) {
    ldlt_.compute(dense_);
    if (ldlt_.info() != Eigen::Success || !ldlt_.isPositive()) {
      if (message) *message = "dense LDLT: matrix not positive definite";
      return false;
    }
    smallest = ldlt_.vectorD().cwiseAbs().minCoeff();
    largest = ldlt_.vectorD().cwiseAbs().maxCoeff();
    singular = !(smallest > kSingularPivotRatio * largest);
  } else {
    singular = !lu_.Factor(&dense_);
    smallest = lu_.smallest_pivot();
    largest = lu_.largest_pivot();
  }
  if (singular) {
    if (message)
      *message = "dense factorization: matrix singular to working precision (pivots from " + std::to_string(smallest) +
                 " to " + std::to_string(largest) + ")";
    return false;
  }
  return true;
}

bool DenseSolver::Solve(const Eigen::VectorXd& b, Eigen::VectorXd* x, std::string*) {
  if (symmetric_) {
    *x = ldlt_.solve(b);
  } else {
    *x = b;
    lu_.SolveInPlace(dense_, x);
  }
  return true;
}

std::unique_ptr<LinearSolver> MakeLinearSolver(LinearSolverType type, bool symmetric, int num_threads) {
  switch (type) {
    case LinearSolverType::kUmfpack:
      return std::make_unique<UmfpackSolver>();
    case LinearSolverType::kCholmod:
      return std::make_unique<CholmodSolver>(num_threads);
    case LinearSolverType::kKlu:
      return std::make_unique<KluSolver>();
    case LinearSolverType::kDense:
      return std::make_unique<DenseSolver>(symmetric);
    case LinearSolverType::kAuto:
      break;
  }
  throw std::logic_error("MakeLinearSolver: resolve kAuto before calling");
}

}  // namespace tamsi::internal
