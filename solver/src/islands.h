#pragma once
/// @file
/// Internal: islands, the connected components of the Newton matrix's graph (velocities coupled through M or through
/// a shared contact). Each island's block of the Newton matrix is independent of the others, so Newton can run on
/// every island with its own factorization, TALS α and convergence test.

#include <tamsi/kernels/contact_jacobian.h>
#include <tamsi/kernels/newton_assembly.h>

#include <vector>

namespace tamsi::internal {

/// The connected components of the graph of an n × n pattern (compressed columns; an entry (i, j) joins i and j),
/// numbered by their smallest index; with `split` false, one component holds everything.
struct Components {
  int count{0};
  /// Component → its indices (sorted), in compressed-row form; index → its component and its place within it.
  std::vector<int> ptr{0}, members, of, local;
};
Components FindComponents(int n, const int* col_ptr, const int* row_index, bool split = true);

/// The bodies of a problem, the units that Schwarz subdomains are made of: velocities joined through M's n × n
/// pattern (an articulated robot, a free body whose inertia couples its velocities), or consecutive velocities
/// touched by exactly the same contacts of `J` (a free body whose M is diagonal, as a body frame on its principal
/// axes gives). Two touching bodies that touch nothing else become one; a velocity touched by no contact is its own.
Components FindBodies(int n, const int* col_ptr, const int* row_index, const kernels::ContactJacobian& J);

struct IslandPartition {
  int num_islands{0};
  /// Island → its velocities (sorted global indices) and contacts (sorted), in compressed-row form.
  std::vector<int> velocity_ptr{0}, velocities;
  std::vector<int> contact_ptr{0}, contacts;
  /// Velocity → its index in its island (nv).
  std::vector<int> local;
  /// Island → its block of the Newton matrix in compressed-column form with local indices: columns
  /// [column_ptr[k], column_ptr[k+1]) of `local_col_ptr`, entries [entry_ptr[k], entry_ptr[k+1]) of `local_row_index`
  /// and `value_source` (the entry's index in the global values).
  std::vector<int> column_ptr{0}, entry_ptr{0};
  std::vector<int> local_col_ptr, local_row_index, value_source;

  int num_velocities(int k) const { return velocity_ptr[k + 1] - velocity_ptr[k]; }
};

/// Islands of `pattern`, numbered by their smallest velocity. With `split` false, one island holds everything.
IslandPartition FindIslands(const kernels::NewtonMatrixPattern& pattern, const kernels::ContactJacobian& J, bool split);

}  // namespace tamsi::internal
