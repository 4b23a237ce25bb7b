#pragma once
/// @file
/// Internal: the linear-solver backends of the Newton system, split into analyze (symbolic, once per pattern),
/// factor (numeric) and solve. Every backend status is checked and turned into false + a message.

#include <tamsi/tamsi_solver.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "dense_lu.h"

namespace tamsi::internal {

/// A square n × n matrix in compressed-column form (both triangles stored), borrowed from the caller. Entry p's value
/// is values[slot(p)]: values[p], or values[value_index[p]] for a block of a larger matrix read in place (an island's
/// block of the whole system's Newton matrix). Only the block Cholesky, Schwarz and GMRES read value_index; the
/// SuiteSparse and dense backends require it null.
struct CscView {
  int n{0};
  const int* col_ptr{nullptr};
  const int* row_index{nullptr};
  const double* values{nullptr};
  const int* value_index{nullptr};

  int slot(int p) const { return value_index != nullptr ? value_index[p] : p; }
};

/// True when columns a and b of `A` have the same rows (consecutive columns of one pattern: a body's velocities).
inline bool SameColumnPattern(const CscView& A, int a, int b) {
  return A.col_ptr[a + 1] - A.col_ptr[a] == A.col_ptr[b + 1] - A.col_ptr[b] &&
         std::equal(A.row_index + A.col_ptr[a], A.row_index + A.col_ptr[a + 1], A.row_index + A.col_ptr[b]);
}

/// *dense = A as an n × n dense matrix (resized, zero outside A's pattern).
inline void ScatterToDense(const CscView& A, Eigen::MatrixXd* dense) {
  dense->setZero(A.n, A.n);
  for (int j = 0; j < A.n; ++j)
    for (int p = A.col_ptr[j]; p < A.col_ptr[j + 1]; ++p) (*dense)(A.row_index[p], j) = A.values[A.slot(p)];
}

class LinearSolver {
 public:
  virtual ~LinearSolver() = default;
  /// Symbolic analysis (fill-reducing ordering) of the pattern of `A`; values may be used as a hint only.
  virtual bool Analyze(const CscView& A, std::string* message) = 0;
  /// Numeric factorization of `A`, whose pattern must be the analyzed one. False if singular or not SPD.
  virtual bool Factor(const CscView& A, std::string* message) = 0;
  /// x = A⁻¹ b with the last factorization.
  virtual bool Solve(const Eigen::VectorXd& b, Eigen::VectorXd* x, std::string* message) = 0;
};

/// The dense backend (kDense): partial-pivoting LU (dense_lu.h) or, for a symmetric matrix, LDLᵀ, each with a
/// singularity test on its pivots. Besides a CscView it factors a matrix assembled densely (FactorMatrix).
class DenseSolver final : public LinearSolver {
 public:
  explicit DenseSolver(bool symmetric) : symmetric_(symmetric) {}
  bool Analyze(const CscView&, std::string*) override { return true; }
  bool Factor(const CscView& A, std::string* message) override;
  /// Factors *A (n × n), which it takes over: *A is left holding a buffer of the backend's to fill next time.
  bool FactorMatrix(Eigen::MatrixXd* A, std::string* message);
  bool Solve(const Eigen::VectorXd& b, Eigen::VectorXd* x, std::string* message) override;

 private:
  /// Factors dense_ in place.
  bool FactorDense(std::string* message);
  bool symmetric_;
  Eigen::MatrixXd dense_;
  DenseLu lu_;
  Eigen::LDLT<Eigen::MatrixXd> ldlt_;
};

/// kUmfpack: sparse LU, iterative refinement off. kCholmod: sparse Cholesky of the SPD matrix (upper triangle
/// read). kDense: partial-pivoting LU (dense_lu.h) (symmetric = false) or LDLᵀ (symmetric = true). kAuto is not
/// accepted. num_threads (≥ 1): the OpenMP threads CHOLMOD's calls may use (the other backends are serial).
std::unique_ptr<LinearSolver> MakeLinearSolver(LinearSolverType type, bool symmetric, int num_threads = 1);

}  // namespace tamsi::internal
