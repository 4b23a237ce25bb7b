#include "krylov.h"

#include <tamsi/kernels/debug_assert.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace tamsi::internal {
namespace {

/// Rows per chunk of the parallel vector operations; fixed, so sums do not depend on the thread count.
constexpr int kChunk = 4096;

int NumChunks(Eigen::Index n) { return static_cast<int>((n + kChunk - 1) / kChunk); }
/// The rows of chunk c of a vector of n rows (kChunk, or fewer in the last).
Eigen::Index ChunkRows(Eigen::Index n, int c) { return std::min<Eigen::Index>(kChunk, n - Eigen::Index{c} * kChunk); }

}  // namespace

void Gmres::Analyze(const CscView& A) {
  n_ = A.n;
  groups_.clear();
  runs_.clear();
  std::vector<int> source;  // block_values_[e] = values[source[e]]
  // Row i of A has the pattern of column i (symmetric); its entry (i, j) is stored in column j, at the row-i entry.
  std::vector<int> next(A.col_ptr, A.col_ptr + A.n);  // per column j: where its next row entry lies
  for (int first = 0; first < A.n;) {
    int rows = 1;
    while (first + rows < A.n && rows < kMaxGroupRows && SameColumnPattern(A, first, first + rows)) ++rows;
    const int begin = A.col_ptr[first], end = A.col_ptr[first + 1];
    RowGroup group{first, rows, static_cast<int>(runs_.size()), 0};
    for (int p = begin; p < end;) {
      int columns = 1;
      while (p + columns < end && A.row_index[p + columns] == A.row_index[p] + columns) ++columns;
      runs_.push_back({A.row_index[p], columns, static_cast<int>(source.size())});
      for (int c = 0; c < columns; ++c) {
        const int j = A.row_index[p + c];
        for (int a = 0; a < rows; ++a) {
          TAMSI_DEBUG_ASSERT(A.row_index[next[j]] == first + a);  // the pattern is symmetric
          source.push_back(A.slot(next[j]++));
        }
      }
      p += columns;
    }
    group.run_end = static_cast<int>(runs_.size());
    groups_.push_back(group);
    first += rows;
  }
  block_values_.resize(source.size());
  // The gather as copies of consecutive values: a row group's rows in one column are consecutive entries of it.
  gather_ptr_.assign(1, 0);
  gather_source_.clear();
  for (size_t e = 0; e < source.size(); ++e) {
    if (e == 0 || source[e] != source[e - 1] + 1) {
      if (e > 0) gather_ptr_.push_back(static_cast<int>(e));
      gather_source_.push_back(source[e]);
    }
  }
  if (!source.empty()) gather_ptr_.push_back(static_cast<int>(source.size()));
}

void Gmres::Multiply(const kernels::ThreadBudget& budget, const Eigen::VectorXd& x, Eigen::VectorXd* y) {
  y->resize(n_);
  // Each row group's rows summed in registers, run by run and column by column: each entry of x is loaded once per
  // group rather than once per row, and there is one index per run rather than per entry. Every row sums its entries
  // in column order, whatever the partition.
  auto multiply_group = [&](const RowGroup& g, auto rows) {
    double sum[kMaxGroupRows] = {};
    for (int r = g.run_begin; r < g.run_end; ++r) {
      const ColumnRun& run = runs_[r];
      const double* block = block_values_.data() + run.offset;
      for (int c = 0; c < run.columns; ++c, block += rows) {
        const double xc = x[run.first_column + c];
        for (int a = 0; a < rows; ++a) sum[a] += block[a] * xc;
      }
    }
    for (int a = 0; a < rows; ++a) (*y)[g.first_row + a] = sum[a];
  };
  budget.For(static_cast<int>(groups_.size()), kChunk / 8, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      const RowGroup& g = groups_[i];
      if (g.rows == 6)
        multiply_group(g, std::integral_constant<int, 6>());
      else
        multiply_group(g, g.rows);
    }
  });
}

double Gmres::Orthogonalize(const kernels::ThreadBudget& budget, int k, Eigen::VectorXd* h) {
  const Eigen::Index n = w_.size();
  const int chunks = NumChunks(n);
  auto rows_of = [n](int c) { return ChunkRows(n, c); };
  auto sum_partials = [&](Eigen::VectorXd* sum) {
    sum->head(k).setZero();
    for (int c = 0; c < chunks; ++c) sum->head(k) += partial_.col(c).head(k);
  };
  // h = Vᵀ w.
  budget.For(chunks, 1, [&](int begin, int end) {
    for (int c = begin; c < end; ++c) {
      const Eigen::Index first = Eigen::Index{c} * kChunk;
      partial_.col(c).head(k).noalias() =
          basis_.block(first, 0, rows_of(c), k).transpose() * w_.segment(first, rows_of(c));
    }
  });
  sum_partials(h);
  // w ← w − V h and h2 = Vᵀ w, chunk by chunk while its rows of V are in cache.
  budget.For(chunks, 1, [&](int begin, int end) {
    for (int c = begin; c < end; ++c) {
      const Eigen::Index first = Eigen::Index{c} * kChunk;
      const auto V = basis_.block(first, 0, rows_of(c), k);
      w_.segment(first, rows_of(c)).noalias() -= V * h->head(k);
      partial_.col(c).head(k).noalias() = V.transpose() * w_.segment(first, rows_of(c));
    }
  });
  sum_partials(&h2_);
  h->head(k) += h2_.head(k);
  // w ← w − V h2 and ‖w‖².
  budget.For(chunks, 1, [&](int begin, int end) {
    for (int c = begin; c < end; ++c) {
      const Eigen::Index first = Eigen::Index{c} * kChunk;
      w_.segment(first, rows_of(c)).noalias() -= basis_.block(first, 0, rows_of(c), k) * h2_.head(k);
      partial_(0, c) = w_.segment(first, rows_of(c)).squaredNorm();
    }
  });
  double sum = 0.0;
  for (int c = 0; c < chunks; ++c) sum += partial_(0, c);
  return std::sqrt(sum);
}

double Gmres::Norm(const kernels::ThreadBudget& budget, const Eigen::VectorXd& x) {
  const Eigen::Index n = x.size();
  const int chunks = NumChunks(n);
  budget.For(chunks, 1, [&](int begin, int end) {
    for (int c = begin; c < end; ++c) {
      const Eigen::Index first = Eigen::Index{c} * kChunk;
      partial_(0, c) = x.segment(first, ChunkRows(n, c)).squaredNorm();
    }
  });
  double sum = 0.0;
  for (int c = 0; c < chunks; ++c) sum += partial_(0, c);
  return std::sqrt(sum);
}

void Gmres::ReserveWorkspaces(int m) {
  if (basis_.rows() == n_ && hessenberg_.cols() >= m) return;
  basis_.resize(n_, m + 1);
  preconditioned_.resize(n_, m);
  hessenberg_.resize(m + 1, m);
  partial_.resize(m + 1, NumChunks(n_));
  cosines_.resize(m);
  sines_.resize(m);
  g_.resize(m + 1);
  y_.resize(m);
  h_.resize(m + 1);
  h2_.resize(m + 1);
}

bool Gmres::Solve(const kernels::ThreadBudget& budget, const double* values, const Preconditioner& precondition,
                  int max_iterations, double tolerance, const Eigen::VectorXd& b, Eigen::VectorXd* x, int* iterations) {
  const int n = n_;
  const int m = max_iterations;
  ReserveWorkspaces(m);
  g_.head(m + 1).setZero();
  x->setZero(n);
  *iterations = 0;
  // A's values by row groups (one gather per solve), so that every product below streams through memory.
  budget.For(static_cast<int>(gather_source_.size()), kChunk / 8, [&](int begin, int end) {
    for (int q = begin; q < end; ++q) {
      const double* from = values + gather_source_[q];
      std::copy(from, from + (gather_ptr_[q + 1] - gather_ptr_[q]), block_values_.data() + gather_ptr_[q]);
    }
  });
  const double beta = Norm(budget, b);
  if (!(beta > 0.0)) return std::isfinite(beta);
  basis_.col(0) = b / beta;
  g_[0] = beta;
  int k = 0;  // Krylov dimension reached
  bool converged = false;
  while (k < m && !converged) {
    // w = A zₖ with zₖ = P⁻¹ vₖ (kept for x), orthogonalized twice against v₀ … vₖ (CGS2).
    v_ = basis_.col(k);
    if (!precondition(v_, &z_)) return false;
    preconditioned_.col(k) = z_;
    Multiply(budget, z_, &w_);
    const double norm = Orthogonalize(budget, k + 1, &h_);
    hessenberg_.col(k).head(k + 1) = h_.head(k + 1);
    hessenberg_(k + 1, k) = norm;
    if (norm > 0.0) basis_.col(k + 1) = w_ / norm;
    // Previous rotations on the new column, then the rotation that zeroes its subdiagonal entry.
    for (int i = 0; i < k; ++i) {
      const double a = hessenberg_(i, k), c = hessenberg_(i + 1, k);
      hessenberg_(i, k) = cosines_[i] * a + sines_[i] * c;
      hessenberg_(i + 1, k) = -sines_[i] * a + cosines_[i] * c;
    }
    const double a = hessenberg_(k, k), c = hessenberg_(k + 1, k);
    const double r = std::hypot(a, c);
    cosines_[k] = r > 0.0 ? a / r : 1.0;
    sines_[k] = r > 0.0 ? c / r : 0.0;
    hessenberg_(k, k) = r;
    hessenberg_(k + 1, k) = 0.0;
    g_[k + 1] = -sines_[k] * g_[k];
    g_[k] *= cosines_[k];
    ++k;
    // |g_k| is the residual norm of the least-squares solution; a zero subdiagonal means the solution is exact.
    converged = std::abs(g_[k]) <= tolerance * beta || norm == 0.0;
  }
  *iterations = k;
  // y = R⁻¹ g (back substitution), x = P⁻¹ V y = Z y.
  for (int i = k - 1; i >= 0; --i) {
    double sum = g_[i];
    for (int j = i + 1; j < k; ++j) sum -= hessenberg_(i, j) * y_[j];
    y_[i] = sum / hessenberg_(i, i);
  }
  const int chunks = NumChunks(n);
  budget.For(chunks, 1, [&](int begin, int end) {
    for (int c = begin; c < end; ++c) {
      const Eigen::Index first = Eigen::Index{c} * kChunk, rows = ChunkRows(n, c);
      x->segment(first, rows).noalias() = preconditioned_.block(first, 0, rows, k) * y_.head(k);
    }
  });
  return converged && x->allFinite();
}

}  // namespace tamsi::internal
