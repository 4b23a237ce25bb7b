#include "islands.h"

#include <tamsi/kernels/debug_assert.h>

#include <algorithm>
#include <numeric>

namespace tamsi::internal {
namespace {

int Find(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

void Join(std::vector<int>& parent, int i, int j) {
  const int a = Find(parent, i), b = Find(parent, j);
  if (a != b) parent[std::max(a, b)] = std::min(a, b);
}

/// Joins the sets of every entry (i, j) of the pattern; a root is always the smallest index of its set. A column with
/// the rows of the one before it (a body's velocities), whose rows are already joined with that column, joins it alone.
void JoinPattern(int n, const int* col_ptr, const int* row_index, std::vector<int>& parent) {
  for (int j = 0; j < n; ++j) {
    const int begin = col_ptr[j], end = col_ptr[j + 1];
    if (j > 0 && end > begin && end - begin == begin - col_ptr[j - 1] &&
        std::equal(row_index + begin, row_index + end, row_index + col_ptr[j - 1])) {
      Join(parent, j - 1, j);
      continue;
    }
    for (int e = begin; e < end; ++e) Join(parent, row_index[e], j);
  }
}

/// The sets of a union-find as components numbered by their smallest index.
Components Label(std::vector<int>& parent) {
  const int n = static_cast<int>(parent.size());
  Components c;
  c.of.resize(n);
  c.local.resize(n);
  for (int j = 0; j < n; ++j) {
    const int root = Find(parent, j);
    c.of[j] = root == j ? c.count++ : c.of[root];
  }
  c.ptr.assign(c.count + 1, 0);
  for (int j = 0; j < n; ++j) ++c.ptr[c.of[j] + 1];
  for (int k = 0; k < c.count; ++k) c.ptr[k + 1] += c.ptr[k];
  c.members.resize(n);
  std::vector<int> next(c.ptr.begin(), c.ptr.end() - 1);
  for (int j = 0; j < n; ++j) {
    c.local[j] = next[c.of[j]] - c.ptr[c.of[j]];
    c.members[next[c.of[j]]++] = j;
  }
  return c;
}

}  // namespace

Components FindComponents(int n, const int* col_ptr, const int* row_index, bool split) {
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  if (split) {
    JoinPattern(n, col_ptr, row_index, parent);
  } else {
    std::fill(parent.begin(), parent.end(), 0);
  }
  return Label(parent);
}

Components FindBodies(int n, const int* col_ptr, const int* row_index, const kernels::ContactJacobian& J) {
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  JoinPattern(n, col_ptr, row_index, parent);
  for (int j = 1; j < n; ++j) {
    if (J.contacts_ptr(j) == J.contacts_ptr(j + 1) || !J.SameContacts(j - 1, j)) continue;
    Join(parent, j - 1, j);
  }
  return Label(parent);
}

IslandPartition FindIslands(const kernels::NewtonMatrixPattern& pattern, const kernels::ContactJacobian& J,
                            bool split) {
  const int nv = pattern.size();
  const std::vector<int>& col_ptr = pattern.col_ptr();
  const std::vector<int>& row_index = pattern.row_index();
  // The pattern already joins every pair of velocities coupled by M or by a contact.
  Components components = FindComponents(nv, col_ptr.data(), row_index.data(), split);
  IslandPartition p;
  p.num_islands = components.count;
  p.velocity_ptr = std::move(components.ptr);
  p.velocities = std::move(components.members);
  const std::vector<int>& island = components.of;
  p.local = components.local;
  const std::vector<int>& local = p.local;
  // Contacts: the island of any velocity they touch (contacts touching none belong to no island).
  const int nc = J.num_contacts();
  std::vector<int> contact_island(nc, -1);
  std::vector<int> contact_count(p.num_islands + 1, 0);
  for (int i = 0; i < nc; ++i)
    if (J.support_size(i) > 0) ++contact_count[(contact_island[i] = island[J.support(i)[0]]) + 1];
  p.contact_ptr = contact_count;
  for (int k = 0; k < p.num_islands; ++k) p.contact_ptr[k + 1] += p.contact_ptr[k];
  p.contacts.resize(p.contact_ptr.back());
  std::vector<int> next(p.contact_ptr.begin(), p.contact_ptr.end() - 1);
  for (int i = 0; i < nc; ++i)
    if (contact_island[i] >= 0) p.contacts[next[contact_island[i]]++] = i;
  // Local compressed columns of each island's block; global columns of an island are visited in increasing order.
  p.column_ptr.assign(p.num_islands + 1, 0);
  p.entry_ptr.assign(p.num_islands + 1, 0);
  p.local_col_ptr.reserve(nv + p.num_islands);
  p.local_row_index.reserve(row_index.size());
  p.value_source.reserve(row_index.size());
  for (int k = 0; k < p.num_islands; ++k) {
    const int entry_base = static_cast<int>(p.local_row_index.size());
    p.local_col_ptr.push_back(0);
    for (int c = p.velocity_ptr[k]; c < p.velocity_ptr[k + 1]; ++c) {
      const int j = p.velocities[c];
      for (int e = col_ptr[j]; e < col_ptr[j + 1]; ++e) {
        TAMSI_DEBUG_ASSERT(island[row_index[e]] == k);  // an island is closed under the pattern's entries
        p.local_row_index.push_back(local[row_index[e]]);
        p.value_source.push_back(e);
      }
      p.local_col_ptr.push_back(static_cast<int>(p.local_row_index.size()) - entry_base);
    }
    p.column_ptr[k + 1] = static_cast<int>(p.local_col_ptr.size());
    p.entry_ptr[k + 1] = static_cast<int>(p.local_row_index.size());
  }
  return p;
}

}  // namespace tamsi::internal
