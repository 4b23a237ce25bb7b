#include "subdomains.h"

#include <algorithm>
#include <numeric>
#include <utility>

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

/// Splits bodies into parts of at most `part_bodies` by recursive bisection: each range of bodies is put in
/// breadth-first order from a pseudo-peripheral body (the last one reached from the range's first body) and cut in
/// half. Returns each body's part; parts are numbered in the final order of the bodies.
std::vector<int> BisectBodies(const Groups& graph, int part_bodies, int* num_parts) {
  const int num_bodies = static_cast<int>(graph.ptr.size()) - 1;
  std::vector<int> order(num_bodies);
  std::iota(order.begin(), order.end(), 0);
  std::vector<int> range_of(num_bodies, 0), visited(num_bodies, -1), queue;
  int ranges = 1, visits = 0;
  // Breadth-first order of the n bodies at `members` (those with range_of == id) from `start`; a component once
  // exhausted, the search goes on from the first unvisited member.
  auto breadth_first = [&](const int* members, int n, int start, int id) {
    const int visit = visits++;
    queue.clear();
    auto push = [&](int x) {
      visited[x] = visit;
      queue.push_back(x);
    };
    push(start);
    size_t head = 0;
    int scan = 0;
    while (static_cast<int>(queue.size()) < n) {
      if (head == queue.size()) {
        while (visited[members[scan]] == visit) ++scan;
        push(members[scan]);
      }
      const int x = queue[head++];
      for (int e = graph.ptr[x]; e < graph.ptr[x + 1]; ++e) {
        const int y = graph.items[e];
        if (range_of[y] == id && visited[y] != visit) push(y);
      }
    }
  };
  std::vector<std::pair<int, int>> stack{{0, num_bodies}}, parts;
  while (!stack.empty()) {
    const auto [begin, end] = stack.back();
    stack.pop_back();
    const int n = end - begin;
    if (n <= part_bodies) {
      if (n > 0) parts.emplace_back(begin, end);
      continue;
    }
    const int id = range_of[order[begin]];
    breadth_first(order.data() + begin, n, order[begin], id);
    breadth_first(order.data() + begin, n, queue.back(), id);
    std::copy(queue.begin(), queue.end(), order.begin() + begin);
    const int middle = begin + n / 2;
    const int low = ranges++, high = ranges++;
    for (int a = begin; a < end; ++a) range_of[order[a]] = a < middle ? low : high;
    stack.emplace_back(middle, end);
    stack.emplace_back(begin, middle);
  }
  std::sort(parts.begin(), parts.end());
  std::vector<int> part(num_bodies);
  for (int p = 0; p < static_cast<int>(parts.size()); ++p)
    for (int a = parts[p].first; a < parts[p].second; ++a) part[order[a]] = p;
  *num_parts = static_cast<int>(parts.size());
  return part;
}

}  // namespace

Subdomains FindSubdomains(const CscView& A, const std::vector<int>& body, int num_bodies, int part_bodies) {
  const Groups velocities_of = GroupBy(body, num_bodies);
  const Groups graph = MakeBodyGraph(A, body, velocities_of);
  Subdomains s;
  s.part = BisectBodies(graph, part_bodies, &s.count);
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
  return s;
}

}  // namespace tamsi::internal
