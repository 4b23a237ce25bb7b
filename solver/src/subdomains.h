#pragma once
/// @file
/// Internal: the overlapping subdomains of one island for one-level Schwarz (SchwarzPreconditioner). Bodies (the
/// FindBodies: a free body's 6 velocities, a whole articulated robot) are split into parts
/// of at most a given number of bodies by recursive bisection of the body graph (bodies joined by an entry of the
/// Newton matrix, i.e. by a contact or a constraint), and each part is extended by one layer of the bodies it
/// touches. Needs no geometry, and depends on nothing but the pattern: the same for any thread count.

#include <vector>

#include "linear_solver.h"

namespace tamsi::internal {

/// Items grouped by a key in compressed-row form: key → its items (indices into the keys), in increasing order.
struct Groups {
  std::vector<int> ptr, items;
};
/// The indices j of `key` grouped by key[j] ∈ [0, num_keys) (a counting sort).
Groups GroupBy(const std::vector<int>& key, int num_keys);

struct Subdomains {
  int count{0};
  /// Subdomain → its velocities (sorted local indices of A), compressed-row form: its part's bodies and the bodies
  /// they touch.
  std::vector<int> ptr{0}, velocities;
  /// Body → its part (the subdomain it belongs to before the overlap is added).
  std::vector<int> part;

  int size(int d) const { return ptr[d + 1] - ptr[d]; }
};

/// Subdomains of the n × n pattern `A` (compressed columns, symmetric pattern). `body[j]` ∈ [0, num_bodies): the
/// body of velocity j; `part_bodies` ≥ 1: the most bodies per part before the overlap is added.
Subdomains FindSubdomains(const CscView& A, const std::vector<int>& body, int num_bodies, int part_bodies);

}  // namespace tamsi::internal
