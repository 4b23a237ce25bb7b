#pragma once
/// @file
/// Internal: a sparse Cholesky factorization whose unit is a block of consecutive columns with one pattern (a
/// body's velocities), for the many small SPD blocks of the Schwarz preconditioner.

#include <memory>

#include "linear_solver.h"

namespace tamsi::internal {

/// Block sparse Cholesky LLᵀ of an SPD matrix (both triangles stored). Consecutive columns with the same row
/// pattern form one block (a free body's 6 velocities); the blocks are ordered by AMD on the block graph, chains of
/// blocks with nested patterns are merged into supernodes of up to 64 columns, and those are factored one by one
/// (right-looking, in double precision), each panel holding its dense diagonal block and the dense blocks below it,
/// column-major, so that updates are dense products of rank the supernode's width. Solves run in single precision on
/// a float copy of L (a preconditioner's accuracy, half the memory traffic), to a relative error of ~1e-6 on
/// well-conditioned blocks. Measured against SuiteSparse's scalar LDLᵀ and CHOLMOD in bench/README.md, "Big
/// islands". No allocation after Analyze; Factor fails on a diagonal block that is not positive definite.
std::unique_ptr<LinearSolver> MakeBlockCholeskySolver();

}  // namespace tamsi::internal
