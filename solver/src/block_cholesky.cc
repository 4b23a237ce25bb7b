#include "block_cholesky.h"

#include <amd.h>
#include <cblas.h>
#include <tamsi/kernels/parallel.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "panel_product.h"
#include "subdomains.h"

namespace tamsi::internal {
namespace {

template <typename T>
using Panel = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>, 0, Eigen::OuterStride<>>;

/// The most columns a supernode merges, and the rows of one update product (whole blocks, at least one): a diagonal
/// block this small keeps Eigen's LLT in its stack buffers, and an update product (PanelProduct), at most kTileRows ×
/// kMaxWidth entries (PlanUpdates), fits a buffer on the stack, so that a factorization allocates nothing; updates
/// are still products of rank up to 64 instead of 6.
constexpr int kMaxWidth = 64;
constexpr int kTileRows = 64;
static_assert(kTileRows >= kMaxWidth, "a group of one block of kMaxWidth rows must fit the product buffer");
/// A parallel factorization cuts the elimination tree into subtrees of at most 1/kSubtrees of its flops each
/// (PlanSchedule).
constexpr double kSubtrees = 64.0;
/// A supernode's panel is updated and solved in row chunks of at least this many rows (PlanChunks), in parallel for
/// the supernodes above the subtrees.
constexpr int kChunkRows = 128;
/// How far ahead of the panel it reads the first kSingle solve fetches the next panels (bytes): that solve reads the
/// subdomains' panels front to back from the shared cache (all of them, 27 MB in float at N = 10,000, between two
/// applications of the preconditioner), and fetching ahead made the preconditioner's applications 35–40 % faster there.
constexpr std::ptrdiff_t kPrefetchBytes = 4096;
template <typename T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <typename T>
using ConstPanel = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>, 0, Eigen::OuterStride<>>;

/// The triangular solves of a factorization in its precision (its products: PanelProduct).
inline void TrsmRightLowerTrans(int m, int n, const double* a, int lda, double* b, int ldb) {
  cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, m, n, 1.0, a, lda, b, ldb);
}
/// In float by Eigen's blocked triangular solve rather than OpenBLAS's strsm, whose calls cost more at these sizes (w
/// of 6 to 64 columns): the N = 500 pile's dumped steps solved 2 % faster (bench/README.md); in double dtrsm was the
/// faster.
inline void TrsmRightLowerTrans(int m, int n, const float* a, int lda, float* b, int ldb) {
  using FloatPanel = Eigen::Map<Eigen::MatrixXf, 0, Eigen::OuterStride<>>;
  FloatPanel below(b, m, n, Eigen::OuterStride<>(ldb));
  const FloatPanel diagonal(const_cast<float*>(a), n, n, Eigen::OuterStride<>(lda));
  diagonal.triangularView<Eigen::Lower>().transpose().solveInPlace<Eigen::OnTheRight>(below);
}
inline void TrmmRightLowerNegated(int m, int n, const double* a, int lda, double* b, int ldb) {
  cblas_dtrmm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, m, n, -1.0, a, lda, b, ldb);
}

/// out = P x for a column-major h × w panel P (column stride h), 16 rows at a time summed in registers across the
/// columns (Eigen's column-major product adds into out column group by column group; at these sizes, tens of rows
/// and a few to 64 columns, it made the N = 10,000 pile's preconditioner applications 8 % slower).
template <typename T>
void PanelTimes(const T* P, int h, int w, const T* x, T* out) {
  constexpr int kRows = 16;
  int first = 0;
  for (; first + kRows <= h; first += kRows) {
    T sum[kRows] = {};
    const T* column = P + first;
    for (int a = 0; a < w; ++a, column += h)
      for (int r = 0; r < kRows; ++r) sum[r] += column[r] * x[a];
    std::copy(sum, sum + kRows, out + first);
  }
  const int rest = h - first;
  if (rest == 0) return;
  T sum[kRows] = {};
  const T* column = P + first;
  for (int a = 0; a < w; ++a, column += h)
    for (int r = 0; r < rest; ++r) sum[r] += column[r] * x[a];
  for (int r = 0; r < rest; ++r) out[first + r] = sum[r];
}

/// What the solves read and write in precision T, besides the panels: the reciprocals of L's diagonal (ordered rows;
/// kDouble's triangular solves), the ordered right-hand side, and one supernode's rows (the rows below it, or for
/// kSingle's inverted panels its own and those below it).
template <typename T>
struct SolveWorkspace {
  /// The diagonal's reciprocals (the triangular solves on L; the inverted panels need none), y in the ordered rows,
  /// and room for one supernode's rows below its diagonal block: for the triangular solves one per task of the
  /// factorization (PlanSchedule), each task's own, for the inverted panels' one.
  std::vector<T> inverse_diagonal, y, t;
  /// The forward solve's products of the rows below a supernode that lie above the subtrees, kept for their
  /// supernodes to pull (PlanSolves, kept_ptr_).
  std::vector<T> below;
};

/// The factorization in precision F (double or float). `inverted`: the solves run on a float copy of the panels in
/// partitioned-inverse form (F = double: kSingleInverted); else by triangular solves on L in F (kDouble, kSingle).
template <typename F>
class BlockCholesky final : public BlockCholeskySolver {
 public:
  explicit BlockCholesky(bool inverted) : inverted_(inverted) {}

  bool Analyze(const CscView& A, std::string* message) override {
    n_ = A.n;
    FindBlocks(A);
    if (!OrderBlocks(A, message)) return false;
    FindStructure(A);
    FindSupernodes();
    PlanSchedule();
    PlanChunks();
    PlanUpdates();
    PlanSolves();
    PlanEntries(A);
    return true;
  }

  /// EstimateCholeskyFlops: the blocks and AMD's order alone, no supernodes or panels.
  double EstimateFlops(const CscView& A) {
    n_ = A.n;
    FindBlocks(A);
    return OrderBlocks(A, nullptr) ? estimated_flops_ : std::numeric_limits<double>::infinity();
  }

  bool Factor(const CscView& A, std::string* message) override { return FactorOn(nullptr, A, message); }

  bool Factor(const kernels::ThreadBudget& budget, const CscView& A, std::string* message) override {
    return FactorOn(budget.num_threads() > 1 ? &budget : nullptr, A, message);
  }

  bool Solve(const Eigen::VectorXd& b, Eigen::VectorXd* x, std::string*) override {
    x->resize(n_);
    SolveOn(
        nullptr, [&](int j) { return b[j]; }, x->data());
    return true;
  }

  bool Solve(const kernels::ThreadBudget& budget, const Eigen::VectorXd& b, Eigen::VectorXd* x, std::string*) override {
    x->resize(n_);
    SolveOn(
        budget.num_threads() > 1 ? &budget : nullptr, [&](int j) { return b[j]; }, x->data());
    return true;
  }

  void SolveGathered(const Eigen::VectorXd& r, const int* rows, double* x) override {
    SolveOn(
        nullptr, [&](int j) { return r[rows[j]]; }, x);
  }

 private:
  /// A's values scattered into the panels, then every supernode after its descendants (FactorSupernode): in order
  /// on one thread, or, given `budget`, as PlanSchedule's tasks: the subtrees, each in order, and the supernodes above
  /// them, each by row chunks in parallel. A supernode's arithmetic does not depend on the order (the same products,
  /// each entry's updates summed in its descendants' order), so L is bitwise the same for any thread count, and so is
  /// the first supernode that fails.
  bool FactorOn(const kernels::ThreadBudget* budget, const CscView& A, std::string* message) {
    std::fill(values_.begin(), values_.end(), F{0});
    for (size_t e = 0; e < entry_slot_.size(); ++e)
      values_[entry_slot_[e]] = static_cast<F>(A.values[entry_source_[e]]);
    int failed = num_supernodes_;
    if (budget == nullptr) {
      for (int t = 0; t < num_supernodes_ && failed == num_supernodes_; ++t)
        if (!FactorSupernode(t)) failed = t;
    } else {
      std::atomic<int> first_failed{num_supernodes_};
      auto fail = [&](int t) {
        int seen = first_failed.load();
        while (t < seen && !first_failed.compare_exchange_weak(seen, t)) {
        }
      };
      budget->ForTree(static_cast<int>(task_parent_.size()), task_parent_.data(), task_children_.data(), pending_.get(),
                      [&](int task) {
                        ForTaskNodes(task, false, [&](int t, bool top) {
                          if (!FactorSupernode(t, top ? budget : nullptr)) fail(t);
                        });
                      });
      failed = first_failed.load();
    }
    if (failed < num_supernodes_) {
      if (message) *message = "block Cholesky: matrix not positive definite (supernode " + std::to_string(failed) + ")";
      return false;
    }
    if (inverted_) {
      if constexpr (std::is_same_v<F, double>) {  // kSingleInverted
        for (int s = 0; s < num_supernodes_; ++s) {
          Panel<F> L = PanelOf(s);
          InvertPanel(L);
        }
      }
      std::copy(values_.begin(), values_.end(), single_.begin());
    }
    return true;
  }

  /// Supernode t, whose descendants are factored: its row chunks updated, its diagonal block factored (false when
  /// not positive definite), its row chunks below the diagonal block solved against it; the chunks in order, or in
  /// parallel on `budget` when given.
  bool FactorSupernode(int t, const kernels::ThreadBudget* budget = nullptr) {
    const int first = chunk_ptr_[t], chunks = chunk_ptr_[t + 1] - first;
    auto for_chunks = [&](auto&& f) {
      if (budget == nullptr)
        f(0, chunks);
      else
        budget->For(chunks, 1, f);
    };
    for_chunks([&](int begin, int end) {
      F work[kTileRows * kMaxWidth];
      for (int k = first + begin; k < first + end; ++k) UpdateChunk(k, work);
    });
    if (!FactorDiagonal(t)) return false;
    for_chunks([&](int begin, int end) {
      for (int k = first + begin; k < first + end; ++k) SolveChunk(k);
    });
    return true;
  }

  /// Row chunk k of a supernode's panel: the updates of the descendants' groups into it (ApplyGroup), in their order.
  void UpdateChunk(int k, F* work) {
    for (int p = chunk_group_ptr_[k]; p < chunk_group_ptr_[k + 1]; ++p) ApplyGroup(chunk_group_[p], work);
  }

  /// Supernode t's diagonal block by Eigen's LLT, and the reciprocals of its diagonal for the triangular solves.
  bool FactorDiagonal(int t) {
    Panel<F> L = PanelOf(t);
    using Dense = Eigen::Matrix<F, Eigen::Dynamic, Eigen::Dynamic>;
    Eigen::Ref<Dense> diagonal = L.topRows(width(t));
    Eigen::LLT<Eigen::Ref<Dense>> llt(diagonal);
    if (llt.info() != Eigen::Success) return false;
    if (!inverted_)
      for (int a = 0; a < width(t); ++a) workspace_.inverse_diagonal[first_row_[t] + a] = F{1} / diagonal(a, a);
    return true;
  }

  /// Row chunk k's rows below its supernode's diagonal block: L21 ← L21 L11⁻ᵀ.
  void SolveChunk(int k) {
    const int t = chunk_node_[k], w = width(t), h = height_[t];
    const int first = std::max(chunk_row_[k], w), end = ChunkEnd(k);
    if (end > first)
      TrsmRightLowerTrans(end - first, w, values_.data() + panel_ptr_[t], h, values_.data() + panel_ptr_[t] + first, h);
  }

  /// x = A⁻¹ b: b (its entry j: b_of(j)) in the ordered rows, the two triangular solves (on L in F, or on the
  /// inverted float copy), back in A's columns at x[0, n).
  template <typename B>
  void SolveOn(const kernels::ThreadBudget* budget, const B& b_of, double* x) {
    if (inverted_) {
      SolveInverted(b_of, x);
      return;
    }
    SolveWorkspace<F>& work = workspace_;
    for (int r = 0; r < n_; ++r) work.y[r] = static_cast<F>(b_of(column_of_row_[r]));
    SolveLower(budget, &work);
    SolveUpper(budget, &work);
    for (int r = 0; r < n_; ++r) x[column_of_row_[r]] = work.y[r];
  }

  /// The inverted panels' solves (kSingleInverted, the Schwarz subdomains: many small factorizations, each solved on
  /// one thread).
  template <typename B>
  void SolveInverted(const B& b_of, double* x) {
    SolveWorkspace<float>& work = single_workspace_;
    for (int r = 0; r < n_; ++r) work.y[r] = static_cast<float>(b_of(column_of_row_[r]));
    SolveLowerInverted(single_.data(), &work);
    SolveUpperInverted(single_.data(), &work);
    for (int r = 0; r < n_; ++r) x[column_of_row_[r]] = work.y[r];
  }

  /// y ← L⁻¹ y supernode by supernode (SolveLowerNode): in order on one thread, or, given `budget`, as the
  /// factorization's tasks (PlanSchedule), each after its children. Each supernode's arithmetic does not depend on the
  /// order (PlanSolves), so y is bitwise the same for any thread count.
  void SolveLower(const kernels::ThreadBudget* budget, SolveWorkspace<F>* work) {
    if (budget == nullptr) {
      for (int s = 0; s < num_supernodes_; ++s) SolveLowerNode<false>(s, work->t.data(), work);
      return;
    }
    budget->ForTree(static_cast<int>(task_parent_.size()), task_parent_.data(), task_children_.data(), pending_.get(),
                    [&](int task) {
                      F* t = work->t.data() + static_cast<size_t>(task) * max_height_;
                      ForTaskNodes(task, false, [&](int s, bool) { SolveLowerNode<true>(s, t, work); });
                    });
  }

  /// y ← L⁻ᵀ y supernode by supernode from the last (SolveUpperNode): in that order on one thread, or, given
  /// `budget`, the tasks level by level from the root of the task tree (each after its parent), a subtree's
  /// supernodes from its root down.
  void SolveUpper(const kernels::ThreadBudget* budget, SolveWorkspace<F>* work) {
    if (budget == nullptr) {
      for (int s = num_supernodes_ - 1; s >= 0; --s) SolveUpperNode(s, work->t.data(), work);
      return;
    }
    for (size_t level = 0; level + 1 < levels_.ptr.size(); ++level) {
      const int first = levels_.ptr[level];
      budget->For(levels_.ptr[level + 1] - first, 1, [&](int begin, int end) {
        for (int i = first + begin; i < first + end; ++i) {
          const int task = levels_.items[i];
          F* t = work->t.data() + static_cast<size_t>(task) * max_height_;
          ForTaskNodes(task, true, [&](int s, bool) { SolveUpperNode(s, t, work); });
        }
      });
    }
  }

  /// f(s, top) for the supernodes of a task (PlanSchedule): a subtree's in order (`reverse`: from its root down), or
  /// the one supernode of a task above the subtrees (top).
  template <typename Visit>
  void ForTaskNodes(int task, bool reverse, Visit f) const {
    const int num_subtrees = static_cast<int>(subtree_ptr_.size()) - 1;
    if (task >= num_subtrees) {
      f(top_node_[task - num_subtrees], true);
    } else if (reverse) {
      for (int p = subtree_ptr_[task + 1] - 1; p >= subtree_ptr_[task]; --p) f(subtree_node_[p], false);
    } else {
      for (int p = subtree_ptr_[task]; p < subtree_ptr_[task + 1]; ++p) f(subtree_node_[p], false);
    }
  }

  /// Supernode s's part of y ← L⁻¹ y, its descendants done: the dense triangular solve of its diagonal block (by the
  /// diagonal's reciprocals: a division's latency would set the pace), then the product of its rows below with its
  /// rows of y, in `t` (its task's), subtracted from their rows of y. With kPull (tasks in parallel), only the rows
  /// within its own subtree are subtracted at once; the rest is kept in work->below, and a supernode above the
  /// subtrees first subtracts what its descendants kept for it, in their order (PlanSolves). Either way each row of y
  /// receives the same subtractions in the same order (its sources' ascending), so y is bitwise the same.
  template <bool kPull>
  void SolveLowerNode(int s, F* t, SolveWorkspace<F>* work) {
    F* y = work->y.data();
    if constexpr (kPull) {
      for (int q = pull_ptr_[s]; q < pull_ptr_[s + 1]; ++q) {
        const int k = pull_block_[q];
        F* to = y + start_[k];
        const F* from = work->below.data() + pull_from_[q];
        for (int a = 0; a < size_[k]; ++a) to[a] -= from[a];
      }
    }
    const int w = width(s), h = height_[s];
    const F* L = values_.data() + panel_ptr_[s];
    F* ys = y + first_row_[s];
    const F* inverse = work->inverse_diagonal.data() + first_row_[s];
    for (int a = 0; a < w; ++a) {
      ys[a] *= inverse[a];
      const F ya = ys[a];
      const F* column = L + a * h;
      for (int r = a + 1; r < w; ++r) ys[r] -= column[r] * ya;
    }
    if (h == w) return;
    Eigen::Map<Vector<F>>(t, h - w).noalias() =
        ConstPanel<F>(L + w, h - w, w, Eigen::OuterStride<>(h)) * Eigen::Map<const Vector<F>>(ys, w);
    const int last = supernode_start_[s + 1] - 1, end = below_ptr_[last + 1];
    int e = below_ptr_[last];
    for (const int push_end = kPull ? push_end_[s] : end; e < push_end; ++e) {
      const int k = below_[e];
      F* to = y + start_[k];
      const F* from = t + row_offset_[e] - w;
      for (int a = 0; a < size_[k]; ++a) to[a] -= from[a];
    }
    if (e < end) std::copy(t + row_offset_[e] - w, t + h - w, work->below.data() + kept_ptr_[s]);
  }

  /// Supernode s's part of y ← L⁻ᵀ y, its ancestors done: its rows below gathered from y into `t` (its task's), their
  /// product with the transpose of its rows below subtracted from its rows of y, then the diagonal block's transposed
  /// solve.
  void SolveUpperNode(int s, F* t, SolveWorkspace<F>* work) {
    F* y = work->y.data();
    const int w = width(s), h = height_[s];
    const F* L = values_.data() + panel_ptr_[s];
    F* ys = y + first_row_[s];
    if (h > w) {
      ForEachRowBlock(s, [&](int k, int offset) { std::copy(y + start_[k], y + start_[k] + size_[k], t + offset); });
      Eigen::Map<Vector<F>>(ys, w).noalias() -=
          ConstPanel<F>(L + w, h - w, w, Eigen::OuterStride<>(h)).transpose() * Eigen::Map<const Vector<F>>(t, h - w);
    }
    const F* inverse = work->inverse_diagonal.data() + first_row_[s];
    for (int a = w - 1; a >= 0; --a) {
      const F* column = L + a * h;
      F sum = ys[a];
      for (int r = a + 1; r < w; ++r) sum -= column[r] * ys[r];
      ys[a] = sum * inverse[a];
    }
  }

  /// SolveLower with the inverted panels of kSingle: with the supernode's panel [L11⁻¹; −L21 L11⁻¹] (InvertPanel), one
  /// product gives both its own rows, L11⁻¹ y_s, and what to add to the rows below it, −L21 (L11⁻¹ y_s).
  template <typename T>
  void SolveLowerInverted(const T* panels, SolveWorkspace<T>* work) const {
    T* y = work->y.data();
    const char* bytes = reinterpret_cast<const char*>(panels);
    const std::ptrdiff_t panel_bytes = std::ptrdiff_t{sizeof(T)} * panel_ptr_[num_supernodes_];
    std::ptrdiff_t prefetched = 0;
    for (int s = 0; s < num_supernodes_; ++s) {
      const int w = width(s), h = height_[s];
      T* ys = y + first_row_[s];
      T* t = work->t.data();
      const std::ptrdiff_t ahead =
          std::min(std::ptrdiff_t{sizeof(T)} * panel_ptr_[s + 1] + kPrefetchBytes, panel_bytes);
      for (; prefetched < ahead; prefetched += 64) __builtin_prefetch(bytes + prefetched);
      PanelTimes(panels + panel_ptr_[s], h, w, ys, t);
      std::copy(t, t + w, ys);
      ForEachRowBlock(s, [&](int k, int offset) {
        for (int a = 0; a < size_[k]; ++a) y[start_[k] + a] += t[w + offset + a];
      });
    }
  }

  /// SolveUpper with the inverted panels of kSingle, from the last supernode: y_s ← L11⁻ᵀ (y_s − L21ᵀ y_below), which
  /// is the transposed panel [L11⁻¹; −L21 L11⁻¹]ᵀ times the supernode's rows of y, its own and those below it,
  /// gathered.
  template <typename T>
  void SolveUpperInverted(const T* panels, SolveWorkspace<T>* work) const {
    T* y = work->y.data();
    T* t = work->t.data();
    for (int s = num_supernodes_ - 1; s >= 0; --s) {
      const int w = width(s), h = height_[s];
      T* ys = y + first_row_[s];
      std::copy(ys, ys + w, t);
      ForEachRowBlock(s,
                      [&](int k, int offset) { std::copy(y + start_[k], y + start_[k] + size_[k], t + w + offset); });
      Eigen::Map<Vector<T>>(ys, w).noalias() =
          ConstPanel<T>(panels + panel_ptr_[s], h, w, Eigen::OuterStride<>(h)).transpose() *
          Eigen::Map<const Vector<T>>(t, h);
    }
  }

  /// Blocks of consecutive columns with one row pattern, of at most kMaxWidth columns (a wider run of one pattern, as
  /// in a dense matrix, is cut into pieces, which then chain into supernodes), in column order: block_start_
  /// (num_blocks + 1).
  void FindBlocks(const CscView& A) {
    block_start_.assign(1, 0);
    for (int j = 1; j < n_; ++j)
      if (!SameColumnPattern(A, j - 1, j) || j - block_start_.back() == kMaxWidth) block_start_.push_back(j);
    if (n_ > 0) block_start_.push_back(n_);
    num_blocks_ = static_cast<int>(block_start_.size()) - 1;
    block_of_.resize(n_);
    for (int b = 0; b < num_blocks_; ++b)
      std::fill(block_of_.begin() + block_start_[b], block_of_.begin() + block_start_[b + 1], b);
  }

  /// AMD on the block graph: order_[k] is the block eliminated k-th; rank_ its inverse. Then each eliminated block's
  /// size, first column of A and first row in the ordered matrix (start_), and each ordered row's column of A.
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
      // AMD's counts on the block graph, each a block operation of the mean block size s: the Schur updates'
      // multiply–subtract pairs (Σ Lₖ(Lₖ + 1)/2 for Lₖ blocks below block k) 2s³ each, the blocks below a diagonal
      // block solved against it s³ each, the diagonal blocks' Cholesky s³/3 each.
      const double s = static_cast<double>(n_) / num_blocks_;
      estimated_flops_ =
          s * s * s * (2.0 * info[AMD_NMULTSUBS_LDL] + info[AMD_LNZ] + static_cast<double>(num_blocks_) / 3.0);
    }
    rank_.resize(num_blocks_);
    size_.resize(num_blocks_);
    first_.resize(num_blocks_);
    start_.assign(num_blocks_ + 1, 0);
    column_of_row_.resize(n_);
    for (int k = 0; k < num_blocks_; ++k) {
      rank_[order_[k]] = k;
      first_[k] = block_start_[order_[k]];
      size_[k] = block_start_[order_[k] + 1] - first_[k];
      start_[k + 1] = start_[k] + size_[k];
      for (int a = 0; a < size_[k]; ++a) column_of_row_[start_[k] + a] = first_[k] + a;
    }
    return true;
  }

  /// The blocks below each diagonal block of L (ordered indices, increasing): the blocks of A below it and those of
  /// its children in the elimination tree.
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
      for (int p = A.col_ptr[j], previous = -1; p < A.col_ptr[j + 1]; ++p) {
        const int block = block_of_[A.row_index[p]];
        if (block != previous) add(rank_[block]);  // a block's rows come one after another
        previous = block;
      }
      for (int c : children[k])
        for (int e = below_ptr_[c]; e < below_ptr_[c + 1]; ++e) add(below_[e]);
      std::sort(rows.begin(), rows.end());
      if (!rows.empty()) children[rows.front()].push_back(k);
      below_.insert(below_.end(), rows.begin(), rows.end());
      below_ptr_.push_back(static_cast<int>(below_.size()));
    }
  }

  /// Supernodes: runs of consecutive blocks k, k + 1, … each the child of the next in the elimination tree (AMD's
  /// order is postordered, so chains are consecutive), up to kMaxWidth columns, factored as one dense panel of their
  /// combined width, so that updates are products of rank width rather than of one block's size. A child's rows below
  /// it, less its parent, are among its parent's, so each block's rows are among those of the supernode's last block
  /// (its rows below the diagonal block, at panel offsets row_offset_); where they are fewer, the panel holds explicit
  /// zeros. Relaxed amalgamation as in CHOLMOD (Ashcraft & Grimes 1989): a block joins the next while the zeros stay
  /// below RelaxedZeros' share of the merged panel, which halves the N = 500 pile's supernodes (389 exact chains,
  /// 256 relaxed) for 9 % more panel entries.
  void FindSupernodes() {
    supernode_start_.assign(1, 0);
    for (int k = 0; k + 1 < num_blocks_; ++k) {
      const bool child = below_ptr_[k + 1] > below_ptr_[k] && below_[below_ptr_[k]] == k + 1;
      const int first = supernode_start_.back(), width = start_[k + 2] - start_[first];
      if (!child || width > kMaxWidth || !RelaxedZeros(first, k + 1, width)) supernode_start_.push_back(k + 1);
    }
    if (num_blocks_ > 0) supernode_start_.push_back(num_blocks_);
    num_supernodes_ = static_cast<int>(supernode_start_.size()) - 1;
    supernode_of_.resize(num_blocks_);
    first_row_.resize(num_supernodes_);
    height_.resize(num_supernodes_);
    panel_ptr_.assign(num_supernodes_ + 1, 0);
    row_offset_.resize(below_.size());
    int max_height = 0;
    for (int s = 0; s < num_supernodes_; ++s) {
      std::fill(supernode_of_.begin() + supernode_start_[s], supernode_of_.begin() + supernode_start_[s + 1], s);
      first_row_[s] = start_[supernode_start_[s]];
      const int last = supernode_start_[s + 1] - 1;
      int h = width(s);
      for (int e = below_ptr_[last]; e < below_ptr_[last + 1]; ++e) {
        row_offset_[e] = h;
        h += size_[below_[e]];
      }
      height_[s] = h;
      panel_ptr_[s + 1] = panel_ptr_[s] + h * width(s);
      max_height = std::max(max_height, h);
    }
    max_height_ = max_height;
    values_.assign(panel_ptr_.back(), F{0});
    if (inverted_) {
      single_.assign(panel_ptr_.back(), 0.0f);
      single_workspace_.y.resize(n_);
      single_workspace_.t.resize(max_height);
    } else {
      workspace_.inverse_diagonal.assign(n_, F{0});
      workspace_.y.resize(n_);
    }
  }

  /// Whether blocks first … last, each the child of the next, may form one supernode of `width` columns: the panel's
  /// explicit zeros (entries below a block's diagonal block outside its own rows) as a share z of its entries, merged
  /// when there are none, or up to 4 columns, or 16 with z < 0.8, or 48 with z < 0.1, or z < 0.05 (CHOLMOD's nrelax
  /// and zrelax defaults).
  bool RelaxedZeros(int first, int last, int width) const {
    auto rows_below = [&](int k) {
      int rows = 0;
      for (int e = below_ptr_[k]; e < below_ptr_[k + 1]; ++e) rows += size_[below_[e]];
      return rows;
    };
    const long last_rows = rows_below(last);
    long zeros = 0, entries = 0;
    for (int k = first; k <= last; ++k) {
      const long panel_rows = start_[last + 1] - start_[k + 1] + last_rows;
      zeros += size_[k] * (panel_rows - rows_below(k));
      entries += size_[k] * (panel_rows + size_[k]);
    }
    const double z = static_cast<double>(zeros) / static_cast<double>(entries);
    return zeros == 0 || width <= 4 || (width <= 16 && z < 0.8) || (width <= 48 && z < 0.1) || z < 0.05;
  }

  /// The row chunks of each supernode's panel, the units of its parallel updates and solves: for the supernodes
  /// above the subtrees (PlanSchedule), cut at block boundaries, each of at least kChunkRows rows (the last may have
  /// fewer); for the others, which one thread factors, the whole panel (a group split between chunks costs a product).
  void PlanChunks() {
    chunk_ptr_.assign(1, 0);
    chunk_row_.clear();
    chunk_node_.clear();
    for (int t = 0; t < num_supernodes_; ++t) {
      int row = 0, chunk_start = 0;
      chunk_row_.push_back(0);
      chunk_node_.push_back(t);
      auto boundary = [&](int next_row) {
        row = next_row;
        if (!top_[t] || row - chunk_start < kChunkRows || row == height_[t]) return;
        chunk_start = row;
        chunk_row_.push_back(row);
        chunk_node_.push_back(t);
      };
      for (int k = supernode_start_[t]; k < supernode_start_[t + 1]; ++k) boundary(row + size_[k]);
      ForEachRowBlock(t, [&](int k, int) { boundary(row + size_[k]); });
      chunk_ptr_.push_back(static_cast<int>(chunk_row_.size()));
    }
  }

  /// For supernode s and each run of the blocks below it that lie in one supernode t (consecutive in s's panel), and
  /// each group of blocks below from the run's first down (up to kTileRows rows, whole blocks, within one row chunk
  /// of t): one product of the group's rows of s with the run's rows, then L(i, j) -= its (i, j) part for every block
  /// j of the run and every block i ≥ j of the group, at (target_ row, column_ offset) in t's panel. Every such i is a
  /// block of t or below t. Where those blocks are consecutive rows and columns of t's panel (Consecutive), the
  /// product is subtracted there by PanelProduct itself (beta = 1): on the N = 500 pile's dumped steps, solves 2 %
  /// faster.
  /// A product has at most kTileRows × kMaxWidth entries: a group's rows stop at kTileRows unless one block (of at
  /// most kMaxWidth rows) exceeds it, and a run's rows are columns of one supernode, at most kMaxWidth. Then each row
  /// chunk's groups (chunk_group_), in the order of their supernodes.
  void PlanUpdates() {
    run_begin_.clear();
    run_source_.clear();
    run_column_.clear();
    group_ptr_.assign(1, 0);
    group_begin_.clear();
    group_target_.clear();
    direct_.clear();
    column_.clear();
    target_.clear();
    std::vector<int> group_chunk;
    for (int s = 0; s < num_supernodes_; ++s) {
      const int last = supernode_start_[s + 1] - 1, end = below_ptr_[last + 1];
      for (int e = below_ptr_[last]; e < end;) {
        const int t = supernode_of_[below_[e]];
        int run_end = e;
        while (run_end < end && supernode_of_[below_[run_end]] == t) ++run_end;
        run_begin_.push_back(e);
        run_source_.push_back(s);
        run_column_.push_back(static_cast<int>(column_.size()));
        for (int j = e; j < run_end; ++j) column_.push_back(start_[below_[j]] - first_row_[t]);
        for (int u = e; u < end;) {
          const int chunk = ChunkOf(t, RowInPanel(t, below_[u]));
          int group_end = u + 1;
          while (group_end < end && RowsFrom(s, u, group_end + 1) <= kTileRows &&
                 ChunkOf(t, RowInPanel(t, below_[group_end])) == chunk)
            ++group_end;
          group_begin_.push_back(u);
          group_target_.push_back(static_cast<int>(target_.size()));
          group_chunk.push_back(chunk);
          const bool direct = Consecutive(t, e, run_end, u, group_end);
          direct_.push_back(direct);
          if (direct) {
            target_.push_back(RowInPanel(t, below_[u]));
          } else {
            for (int j = e; j < run_end; ++j)
              for (int v = std::max(u, j); v < group_end; ++v) target_.push_back(RowInPanel(t, below_[v]));
          }
          u = group_end;
        }
        group_ptr_.push_back(static_cast<int>(group_begin_.size()));
        e = run_end;
      }
    }
    group_run_.resize(group_begin_.size());
    for (int r = 0; r + 1 < static_cast<int>(group_ptr_.size()); ++r)
      std::fill(group_run_.begin() + group_ptr_[r], group_run_.begin() + group_ptr_[r + 1], r);
    chunk_group_ptr_.assign(chunk_row_.size() + 1, 0);
    for (int c : group_chunk) ++chunk_group_ptr_[c + 1];
    for (size_t k = 1; k < chunk_group_ptr_.size(); ++k) chunk_group_ptr_[k] += chunk_group_ptr_[k - 1];
    chunk_group_.resize(group_chunk.size());
    std::vector<int> next(chunk_group_ptr_.begin(), chunk_group_ptr_.end() - 1);
    for (int g = 0; g < static_cast<int>(group_chunk.size()); ++g) chunk_group_[next[group_chunk[g]]++] = g;
  }

  /// What the triangular solves on L need besides the panels (SolveLowerNode, SolveUpperNode). A supernode's blocks
  /// below lie in its ancestors, those within its own subtree first: the forward solve subtracts its product from
  /// those at once (push_end_), and keeps the rest, which lie above the subtrees, in the workspace (kept_ptr_) for
  /// their supernodes to pull, each in its sources' order (pull_ptr_). So concurrent subtrees never write the same
  /// rows of y, and every row's subtractions come in the one-thread order. And the factorization's tasks by levels
  /// from the root of the task tree, for the backward solve.
  void PlanSolves() {
    const int ns = num_supernodes_;
    push_end_.resize(ns);
    kept_ptr_.assign(ns + 1, 0);
    pull_ptr_.assign(ns + 1, 0);
    for (int t = 0; t < ns; ++t) {
      const int last = supernode_start_[t + 1] - 1, end = below_ptr_[last + 1];
      int e = below_ptr_[last];
      while (e < end && !top_[supernode_of_[below_[e]]]) ++e;
      push_end_[t] = e;
      kept_ptr_[t + 1] = kept_ptr_[t] + (e < end ? height_[t] - row_offset_[e] : 0);
      for (; e < end; ++e) ++pull_ptr_[supernode_of_[below_[e]] + 1];
    }
    for (int t = 0; t < ns; ++t) pull_ptr_[t + 1] += pull_ptr_[t];
    pull_block_.resize(pull_ptr_[ns]);
    pull_from_.resize(pull_ptr_[ns]);
    std::vector<int> next(pull_ptr_.begin(), pull_ptr_.end() - 1);
    for (int t = 0; t < ns; ++t) {  // sources in order
      const int last = supernode_start_[t + 1] - 1;
      for (int e = push_end_[t]; e < below_ptr_[last + 1]; ++e) {
        const int q = next[supernode_of_[below_[e]]]++;
        pull_block_[q] = below_[e];
        pull_from_[q] = kept_ptr_[t] + row_offset_[e] - row_offset_[push_end_[t]];
      }
    }
    const int num_tasks = static_cast<int>(task_parent_.size());
    std::vector<int> depth(num_tasks, 0);
    int levels = num_tasks > 0 ? 1 : 0;
    for (int task = num_tasks - 1; task >= 0; --task) {  // a task's parent comes after it
      if (task_parent_[task] >= 0) depth[task] = depth[task_parent_[task]] + 1;
      levels = std::max(levels, depth[task] + 1);
    }
    levels_ = GroupBy(depth, levels);
    if (!inverted_) {
      workspace_.below.assign(kept_ptr_[ns], F{0});
      workspace_.t.assign(static_cast<size_t>(std::max(num_tasks, 1)) * max_height_, F{0});
    }
  }

  /// The tasks of a parallel factorization (kernels::ThreadBudget::ForTree: each after its children, independent ones
  /// in parallel). Subtrees of the supernodal elimination tree, each factored in order by one thread, split from the
  /// top (the costliest subtree first, its root set aside) until none holds more than 1/kSubtrees of the estimated
  /// flops; the set-aside supernodes, each a task whose row chunks are updated and solved in parallel. The order
  /// changes the time a factorization takes, never its values.
  void PlanSchedule() {
    const int ns = num_supernodes_;
    std::vector<int> parent(ns, -1);
    std::vector<double> cost(ns, 0.0);
    for (int s = 0; s < ns; ++s) {
      const int last = supernode_start_[s + 1] - 1;
      if (below_ptr_[last + 1] > below_ptr_[last]) parent[s] = supernode_of_[below_[below_ptr_[last]]];
      const double w = width(s), h = height_[s];
      cost[s] += w * w * (w / 3.0 + (h - w));
    }
    for (int s = 0; s < ns; ++s) {  // each run of s's blocks below it in one supernode t: its update of t
      const int end = below_ptr_[supernode_start_[s + 1]];
      for (int e = below_ptr_[supernode_start_[s + 1] - 1], run_end = e; e < end; e = run_end) {
        const int t = supernode_of_[below_[e]];
        while (run_end < end && supernode_of_[below_[run_end]] == t) ++run_end;
        cost[t] += 2.0 * RowsFrom(s, e, end) * RowsFrom(s, e, run_end) * width(s);
      }
    }
    std::vector<double> subtree(cost);  // a parent comes after its children
    std::vector<std::vector<int>> children(ns);
    std::vector<std::pair<double, int>> heap;  // the subtrees' roots, the costliest on top
    double total = 0.0;
    for (int s = 0; s < ns; ++s) {
      if (parent[s] >= 0) {
        subtree[parent[s]] += subtree[s];
        children[parent[s]].push_back(s);
      } else {
        heap.emplace_back(subtree[s], s);
        total += subtree[s];
      }
    }
    std::make_heap(heap.begin(), heap.end());
    std::vector<char>& top = top_;
    top.assign(ns, 0);
    std::vector<std::pair<double, int>> leaves;  // costly subtrees of one supernode: they cannot be split
    while (!heap.empty() && heap.front().first > total / kSubtrees) {
      const int s = heap.front().second;
      std::pop_heap(heap.begin(), heap.end());
      if (children[s].empty()) {
        leaves.push_back(heap.back());
        heap.pop_back();
        continue;
      }
      heap.pop_back();
      top[s] = 1;
      for (int c : children[s]) {
        heap.emplace_back(subtree[c], c);
        std::push_heap(heap.begin(), heap.end());
      }
    }
    heap.insert(heap.end(), leaves.begin(), leaves.end());
    // Tasks: the subtrees (in the order of their roots), then the set-aside supernodes in order; a task's parent is
    // the task of its (root's) parent supernode.
    const int num_subtrees = static_cast<int>(heap.size());
    std::sort(heap.begin(), heap.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    std::vector<int> task(ns, -1);
    for (int i = 0; i < num_subtrees; ++i) task[heap[i].second] = i;
    top_node_.clear();
    for (int s = 0; s < ns; ++s)
      if (top[s]) {
        task[s] = num_subtrees + static_cast<int>(top_node_.size());
        top_node_.push_back(s);
      }
    for (int s = ns - 1; s >= 0; --s)
      if (task[s] < 0) task[s] = task[parent[s]];
    const int num_tasks = num_subtrees + static_cast<int>(top_node_.size());
    task_parent_.assign(num_tasks, -1);
    task_children_.assign(num_tasks, 0);
    for (int s = 0; s < ns; ++s) {
      if (parent[s] < 0 || task[s] == task[parent[s]]) continue;  // not a task's root, or a root of the whole tree
      task_parent_[task[s]] = task[parent[s]];
      ++task_children_[task[parent[s]]];
    }
    pending_ = std::make_unique<std::atomic<int>[]>(num_tasks);
    // The subtrees' supernodes, subtree by subtree, each in order (a counting sort by task).
    subtree_ptr_.assign(num_subtrees + 1, 0);
    for (int s = 0; s < ns; ++s)
      if (!top[s]) ++subtree_ptr_[task[s] + 1];
    for (int i = 0; i < num_subtrees; ++i) subtree_ptr_[i + 1] += subtree_ptr_[i];
    subtree_node_.resize(subtree_ptr_[num_subtrees]);
    std::vector<int> next(subtree_ptr_.begin(), subtree_ptr_.end() - 1);
    for (int s = 0; s < ns; ++s)
      if (!top[s]) subtree_node_[next[task[s]]++] = s;
  }

  /// Whether the run's blocks (entries [e, run_end) of below_) are consecutive columns of supernode t's panel and the
  /// group's blocks ([u, group_end)) consecutive rows of it, so that the update can subtract the product in place.
  bool Consecutive(int t, int e, int run_end, int u, int group_end) const {
    for (int j = e; j + 1 < run_end; ++j)
      if (below_[j + 1] != below_[j] + 1) return false;
    for (int v = u; v + 1 < group_end; ++v)
      if (RowInPanel(t, below_[v + 1]) != RowInPanel(t, below_[v]) + size_[below_[v]]) return false;
    return true;
  }

  /// The rows of supernode s's panel taken by the blocks below it at entries [e, end) of below_.
  int RowsFrom(int s, int e, int end) const {
    const int last = supernode_start_[s + 1] - 1;
    return (end < below_ptr_[last + 1] ? row_offset_[end] : height_[s]) - row_offset_[e];
  }

  /// Block i's first row in supernode t's panel: within its diagonal block, or among the rows below it.
  int RowInPanel(int t, int i) const {
    if (supernode_of_[i] == t) return start_[i] - first_row_[t];
    const int last = supernode_start_[t + 1] - 1;
    const int e = static_cast<int>(
        std::lower_bound(below_.begin() + below_ptr_[last], below_.begin() + below_ptr_[last + 1], i) - below_.begin());
    return row_offset_[e];
  }

  /// Where the stored entries of A's lower triangle (in the ordered matrix) go in the panels, and where Factor reads
  /// them: A.values[A.slot(p)], the value index composed here (Factor reads A with the pattern and value index that
  /// Analyze saw). A block's columns share one pattern (FindBlocks), so each run of rows of one block is placed once
  /// per block, and each column of the block takes the same places one panel column further.
  void PlanEntries(const CscView& A) {
    entry_slot_.clear();
    entry_source_.clear();
    // Per run of rows of one block at or below the diagonal block in the columns of block b: its entries
    // [begin, end) among a column's, and the panel row of row r, base + r.
    struct RowRun {
      int begin, end, base;
      bool diagonal;
    };
    std::vector<RowRun> runs;
    for (int b = 0; b < num_blocks_; ++b) {
      const int k = rank_[b], s = supernode_of_[k], j0 = block_start_[b];
      const int length = A.col_ptr[j0 + 1] - A.col_ptr[j0];
      const int* rows = A.row_index + A.col_ptr[j0];
      runs.clear();
      for (int t = 0; t < length;) {
        const int block = block_of_[rows[t]], i = rank_[block], begin = t;
        while (t < length && block_of_[rows[t]] == block) ++t;
        if (i >= k) runs.push_back({begin, t, RowInPanel(s, i) - first_[i], i == k});
      }
      for (int j = j0; j < block_start_[b + 1]; ++j) {
        const int column = start_[k] + j - first_[k] - first_row_[s];
        const int panel_column = panel_ptr_[s] + column * height_[s];
        const int first_entry = A.col_ptr[j];
        for (const RowRun& run : runs) {
          int t = run.begin;
          if (run.diagonal)
            while (t < run.end && rows[t] < j) ++t;  // the diagonal block's rows from j down
          for (; t < run.end; ++t) {
            entry_slot_.push_back(panel_column + run.base + rows[t]);
            entry_source_.push_back(A.slot(first_entry + t));
          }
        }
      }
    }
  }

  /// Group g's update (PlanUpdates) from its supernode's panel to its run's target's; `work`: room for one product
  /// (kTileRows × kMaxWidth).
  void ApplyGroup(int g, F* work) {
    const int r = group_run_[g], s = run_source_[r], e = run_begin_[r], run_end = RunEnd(r);
    const int u = group_begin_[g], group_end = GroupEnd(g);
    const int run_rows = RowsFrom(s, e, run_end), product_rows = RowsFrom(s, u, group_end);
    const Panel<F> L = PanelOf(s);
    Panel<F> Lt = PanelOf(supernode_of_[below_[e]]);
    const int* column = column_.data() + run_column_[r];
    const int* target = target_.data() + group_target_[g];
    const int h = height_[s], ht = static_cast<int>(Lt.outerStride()), w = width(s);
    if (direct_[g]) {  // the product's blocks above the target's diagonal land in its unused upper triangle
      PanelProduct(product_rows, run_rows, w, F{-1}, L.data() + row_offset_[u], h, L.data() + row_offset_[e], h, F{1},
                   Lt.data() + static_cast<size_t>(column[0]) * ht + *target, ht);
      return;
    }
    PanelProduct(product_rows, run_rows, w, F{1}, L.data() + row_offset_[u], h, L.data() + row_offset_[e], h, F{0},
                 work, product_rows);
    for (int j = e; j < run_end; ++j) {
      const int size_j = size_[below_[j]];
      const F* product_j = work + static_cast<size_t>(row_offset_[j] - row_offset_[e]) * product_rows;
      for (int v = std::max(u, j); v < group_end; ++v) {
        // L(i, j) −= the product's (v, j) block, column by column (plain loops: Eigen's block expression on these
        // strided maps spilled to the stack in its inner loop).
        F* to = Lt.data() + static_cast<size_t>(column[j - e]) * ht + *target++;
        const F* from = product_j + (row_offset_[v] - row_offset_[u]);
        const int size_v = size_[below_[v]];
        for (int c = 0; c < size_j; ++c, to += ht, from += product_rows)
          for (int i = 0; i < size_v; ++i) to[i] -= from[i];
      }
    }
  }

  /// The end of run r, and of group g, among the entries of below_ of their supernode's last block.
  int RunEnd(int r) const {
    const int s = run_source_[r];
    return r + 1 < static_cast<int>(run_source_.size()) && run_source_[r + 1] == s
               ? run_begin_[r + 1]
               : below_ptr_[supernode_start_[s + 1]];
  }
  int GroupEnd(int g) const {
    const int r = group_run_[g];
    return g + 1 < group_ptr_[r + 1] ? group_begin_[g + 1] : below_ptr_[supernode_start_[run_source_[r] + 1]];
  }
  /// The row chunk of supernode t that holds panel row `row`, and chunk k's end row.
  int ChunkOf(int t, int row) const {
    return static_cast<int>(
               std::upper_bound(chunk_row_.begin() + chunk_ptr_[t], chunk_row_.begin() + chunk_ptr_[t + 1], row) -
               chunk_row_.begin()) -
           1;
  }
  int ChunkEnd(int k) const {
    return k + 1 < chunk_ptr_[chunk_node_[k] + 1] ? chunk_row_[k + 1] : height_[chunk_node_[k]];
  }

  /// Supernode L = [L11; L21], factored and its updates done, becomes [L11⁻¹; −L21 L11⁻¹] (L11⁻¹ lower triangular,
  /// zeros above its diagonal), the form the solves use: each supernode's solve is then one product, without the
  /// dependent chain of a triangular solve (whose stores and reloads of overlapping entries of y stalled the solves).
  static void InvertPanel(Panel<F>& L) {
    const int w = static_cast<int>(L.cols()), h = static_cast<int>(L.rows());
    // L11⁻¹ row by row (row i = (e_i − Σ_{k<i} L(i, k) row k) / L(i, i)), in a row-major scratch, then written over
    // L11 by columns: plain loops over whole finished rows (Eigen's blocked triangular solve and the BLAS cost more in
    // call overhead than in arithmetic at these sizes, and a column-by-column substitution stalls on reloading
    // entries it has just stored).
    F rows[kMaxWidth * kMaxWidth];
    for (int i = 0; i < w; ++i) {
      F* row = rows + i * w;
      std::fill(row, row + w, F{0});
      row[i] = F{1};
      for (int k = 0; k < i; ++k) {
        const F l = L(i, k);
        const F* row_k = rows + k * w;
        for (int j = 0; j <= k; ++j) row[j] -= l * row_k[j];
      }
      const F inverse = F{1} / L(i, i);
      for (int j = 0; j <= i; ++j) row[j] *= inverse;
    }
    F inverse[kMaxWidth * kMaxWidth];
    for (int j = 0; j < w; ++j)
      for (int i = 0; i < w; ++i) inverse[j * w + i] = L(i, j) = rows[i * w + j];
    if (h > w) TrmmRightLowerNegated(h - w, w, inverse, w, L.data() + w, h);
  }

  /// f(k, offset) for each block k below supernode s, offset: its first row in the panel minus the diagonal block's.
  template <typename Visit>
  void ForEachRowBlock(int s, Visit f) const {
    const int last = supernode_start_[s + 1] - 1, w = width(s);
    for (int e = below_ptr_[last]; e < below_ptr_[last + 1]; ++e) f(below_[e], row_offset_[e] - w);
  }

  int width(int s) const { return start_[supernode_start_[s + 1]] - start_[supernode_start_[s]]; }

  Panel<F> PanelOf(int s) {
    return Panel<F>(values_.data() + panel_ptr_[s], height_[s], width(s), Eigen::OuterStride<>(height_[s]));
  }

  int n_{0}, num_blocks_{0}, num_supernodes_{0}, max_height_{0};
  std::vector<int> block_start_, block_of_;  // blocks in column order
  // Ordered blocks: order_[k] the block eliminated k-th, rank_ its inverse; size, first column of A, first row of
  // the ordered matrix (start_, num_blocks + 1); each ordered row's column of A.
  std::vector<int> order_, rank_, size_, first_, start_, column_of_row_;
  double estimated_flops_{0.0};  // AMD's estimate of the factorization's flops (OrderBlocks)
  // Blocks below each diagonal block (compressed rows).
  std::vector<int> below_ptr_, below_;
  // Supernodes: their first blocks (num_supernodes + 1), each block's supernode, each supernode's first ordered row,
  // panel height and storage; the panel row of each block below a supernode's last block (indexed like below_).
  std::vector<int> supernode_start_, supernode_of_, first_row_, height_, panel_ptr_, row_offset_;
  // PlanChunks: per supernode its row chunks (chunk_ptr_), each chunk's first panel row and supernode.
  std::vector<int> chunk_ptr_, chunk_row_, chunk_node_;
  // PlanUpdates: per run (a source supernode's blocks below it in one target supernode, the runs in their sources'
  // order) its first entry of below_, its source, its first entry of column_ and its groups (group_ptr_); per group
  // its first entry of below_, its run and its first entry of target_; per block of a run its column in the target
  // panel, and per pair of blocks its row there (ApplyGroup walks them). Per row chunk its groups (chunk_group_ptr_),
  // in their sources' order.
  std::vector<int> run_begin_, run_source_, run_column_, group_ptr_, group_begin_, group_run_, group_target_, column_,
      target_, chunk_group_ptr_, chunk_group_;
  std::vector<char> direct_;  // per group: Consecutive, its product subtracted in place (one target_ entry: its row)
  // PlanSchedule: the tasks of a parallel factorization, the subtrees then the supernodes above them (top_node_),
  // their parents and numbers of children in the task tree, and ForTree's counters; the subtrees' supernodes
  // (subtree_ptr_).
  std::vector<int> top_node_, task_parent_, task_children_, subtree_ptr_, subtree_node_;
  std::vector<char> top_;  // per supernode: above the subtrees (top_node_ holds it)
  std::unique_ptr<std::atomic<int>[]> pending_;
  // PlanSolves: per supernode the end of the entries of below_ it pushes into and where the forward solve keeps the
  // rest of its product (kept_ptr_); per supernode above the subtrees what it pulls (pull_ptr_): each block of its
  // own and where its source's product keeps that block's rows; the tasks by levels from the root (levels_).
  std::vector<int> push_end_, kept_ptr_, pull_ptr_, pull_block_, pull_from_;
  Groups levels_;
  // Per stored entry of A's lower triangle, its place in values_ and in A.values.
  std::vector<int> entry_slot_, entry_source_;
  // L's panels in F and, when inverted, their single-precision copy in partitioned-inverse form; the workspace of
  // the solves on L, or of those on the inverted copy (the other stays empty).
  std::vector<F> values_;
  std::vector<float> single_;
  bool inverted_;
  SolveWorkspace<F> workspace_;
  SolveWorkspace<float> single_workspace_;
};

/// kSingle: the factorization in float, and where float meets a pivot that is not positive (S too ill-conditioned for
/// float's 24 bits), the same matrix again in double (analyzed then, for the pattern), solved in double until the next
/// Factor.
class SingleFirstCholesky final : public BlockCholeskySolver {
 public:
  bool Analyze(const CscView& A, std::string* message) override {
    double_analyzed_ = false;
    return single_.Analyze(A, message);
  }

  bool Factor(const CscView& A, std::string* message) override { return FactorOn(nullptr, A, message); }
  bool Factor(const kernels::ThreadBudget& budget, const CscView& A, std::string* message) override {
    return FactorOn(&budget, A, message);
  }

  bool Solve(const Eigen::VectorXd& b, Eigen::VectorXd* x, std::string* message) override {
    return in_double_ ? double_.Solve(b, x, message) : single_.Solve(b, x, message);
  }
  bool Solve(const kernels::ThreadBudget& budget, const Eigen::VectorXd& b, Eigen::VectorXd* x,
             std::string* message) override {
    return in_double_ ? double_.Solve(budget, b, x, message) : single_.Solve(budget, b, x, message);
  }
  void SolveGathered(const Eigen::VectorXd& r, const int* rows, double* x) override {
    if (in_double_)
      double_.SolveGathered(r, rows, x);
    else
      single_.SolveGathered(r, rows, x);
  }

 private:
  bool FactorOn(const kernels::ThreadBudget* budget, const CscView& A, std::string* message) {
    auto factor = [&](BlockCholeskySolver& f, std::string* m) {
      return budget != nullptr ? f.Factor(*budget, A, m) : f.Factor(A, m);
    };
    in_double_ = !factor(single_, nullptr);
    if (!in_double_) return true;
    if (!double_analyzed_ && !(double_analyzed_ = double_.Analyze(A, message))) return false;
    return factor(double_, message);
  }

  BlockCholesky<float> single_{false};
  BlockCholesky<double> double_{false};
  bool double_analyzed_{false}, in_double_{false};
};

}  // namespace

double EstimateCholeskyFlops(const CscView& S) { return BlockCholesky<float>(false).EstimateFlops(S); }

std::unique_ptr<BlockCholeskySolver> MakeBlockCholeskySolver(CholeskyPrecision precision) {
  switch (precision) {
    case CholeskyPrecision::kDouble:
      return std::make_unique<BlockCholesky<double>>(false);
    case CholeskyPrecision::kSingle:
      return std::make_unique<SingleFirstCholesky>();
    case CholeskyPrecision::kSingleInverted:
      break;
  }
  return std::make_unique<BlockCholesky<double>>(true);
}

}  // namespace tamsi::internal
