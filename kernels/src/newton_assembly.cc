#include <tamsi/kernels/debug_assert.h>
#include <tamsi/kernels/newton_assembly.h>
#include <tamsi/kernels/parallel.h>

#include <algorithm>
#include <iterator>
#include <utility>

namespace tamsi::kernels {

namespace {

/// The sorted rows of the Newton matrix's column j: M's rows and the supports of the contacts touching j (each sorted),
/// merged once each (`merged`: scratch). `previous` (or nullptr): column j − 1's rows, reused when column j touches
/// the same contacts as column j − 1 and M's column j has the rows of column j − 1 (a body's velocities).
void CalcColumnRows(const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& M, const ContactJacobian& J, int j,
                    const std::vector<int>* previous, std::vector<int>* merged, std::vector<int>* rows) {
  const int* m_ptr = M.outerIndexPtr();
  const int* m_rows = M.innerIndexPtr();
  auto same_as_previous = [&] {
    return std::equal(m_rows + m_ptr[j - 1], m_rows + m_ptr[j], m_rows + m_ptr[j], m_rows + m_ptr[j + 1]) &&
           J.SameContacts(j - 1, j);
  };
  if (previous != nullptr && same_as_previous()) {
    *rows = *previous;
    return;
  }
  rows->assign(m_rows + m_ptr[j], m_rows + m_ptr[j + 1]);
  std::sort(rows->begin(), rows->end());
  for (int c = J.contacts_ptr(j); c < J.contacts_ptr(j + 1); ++c) {
    const int i = J.contact_of(c);
    merged->clear();
    std::set_union(rows->begin(), rows->end(), J.support(i), J.support(i) + J.support_size(i),
                   std::back_inserter(*merged));
    std::swap(*rows, *merged);
  }
}

/// (Bᵢ Jcᵢ)(:, b) = B jc, jc = Jcᵢ(:, b): one expression for both assemblies, so that they round alike.
inline Eigen::Vector3d BlockTimesColumn(const double* block, const double* jc) {
  return Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(block) * Eigen::Map<const Eigen::Vector3d>(jc);
}

/// One run of consecutive rows a of a contact's support against `width` consecutive columns b of it:
/// Kᵢ(a, b) = Jcᵢ(:, a) · (Bᵢ Jcᵢ)(:, b) added to the run's consecutive entries of each column (column w at
/// out + w · stride), and Kᵢ(a, b) − uᵢ,a Jnᵢ(b) to the symmetric part's, when it is asked for. The rows are read from
/// Jcᵢ's row-major copy, so that each output column is a contiguous, vectorizable loop, and a run's rows stay in
/// registers across the columns.
struct RunColumns {
  const double* j0;  // Jcᵢ(0, a) for the run's rows a, contiguous; Jcᵢ(1, a) at j0 + m, Jcᵢ(2, a) at j0 + 2m
  int m;             // |S_i|
  const double* u;   // uᵢ,a for the run's rows
  const double* bj;  // (Bᵢ Jcᵢ)(:, b) for the first column b, 3 per column
  const double* jn;  // Jnᵢ(b) = Jcᵢ(0, b) for the first column b, one per column at stride 3 (the block's layout)

  /// Adds the run's `length` rows to `width` columns, the loops unrolled for lengths up to kMaxFixedLength (a body's
  /// six velocities, the short runs of articulated chains).
  void Add(int length, int width, int stride, double* out, double* symmetric_out) const {
    AddFixed(length, width, stride, out, symmetric_out, std::make_integer_sequence<int, kMaxFixedLength + 1>{});
  }

 private:
  static constexpr int kMaxFixedLength = 8;

  template <int... kLengths>
  void AddFixed(int length, int width, int stride, double* out, double* symmetric_out,
                std::integer_sequence<int, kLengths...>) const {
    const bool fixed =
        ((kLengths > 0 && length == kLengths && (AddRun<kLengths>(length, width, stride, out, symmetric_out), true)) ||
         ...);
    if (!fixed) AddRun<0>(length, width, stride, out, symmetric_out);
  }

  /// kLength > 0: the run's length at compile time; 0: `length`. Both assemblies add their terms here, so that they
  /// round alike.
  template <int kLength>
  void AddRun(int length, int width, int stride, double* __restrict out, double* __restrict symmetric_out) const {
    const int n = kLength > 0 ? kLength : length;
    const double* __restrict r0 = j0;
    const double* __restrict r1 = j0 + m;
    const double* __restrict r2 = j0 + 2 * m;
    for (int w = 0; w < width; ++w) {
      const double b0 = bj[3 * w], b1 = bj[3 * w + 1], b2 = bj[3 * w + 2];
      double* __restrict column = out + static_cast<size_t>(w) * stride;
      if (symmetric_out == nullptr) {
        for (int t = 0; t < n; ++t) column[t] += r0[t] * b0 + r1[t] * b1 + r2[t] * b2;
        continue;
      }
      const double jn_b = jn[3 * w];
      double* __restrict symmetric_column = symmetric_out + static_cast<size_t>(w) * stride;
      for (int t = 0; t < n; ++t) {
        const double k = r0[t] * b0 + r1[t] * b1 + r2[t] * b2;
        column[t] += k;
        symmetric_column[t] += k - u[t] * jn_b;
      }
    }
  }
};

}  // namespace

void AssembleDenseBlock(const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& M, const ContactJacobian& J, double h,
                        const Eigen::VectorXd& blocks, const int* velocities, int n, const int* contacts,
                        int num_contacts, const int* local, Eigen::MatrixXd* A) {
  A->setZero(n, n);
  // Each entry sums its contacts' terms in increasing contact order, as NewtonMatrixPattern::Assemble does. A run of
  // consecutive velocities is consecutive in the island too, so each (row run, column run) of a contact is a dense
  // sub-block of A: RunColumns adds it, up to kColumns columns at a time.
  constexpr int kColumns = 8;
  double bj[3 * kColumns];
  for (int c = 0; c < num_contacts; ++c) {
    const int i = contacts[c], m = J.support_size(i), runs = J.num_runs(i);
    const int* support = J.support(i);
    const int* run = J.runs(i);
    const double* jc = J.block(i);
    for (int q = 0; q < runs; ++q) {
      for (int b0 = run[q]; b0 < run[q + 1]; b0 += kColumns) {
        const int width = std::min(kColumns, run[q + 1] - b0);
        for (int w = 0; w < width; ++w)
          Eigen::Map<Eigen::Vector3d>(bj + 3 * w) = BlockTimesColumn(blocks.data() + 9 * i, jc + 3 * (b0 + w));
        double* columns = A->data() + static_cast<Eigen::Index>(local[support[b0]]) * n;
        for (int r = 0; r < runs; ++r) {
          const int a0 = run[r];
          TAMSI_DEBUG_ASSERT(local[support[run[r + 1] - 1]] - local[support[a0]] == run[r + 1] - 1 - a0);
          RunColumns{J.rows(i) + a0, m, nullptr, bj, nullptr}.Add(run[r + 1] - a0, width, n,
                                                                  columns + local[support[a0]], nullptr);
        }
      }
    }
  }
  // Then m + h · sum per entry (h · sum alone where M has none: never −0, as a sum started at +0 is not).
  *A *= h;
  for (int b = 0; b < n; ++b) {
    const int j = velocities[b];
    for (int k = M.outerIndexPtr()[j]; k < M.outerIndexPtr()[j + 1]; ++k) {
      double& entry = (*A)(local[M.innerIndexPtr()[k]], b);
      entry = M.valuePtr()[k] + entry;
    }
  }
}

NewtonMatrixPattern::NewtonMatrixPattern(const ThreadBudget& budget,
                                         const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& M,
                                         const ContactJacobian& J) {
  CalcColumns(budget, M, J);
  CalcSources(budget, M, J);
}

void NewtonMatrixPattern::CalcColumns(const ThreadBudget& budget,
                                      const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& M,
                                      const ContactJacobian& J) {
  // Columns in ranges fixed by nv alone, each range's rows gathered by one task, then concatenated in order.
  const int nv = static_cast<int>(M.cols());
  constexpr int kGrain = 512;
  const int ranges = ThreadBudget::NumFixedRanges(nv, kGrain);
  std::vector<std::vector<int>> range_rows(ranges);
  col_ptr_.assign(nv + 1, 0);
  budget.ForFixedRanges(nv, kGrain, [&](int r, int begin, int end) {
    std::vector<int> merged, rows, previous;
    for (int j = begin; j < end; ++j) {
      CalcColumnRows(M, J, j, j > begin ? &previous : nullptr, &merged, &rows);
      range_rows[r].insert(range_rows[r].end(), rows.begin(), rows.end());
      col_ptr_[j + 1] = static_cast<int>(rows.size());
      std::swap(rows, previous);
    }
  });
  for (int j = 0; j < nv; ++j) col_ptr_[j + 1] += col_ptr_[j];
  row_index_.resize(col_ptr_[nv]);
  budget.ForFixedRanges(nv, kGrain, [&](int r, int begin, int) {
    std::copy(range_rows[r].begin(), range_rows[r].end(), row_index_.data() + col_ptr_[begin]);
  });
}

void NewtonMatrixPattern::CalcSources(const ThreadBudget& budget,
                                      const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& M,
                                      const ContactJacobian& J) {
  const int nv = static_cast<int>(M.cols());
  auto position = [&](int row, int col) {
    const auto begin = row_index_.begin() + col_ptr_[col];
    const auto end = row_index_.begin() + col_ptr_[col + 1];
    const auto at = std::lower_bound(begin, end, row);
    TAMSI_DEBUG_ASSERT(at != end && *at == row);
    return static_cast<int>(at - row_index_.begin());
  };
  m_slot_.resize(M.nonZeros());
  budget.For(nv, 512, [&](int begin, int end) {
    for (int j = begin; j < end; ++j)
      for (int k = M.outerIndexPtr()[j]; k < M.outerIndexPtr()[j + 1]; ++k)
        m_slot_[k] = position(M.innerIndexPtr()[k], j);
  });
  // Groups of consecutive columns touched by the same contacts with the same rows (a body's velocities): column
  // j0 + w of a group is column j0's entries shifted by w columns, and entry column_entry(c) + w of each contact.
  group_start_.assign(1, 0);
  for (int j = 1; j < nv; ++j) {
    const int length = col_ptr_[j + 1] - col_ptr_[j];
    const bool same = J.SameContacts(j - 1, j) && length == col_ptr_[j] - col_ptr_[j - 1] &&
                      std::equal(row_index_.begin() + col_ptr_[j - 1], row_index_.begin() + col_ptr_[j],
                                 row_index_.begin() + col_ptr_[j]);
    if (!same) group_start_.push_back(j);
  }
  if (nv > 0) group_start_.push_back(nv);
  // Per (group's first column j0, contact i touching it), in ContactJacobian's transposed order: the slot in column
  // j0 of the first row of each of contact i's runs (in any column, a run's rows sit in consecutive slots).
  const int groups = num_groups();
  slot_ptr_.assign(groups + 1, 0);
  for (int g = 0; g < groups; ++g) {
    const int j0 = group_start_[g];
    slot_ptr_[g + 1] = slot_ptr_[g];
    for (int c = J.contacts_ptr(j0); c < J.contacts_ptr(j0 + 1); ++c) slot_ptr_[g + 1] += J.num_runs(J.contact_of(c));
  }
  run_slot_.resize(slot_ptr_[groups]);
  budget.For(groups, 128, [&](int begin, int end) {
    for (int g = begin; g < end; ++g) {
      const int j0 = group_start_[g];
      int* slot = run_slot_.data() + slot_ptr_[g];
      for (int c = J.contacts_ptr(j0); c < J.contacts_ptr(j0 + 1); ++c) {
        const int i = J.contact_of(c);
        for (int r = 0; r < J.num_runs(i); ++r) {
          const int* run = J.runs(i) + r;
          const int p = position(J.support(i)[run[0]], j0);
          TAMSI_DEBUG_ASSERT(std::equal(J.support(i) + run[0], J.support(i) + run[1], row_index_.begin() + p));
          *slot++ = p;
        }
      }
    }
  });
  bj_.assign(3 * static_cast<size_t>(J.support_total()), 0.0);
  u_.assign(J.support_total(), 0.0);
}

void NewtonMatrixPattern::Assemble(const ThreadBudget& budget,
                                   const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& M, const ContactJacobian& J,
                                   double h, const Eigen::VectorXd& blocks, double* values, double* symmetric_values) {
  const int nc = J.num_contacts();
  const bool symmetric = symmetric_values != nullptr;
  budget.For(nc, 128, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      const int m = J.support_size(i);
      const size_t first = static_cast<size_t>(J.support_begin(i));
      Eigen::Map<const Eigen::Matrix<double, 3, Eigen::Dynamic>> Jc(J.block(i), 3, m);
      Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> B(blocks.data() + 9 * i);
      Eigen::Map<Eigen::Matrix<double, 3, Eigen::Dynamic>> BJ(bj_.data() + 3 * first, 3, m);
      for (int b = 0; b < m; ++b) BJ.col(b) = BlockTimesColumn(B.data(), J.block(i) + 3 * b);
      if (!symmetric) continue;
      // K̄ = K − u Jn, u = Jtᵀ B(1:2, 0): row a loses u_a Jn.
      const Eigen::Vector2d b_tn = B.block<2, 1>(1, 0);
      for (int a = 0; a < m; ++a) u_[first + a] = Jc.block<2, 1>(1, a).dot(b_tn);
    }
  });
  const double* m_values = M.valuePtr();
  const double* jc = J.block(0);
  budget.For(num_groups(), 16, [&](int begin, int end) {
    for (int g = begin; g < end; ++g) {
      // Sum each entry's contributions where it is stored, contact by contact in increasing order, then add M.
      const int j0 = group_start_[g], width = group_start_[g + 1] - j0;
      const int first_entry = col_ptr_[j0], length = col_ptr_[j0 + 1] - first_entry, last_entry = col_ptr_[j0 + width];
      std::fill(values + first_entry, values + last_entry, 0.0);
      if (symmetric) std::fill(symmetric_values + first_entry, symmetric_values + last_entry, 0.0);
      const int* slot = run_slot_.data() + slot_ptr_[g];
      for (int c = J.contacts_ptr(j0); c < J.contacts_ptr(j0 + 1); ++c) {
        const int i = J.contact_of(c);
        const int first = J.support_begin(i), m = J.support_size(i);
        const int* run = J.runs(i);
        const int runs = J.num_runs(i);
        const size_t b = J.column_entry(c);  // column j0 is entry b of contact i's columns
        for (int r = 0; r < runs; ++r) {
          const int a0 = run[r];
          const RunColumns columns{J.rows(i) + a0, m, u_.data() + first + a0, bj_.data() + 3 * b, jc + 3 * b};
          columns.Add(run[r + 1] - a0, width, length, values + slot[r],
                      symmetric ? symmetric_values + slot[r] : nullptr);
        }
        slot += runs;
      }
      // h · sum per entry, then M's values added where M has them (m + h · sum, as AssembleDenseBlock).
      for (int e = first_entry; e < last_entry; ++e) values[e] *= h;
      if (symmetric)
        for (int e = first_entry; e < last_entry; ++e) symmetric_values[e] *= h;
      for (int k = M.outerIndexPtr()[j0]; k < M.outerIndexPtr()[j0 + width]; ++k) {
        const int e = m_slot_[k];
        values[e] = m_values[k] + values[e];
        if (symmetric) symmetric_values[e] = m_values[k] + symmetric_values[e];
      }
    }
  });
}

}  // namespace tamsi::kernels
