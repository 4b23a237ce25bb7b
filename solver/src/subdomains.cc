#include "subdomains.h"

#include <metis.h>

#include <algorithm>
#include <numeric>

namespace tamsi::internal {

Groups GroupBy(const std::vector<int>& key, int num_keys) {
  Groups g;
  g.ptr.assign(num_keys + 1, 0);
  for (int k : key) ++g.ptr[k + 1];
  std::partial_sum(g.ptr.begin(), g.ptr.end(), g.ptr.begin());
  g.items.resize(key.size());
  std::vector<int> next(g.ptr.begin(), g.ptr.end() - 1);
  for (int j = 0; j < static_cast<int>(key.size()); ++j) g.items[next[key[j]]++] = j;
  return g;
}

namespace {

/// The body graph: body → the other bodies it shares an entry of A with (in pattern order, each once).
Groups MakeBodyGraph(const CscView& A, const std::vector<int>& body, const Groups& velocities_of) {
  const int num_bodies = static_cast<int>(velocities_of.ptr.size()) - 1;
  Groups g;
  g.ptr.assign(1, 0);
  std::vector<int> seen(num_bodies, -1);
  for (int b = 0; b < num_bodies; ++b) {
    seen[b] = b;
    for (int e = velocities_of.ptr[b]; e < velocities_of.ptr[b + 1]; ++e) {
      const int j = velocities_of.items[e];
      for (int p = A.col_ptr[j]; p < A.col_ptr[j + 1]; ++p) {
        const int other = body[A.row_index[p]];
        if (seen[other] == b) continue;
        seen[other] = b;
        g.items.push_back(other);
      }
    }
    g.ptr.push_back(static_cast<int>(g.items.size()));
  }
  return g;
}

/// The number of parts that halving `n` bodies until each part holds at most `part_bodies` gives.
int CountParts(int n, int part_bodies) {
  if (n == 0) return 0;
  if (n <= part_bodies) return 1;
  return CountParts(n / 2, part_bodies) + CountParts(n - n / 2, part_bodies);
}

/// Splits the bodies into CountParts(bodies, part_bodies) parts by METIS's multilevel k-way partitioning of the body
/// graph (unweighted, parts balanced to within 3 %, METIS's fixed seed: the same graph always gives the same parts),
/// which minimizes the body pairs split between parts; where k-way leaves a part empty (graphs of a few bodies per
/// part), by METIS's recursive bisection instead. Returns each body's part, numbered from 0 in the order of the
/// bodies, any part still empty dropped; false when METIS fails.
bool PartitionBodies(const Groups& graph, int part_bodies, std::vector<int>* part, int* num_parts) {
  idx_t n = static_cast<idx_t>(graph.ptr.size()) - 1;
  idx_t parts = CountParts(static_cast<int>(n), part_bodies);
  part->assign(n, 0);
  *num_parts = std::min<int>(parts, 1);
  if (parts <= 1) return true;
  idx_t constraints = 1, objective = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;
  options[METIS_OPTION_UFACTOR] = 30;
  std::vector<idx_t> xadj(graph.ptr.begin(), graph.ptr.end()), adjncy(graph.items.begin(), graph.items.end()), out(n);
  auto number_parts = [&] {
    std::vector<int> number(parts, -1);
    *num_parts = 0;
    for (idx_t b = 0; b < n; ++b) {
      int& p = number[out[b]];
      if (p < 0) p = (*num_parts)++;
      (*part)[b] = p;
    }
  };
  if (METIS_PartGraphKway(&n, &constraints, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr, &parts, nullptr,
                          nullptr, options, &objective, out.data()) != METIS_OK)
    return false;
  number_parts();
  if (*num_parts == parts) return true;
  if (METIS_PartGraphRecursive(&n, &constraints, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr, &parts, nullptr,
                               nullptr, options, &objective, out.data()) != METIS_OK)
    return false;
  number_parts();
  return true;
}

}  // namespace

bool FindSubdomains(const CscView& A, const std::vector<int>& body, int num_bodies, int part_bodies,
                    Subdomains* subdomains) {
  const Groups velocities_of = GroupBy(body, num_bodies);
  const Groups graph = MakeBodyGraph(A, body, velocities_of);
  Subdomains& s = *subdomains;
  s = Subdomains{};
  if (!PartitionBodies(graph, part_bodies, &s.part, &s.count)) return false;
  const Groups bodies_of = GroupBy(s.part, s.count);
  std::vector<int> added(num_bodies, -1), members;
  for (int d = 0; d < s.count; ++d) {
    // The part's bodies and every body they touch, then their velocities in increasing order.
    members.clear();
    auto add = [&](int b) {
      if (added[b] == d) return;
      added[b] = d;
      members.push_back(b);
    };
    for (int e = bodies_of.ptr[d]; e < bodies_of.ptr[d + 1]; ++e) {
      const int b = bodies_of.items[e];
      add(b);
      for (int k = graph.ptr[b]; k < graph.ptr[b + 1]; ++k) add(graph.items[k]);
    }
    const size_t first = s.velocities.size();
    for (int b : members)
      s.velocities.insert(s.velocities.end(), velocities_of.items.begin() + velocities_of.ptr[b],
                          velocities_of.items.begin() + velocities_of.ptr[b + 1]);
    std::sort(s.velocities.begin() + first, s.velocities.end());
    s.ptr.push_back(static_cast<int>(s.velocities.size()));
  }
  return true;
}

}  // namespace tamsi::internal
