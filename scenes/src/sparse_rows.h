#pragma once
/// @file
/// Internal: rows of a sparse matrix in CSR form, appended one at a time by the front end (contact and constraint
/// Jacobians), and their transfer into the column-major matrices of a ContactProblem.

#include <tamsi/contact_problem.h>

#include <algorithm>
#include <vector>

namespace tamsi::scenes::internal {

struct SparseRows {
  std::vector<int> outer{0}, inner;
  std::vector<double> values;

  int size() const { return static_cast<int>(outer.size()) - 1; }
  /// Keeps the capacity: a front end refilled every step allocates nothing once it has held as many entries.
  void Clear() {
    outer.assign(1, 0);
    inner.clear();
    values.clear();
  }
  void Add(int column, double value) {
    inner.push_back(column);
    values.push_back(value);
  }
  void EndRow() { outer.push_back(static_cast<int>(inner.size())); }
};

/// Writes `rows` into `matrix` (rows.size() × cols, column-major) by a counting sort, in the matrix's own storage:
/// nothing is allocated once it has held as many columns and nonzeros. `next` (cols entries) is scratch. With `slot`,
/// each entry k of `rows` records where its value went among the matrix's.
inline void RowsToColumns(const SparseRows& rows, int cols, std::vector<int>* next, SparseMatrix* matrix,
                          std::vector<int>* slot = nullptr) {
  const int n = rows.size();
  const int nnz = rows.outer[n];
  matrix->resize(n, cols);  // compressed, column starts zeroed
  matrix->resizeNonZeros(nnz);
  int* start = matrix->outerIndexPtr();
  for (int k = 0; k < nnz; ++k) ++start[rows.inner[k] + 1];
  for (int c = 0; c < cols; ++c) start[c + 1] += start[c];
  std::copy(start, start + cols, next->begin());
  int* row_index = matrix->innerIndexPtr();
  double* value = matrix->valuePtr();
  if (slot) slot->resize(nnz);
  for (int r = 0; r < n; ++r) {
    for (int k = rows.outer[r]; k < rows.outer[r + 1]; ++k) {
      const int at = (*next)[rows.inner[k]]++;
      row_index[at] = r;
      value[at] = rows.values[k];
      if (slot) (*slot)[k] = at;
    }
  }
}

}  // namespace tamsi::scenes::internal
