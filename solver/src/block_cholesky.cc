#include "block_cholesky.h"

#include <amd.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <string>
#include <vector>

namespace tamsi::internal {
namespace {

using Panel = Eigen::Map<Eigen::MatrixXd, 0, Eigen::OuterStride<>>;

class BlockCholesky final : public LinearSolver {
 public:
  bool Analyze(const CscView& A, std::string* message) override {
    n_ = A.n;
    FindBlocks(A);
    if (!OrderBlocks(A, message)) return false;
    FindStructure(A);
    PlanUpdates();
    PlanEntries(A);
    work_.resize(static_cast<size_t>(max_height_) * max_width_);
    y_.resize(n_);
    t_.resize(max_height_);
    return true;
  }

  bool Factor(const CscView& A, std::string* message) override {
    std::fill(values_.begin(), values_.end(), 0.0);
    for (int p = 0; p < A.col_ptr[n_]; ++p)
      if (slot_[p] >= 0) values_[slot_[p]] = A.values[p];
    for (int k = 0; k < num_blocks_; ++k) {
      Panel L = PanelOf(k);
      const int s = size_[k];
      Eigen::Ref<Eigen::MatrixXd> diagonal = L.topRows(s);
      Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(diagonal);
      if (llt.info() != Eigen::Success) {
        if (message) *message = "block Cholesky: matrix not positive definite (block " + std::to_string(k) + ")";
        return false;
      }
      auto below = L.bottomRows(height_[k] - s);
      diagonal.triangularView<Eigen::Lower>().transpose().solveInPlace<Eigen::OnTheRight>(below);
      UpdateLater(k, L);
    }
    std::copy(values_.begin(), values_.end(), single_.begin());
    return true;
  }

  bool Solve(const Eigen::VectorXd& b, Eigen::VectorXd* x, std::string*) override {
    x->resize(n_);
    for (int k = 0; k < num_blocks_; ++k)
      for (int a = 0; a < size_[k]; ++a) y_[start_[k] + a] = static_cast<float>(b[first_[k] + a]);
    SolveLower();
    SolveUpper();
    for (int k = 0; k < num_blocks_; ++k)
      for (int a = 0; a < size_[k]; ++a) (*x)[first_[k] + a] = y_[start_[k] + a];
    return true;
  }

 private:
  /// y ← L⁻¹ y, in single precision, block column by block column: the diagonal block's triangular solve, then one
  /// product with the blocks below it, subtracted from their rows of y.
  void SolveLower() {
    float* y = y_.data();
    float* t = t_.data();
    for (int k = 0; k < num_blocks_; ++k) {
      const int s = size_[k], h = height_[k], rows = h - s;
      const float* L = single_.data() + panel_ptr_[k];
      float* yk = y + start_[k];
      for (int a = 0; a < s; ++a) {
        yk[a] /= L[a * h + a];
        for (int r = a + 1; r < s; ++r) yk[r] -= L[a * h + r] * yk[a];
      }
      std::fill(t, t + rows, 0.0f);
      for (int a = 0; a < s; ++a) {
        const float* column = L + a * h + s;
        for (int r = 0; r < rows; ++r) t[r] += column[r] * yk[a];
      }
      ForEachRowBlock(k, [&](int i, int offset) {
        for (int a = 0; a < size_[i]; ++a) y[start_[i] + a] -= t[offset + a];
      });
    }
  }

  /// y ← L⁻ᵀ y, in single precision, block column by block column from the last: the rows of y below the diagonal
  /// block gathered and multiplied by the blocks' transpose, then the diagonal block's transposed triangular solve.
  void SolveUpper() {
    float* y = y_.data();
    float* t = t_.data();
    for (int k = num_blocks_ - 1; k >= 0; --k) {
      const int s = size_[k], h = height_[k], rows = h - s;
      const float* L = single_.data() + panel_ptr_[k];
      float* yk = y + start_[k];
      ForEachRowBlock(k, [&](int i, int offset) { std::copy(y + start_[i], y + start_[i] + size_[i], t + offset); });
      const Eigen::Map<const Eigen::VectorXf> gathered(t, rows);
      for (int a = 0; a < s; ++a) yk[a] -= Eigen::Map<const Eigen::VectorXf>(L + a * h + s, rows).dot(gathered);
      for (int a = s - 1; a >= 0; --a) {
        float sum = yk[a];
        for (int r = a + 1; r < s; ++r) sum -= L[a * h + r] * yk[r];
        yk[a] = sum / L[a * h + a];
      }
    }
  }

  /// Blocks of consecutive columns with one row pattern, in column order: block_start_ (num_blocks + 1).
  void FindBlocks(const CscView& A) {
    block_start_.assign(1, 0);
    auto same_pattern = [&](int a, int b) {
      const int count = A.col_ptr[a + 1] - A.col_ptr[a];
      return count == A.col_ptr[b + 1] - A.col_ptr[b] &&
             std::equal(A.row_index + A.col_ptr[a], A.row_index + A.col_ptr[a + 1], A.row_index + A.col_ptr[b]);
    };
    for (int j = 1; j < n_; ++j)
      if (!same_pattern(j - 1, j)) block_start_.push_back(j);
    if (n_ > 0) block_start_.push_back(n_);
    num_blocks_ = static_cast<int>(block_start_.size()) - 1;
    block_of_.resize(n_);
    for (int b = 0; b < num_blocks_; ++b)
      std::fill(block_of_.begin() + block_start_[b], block_of_.begin() + block_start_[b + 1], b);
  }

  /// AMD on the block graph: order_[k] is the block eliminated k-th; rank_ its inverse. Then each eliminated block's
  /// size, first column and first row in the ordered matrix.
  bool OrderBlocks(const CscView& A, std::string* message) {
    std::vector<int> graph_ptr(1, 0), graph_index;
    for (int b = 0; b < num_blocks_; ++b) {
      const int j = block_start_[b];
      for (int p = A.col_ptr[j]; p < A.col_ptr[j + 1]; ++p) {
        const int other = block_of_[A.row_index[p]];
        if (graph_index.size() == static_cast<size_t>(graph_ptr.back()) || graph_index.back() != other)
          graph_index.push_back(other);
      }
      graph_ptr.push_back(static_cast<int>(graph_index.size()));
    }
    order_.resize(num_blocks_);
    if (num_blocks_ > 0) {
      double control[AMD_CONTROL], info[AMD_INFO];
      amd_defaults(control);
      const int status = amd_order(num_blocks_, graph_ptr.data(), graph_index.data(), order_.data(), control, info);
      if (status != AMD_OK && status != AMD_OK_BUT_JUMBLED) {
        if (message) *message = "amd_order returned " + std::to_string(status);
        return false;
      }
    }
    rank_.resize(num_blocks_);
    size_.resize(num_blocks_);
    first_.resize(num_blocks_);
    start_.assign(num_blocks_ + 1, 0);
    for (int k = 0; k < num_blocks_; ++k) {
      rank_[order_[k]] = k;
      first_[k] = block_start_[order_[k]];
      size_[k] = block_start_[order_[k] + 1] - first_[k];
      start_[k + 1] = start_[k] + size_[k];
    }
    return true;
  }

  /// The blocks below each diagonal block of L (ordered indices, increasing): the blocks of A below it and those of
  /// its children in the elimination tree. Then each panel's row offsets and storage.
  void FindStructure(const CscView& A) {
    below_ptr_.assign(1, 0);
    below_.clear();
    std::vector<std::vector<int>> children(num_blocks_);
    std::vector<int> mark(num_blocks_, -1), rows;
    for (int k = 0; k < num_blocks_; ++k) {
      rows.clear();
      auto add = [&](int i) {
        if (i <= k || mark[i] == k) return;
        mark[i] = k;
        rows.push_back(i);
      };
      const int j = first_[k];
      for (int p = A.col_ptr[j]; p < A.col_ptr[j + 1]; ++p) add(rank_[block_of_[A.row_index[p]]]);
      for (int c : children[k])
        for (int e = below_ptr_[c]; e < below_ptr_[c + 1]; ++e) add(below_[e]);
      std::sort(rows.begin(), rows.end());
      if (!rows.empty()) children[rows.front()].push_back(k);
      below_.insert(below_.end(), rows.begin(), rows.end());
      below_ptr_.push_back(static_cast<int>(below_.size()));
    }
    row_offset_.resize(below_.size());
    height_.clear();
    panel_ptr_.assign(num_blocks_ + 1, 0);
    max_height_ = max_width_ = 0;
    for (int k = 0; k < num_blocks_; ++k) {
      int h = size_[k];
      for (int e = below_ptr_[k]; e < below_ptr_[k + 1]; ++e) {
        row_offset_[e] = h;
        h += size_[below_[e]];
      }
      height_.push_back(h);
      panel_ptr_[k + 1] = panel_ptr_[k] + h * size_[k];
      max_height_ = std::max(max_height_, h);
      max_width_ = std::max(max_width_, size_[k]);
    }
    values_.assign(panel_ptr_.back(), 0.0);
    single_.assign(panel_ptr_.back(), 0.0f);
  }

  /// For block column k and each block j below it, where the rows of L(·, k) from j down land in panel j: the
  /// update L(i, j) -= L(i, k) L(j, k)ᵀ for every i ≥ j below k. Every such i is j itself or a block below j.
  void PlanUpdates() {
    target_.clear();
    update_ptr_.resize(num_blocks_);
    for (int k = 0; k < num_blocks_; ++k) {
      update_ptr_[k] = static_cast<int>(target_.size());
      for (int e = below_ptr_[k]; e < below_ptr_[k + 1]; ++e) {
        const int j = below_[e];
        target_.push_back(0);  // the diagonal block of panel j
        int f = below_ptr_[j];
        for (int u = e + 1; u < below_ptr_[k + 1]; ++u) {
          while (below_[f] != below_[u]) ++f;
          target_.push_back(row_offset_[f]);
        }
      }
    }
  }

  /// Where each stored entry of A goes in the panels: the lower triangle of the ordered matrix (−1 elsewhere).
  void PlanEntries(const CscView& A) {
    slot_.assign(A.col_ptr[n_], -1);
    for (int j = 0; j < n_; ++j) {
      const int k = rank_[block_of_[j]], column = j - first_[k];
      int e = below_ptr_[k];
      for (int p = A.col_ptr[j]; p < A.col_ptr[j + 1]; ++p) {
        const int r = A.row_index[p], i = rank_[block_of_[r]];
        int row;
        if (i == k) {
          row = r - first_[k];
          if (row < column) continue;
        } else if (i > k) {
          e = static_cast<int>(std::lower_bound(below_.begin() + below_ptr_[k], below_.begin() + below_ptr_[k + 1], i) -
                               below_.begin());
          row = row_offset_[e] + r - first_[i];
        } else {
          continue;
        }
        slot_[p] = panel_ptr_[k] + column * height_[k] + row;
      }
    }
  }

  /// L(i, j) -= L(i, k) L(j, k)ᵀ for every pair of blocks i ≥ j below block k, panel j by panel j.
  void UpdateLater(int k, const Panel& L) {
    const int* target = target_.data() + update_ptr_[k];
    for (int e = below_ptr_[k]; e < below_ptr_[k + 1]; ++e) {
      const int j = below_[e], rows = height_[k] - row_offset_[e];
      Eigen::Map<Eigen::MatrixXd> product(work_.data(), rows, size_[j]);
      product.noalias() = L.middleRows(row_offset_[e], rows) * L.middleRows(row_offset_[e], size_[j]).transpose();
      Panel Lj = PanelOf(j);
      for (int u = e; u < below_ptr_[k + 1]; ++u) {
        const int i = below_[u];
        Lj.middleRows(*target++, size_[i]) -= product.middleRows(row_offset_[u] - row_offset_[e], size_[i]);
      }
    }
  }

  /// f(i, offset) for each block i below block k, offset: its first row in the panel minus the diagonal block's.
  template <typename F>
  void ForEachRowBlock(int k, F f) const {
    for (int e = below_ptr_[k]; e < below_ptr_[k + 1]; ++e) f(below_[e], row_offset_[e] - size_[k]);
  }

  Panel PanelOf(int k) {
    return Panel(values_.data() + panel_ptr_[k], height_[k], size_[k], Eigen::OuterStride<>(height_[k]));
  }

  int n_{0}, num_blocks_{0}, max_height_{0}, max_width_{0};
  std::vector<int> block_start_, block_of_;  // blocks in column order
  // Ordered blocks: order_[k] the block eliminated k-th, rank_ its inverse; size, first column of A, first row of
  // the ordered matrix (start_, num_blocks + 1).
  std::vector<int> order_, rank_, size_, first_, start_;
  // Blocks below each diagonal block (compressed rows) and their row offsets in its panel; panels' heights and
  // storage.
  std::vector<int> below_ptr_, below_, row_offset_, height_, panel_ptr_;
  // Per block column, its first entry in target_ (PlanUpdates); per stored entry of A, its place in values_.
  std::vector<int> target_, update_ptr_, slot_;
  // L's panels in double (Factor) and their single-precision copy (Solve); the products of UpdateLater.
  std::vector<double> values_, work_;
  std::vector<float> single_;
  std::vector<float> y_, t_;  // the ordered right-hand side; the rows below one diagonal block
};

}  // namespace

std::unique_ptr<LinearSolver> MakeBlockCholeskySolver() { return std::make_unique<BlockCholesky>(); }

}  // namespace tamsi::internal
