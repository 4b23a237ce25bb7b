#pragma once
/// @file
/// Internal: the overlapping subdomains of one island for one-level Schwarz (SchwarzPreconditioner). Bodies (the
/// FindBodies: a free body's 6 velocities, a whole articulated robot) are split into parts of about a given number of
/// bodies by METIS's k-way partition of the body graph (bodies joined by an entry of the Newton matrix, i.e. by a
/// contact or a constraint), and each part is extended by one layer of the bodies it touches. Needs no geometry, and
/// depends on nothing but the pattern: the same for any thread count.

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

/// *subdomains: the subdomains of the n × n pattern `A` (compressed columns, symmetric pattern). `body[j]` ∈
/// [0, num_bodies): the body of velocity j; `part_bodies` ≥ 1: the bodies per part before the overlap is added, as
/// many parts as halving the bodies until each part holds at most part_bodies gives (METIS balances them to within
/// 3 % of their mean; a part it leaves empty is dropped). The parts are METIS's k-way partition of the body graph: on
/// the settled N = 3,000 pile's Newton systems it cuts about half the edges that recursive breadth-first bisection cut
/// (whose parts fell into 144 disconnected pieces), and its subdomains need fewer GMRES iterations for smaller factors
/// (bench/README.md). False when METIS fails.
bool FindSubdomains(const CscView& A, const std::vector<int>& body, int num_bodies, int part_bodies,
                    Subdomains* subdomains);

}  // namespace tamsi::internal
