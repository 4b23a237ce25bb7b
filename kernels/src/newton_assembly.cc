#include <tamsi/kernels/debug_assert.h>
#include <tamsi/kernels/newton_assembly.h>
#include <tamsi/kernels/parallel.h>

#include <algorithm>

namespace tamsi::kernels {

namespace {

/// The sorted rows of the Newton matrix's column j: M's rows and the supports of the contacts touching j, once each
/// (`mark`, nv entries, never holding j beforehand, flags the rows taken). `previous` (or nullptr): column j − 1's
/// rows, reused when column j touches the same contacts as column j − 1 and M's column j has the rows of column
/// j − 1 (a body's velocities).
void CalcColumnRows(const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& M, const ContactJacobian& J, int j,
                    const std::vector<int>* previous, std::vector<int>* mark, std::vector<int>* rows) {
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
  rows->clear();
  auto add = [&](int r) {
    if ((*mark)[r] != j) {
      (*mark)[r] = j;
      rows->push_back(r);
    }
  };
  for (int k = m_ptr[j]; k < m_ptr[j + 1]; ++k) add(m_rows[k]);
  for (int c = J.contacts_ptr(j); c < J.contacts_ptr(j + 1); ++c) {
    const int i = J.contact_of(c);
    for (int a = 0; a < J.support_size(i); ++a) add(J.support(i)[a]);
  }
  std::sort(rows->begin(), rows->end());
}

}  // namespace

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
    std::vector<int> mark(nv, -1), rows, previous;
    for (int j = begin; j < end; ++j) {
      CalcColumnRows(M, J, j, j > begin ? &previous : nullptr, &mark, &rows);
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
  const int nc = J.num_contacts();
  auto position = [&](int row, int col) {
    const auto begin = row_index_.begin() + col_ptr_[col];
    const auto end = row_index_.begin() + col_ptr_[col + 1];
    const auto at = std::lower_bound(begin, end, row);
    TAMSI_DEBUG_ASSERT(at != end && *at == row);
    return static_cast<int>(at - row_index_.begin());
  };
  m_source_.assign(row_index_.size(), -1);
  budget.For(nv, 512, [&](int begin, int end) {
    for (int j = begin; j < end; ++j)
      for (int k = M.outerIndexPtr()[j]; k < M.outerIndexPtr()[j + 1]; ++k)
        m_source_[position(M.innerIndexPtr()[k], j)] = k;
  });
  // Each contact's support as runs of consecutive velocities (a body's), with the support's end as a sentinel: in
  // any column, a run's rows sit in consecutive slots, so a run needs one slot per column.
  run_ptr_.assign(nc + 1, 0);
  run_begin_.clear();
  for (int i = 0; i < nc; ++i) {
    const int m = J.support_size(i);
    const int* S = J.support(i);
    for (int a = 0; a < m; ++a)
      if (a == 0 || S[a] != S[a - 1] + 1) run_begin_.push_back(a);
    run_begin_.push_back(m);
    run_ptr_[i + 1] = static_cast<int>(run_begin_.size());
  }
  // Per (column j, contact i touching it), in ContactJacobian's transposed order: the slot in column j of the first
  // row of each of contact i's runs.
  const int entries = J.contacts_ptr(nv);
  slot_ptr_.assign(entries + 1, 0);
  for (int c = 0; c < entries; ++c) slot_ptr_[c + 1] = slot_ptr_[c] + num_runs(J.contact_of(c));
  run_slot_.resize(slot_ptr_[entries]);
  budget.For(nv, 512, [&](int begin, int end) {
    for (int j = begin; j < end; ++j)
      for (int c = J.contacts_ptr(j); c < J.contacts_ptr(j + 1); ++c) {
        const int i = J.contact_of(c);
        for (int r = 0; r < num_runs(i); ++r) {
          const int* run = run_begin_.data() + run_ptr_[i] + r;
          const int p = position(J.support(i)[run[0]], j);
          TAMSI_DEBUG_ASSERT(std::equal(J.support(i) + run[0], J.support(i) + run[1], row_index_.begin() + p));
          run_slot_[slot_ptr_[c] + r] = p;
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
      Eigen::Map<const Eigen::Matrix<double, 3, Eigen::Dynamic>> Jc(J.block(i), 3, m);
      Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> B(blocks.data() + 9 * i);
      Eigen::Map<Eigen::Matrix<double, 3, Eigen::Dynamic>> BJ(bj_.data() + 3 * static_cast<size_t>(J.support_begin(i)),
                                                              3, m);
      for (int b = 0; b < m; ++b) BJ.col(b).noalias() = B * Jc.col(b);
      if (!symmetric) continue;
      // K̄ = K − u Jn, u = Jtᵀ B(1:2, 0): row a loses u_a Jn.
      const Eigen::Vector2d b_tn = B.block<2, 1>(1, 0);
      for (int a = 0; a < m; ++a) u_[J.support_begin(i) + a] = Jc.block<2, 1>(1, a).dot(b_tn);
    }
  });
  const double* m_values = M.valuePtr();
  const double* jc = J.block(0);
  budget.For(size(), 64, [&](int begin, int end) {
    for (int j = begin; j < end; ++j) {
      // Sum each entry's contributions where it is stored, contact by contact in increasing order, then add M.
      std::fill(values + col_ptr_[j], values + col_ptr_[j + 1], 0.0);
      if (symmetric) std::fill(symmetric_values + col_ptr_[j], symmetric_values + col_ptr_[j + 1], 0.0);
      for (int c = J.contacts_ptr(j); c < J.contacts_ptr(j + 1); ++c) {
        const int i = J.contact_of(c);
        const int first = J.support_begin(i);
        const double* ja = jc + 3 * static_cast<size_t>(first);                      // Jcᵢ(:, a) = ja[3a .. 3a + 2]
        const double* bj = bj_.data() + 3 * static_cast<size_t>(J.column_entry(c));  // (Bᵢ Jcᵢ)(:, b), column b = j
        const double bj0 = bj[0], bj1 = bj[1], bj2 = bj[2];
        const double jn_b = jc[3 * static_cast<size_t>(J.column_entry(c))];
        const double* u = u_.data() + first;
        const int* run = run_begin_.data() + run_ptr_[i];
        const int* slot = run_slot_.data() + slot_ptr_[c];
        for (int r = 0; r < num_runs(i); ++r) {
          const int a0 = run[r], length = run[r + 1] - a0;
          for (int t = 0; t < length; ++t) {
            const int a = a0 + t;
            const double K = ja[3 * a] * bj0 + ja[3 * a + 1] * bj1 + ja[3 * a + 2] * bj2;  // Kᵢ(a, b)
            values[slot[r] + t] += K;
            if (symmetric) symmetric_values[slot[r] + t] += K - u[a] * jn_b;
          }
        }
      }
      for (int e = col_ptr_[j]; e < col_ptr_[j + 1]; ++e) {
        const double m_value = m_source_[e] >= 0 ? m_values[m_source_[e]] : 0.0;
        values[e] = m_value + h * values[e];
        if (symmetric) symmetric_values[e] = m_value + h * symmetric_values[e];
      }
    }
  });
}

}  // namespace tamsi::kernels
