#pragma once
/// @file
/// Internal: a sparse Cholesky factorization whose unit is a block of consecutive columns with one pattern (a
/// body's velocities), for the symmetric preconditioner's S and the many small SPD blocks of the Schwarz
/// preconditioner.

#include <memory>

#include "linear_solver.h"

namespace tamsi::internal {

/// Block sparse Cholesky LLᵀ of an SPD matrix (both triangles stored). Consecutive columns with the same row
/// pattern form one block (a free body's 6 velocities); the blocks are ordered by AMD on the block graph, chains of
/// the block elimination tree are merged into relaxed supernodes of up to 64 columns, and those are factored one by
/// one (right-looking, in double precision), each panel holding its dense diagonal block and the dense blocks below
/// it, column-major, so that updates are dense products of rank the supernode's width: the diagonal block by Eigen's
/// LLT, the rest by the BLAS that SuiteSparse uses (dtrsm, dgemm; OpenBLAS picks its kernels for the CPU at run
/// time). Solves run in `precision`: kSingle on a float copy of the panels in
/// partitioned-inverse form, [L11⁻¹; −L21 L11⁻¹] per supernode, so that each supernode's solve is one dense product
/// (a preconditioner's accuracy, half the memory traffic; a relative error of ~1e-6 on well-conditioned blocks; the
/// inversion adds 10–30 % to a factorization, repaid when each factorization serves many solves, as in the Schwarz
/// subdomains), kDouble on L itself by triangular solves (exact to rounding, as a direct solver). Measured against
/// SuiteSparse's scalar LDLᵀ and CHOLMOD in bench/README.md, "Big islands". No allocation after Analyze; Factor fails
/// on a diagonal block that is not positive definite.
enum class SolvePrecision { kSingle, kDouble };
std::unique_ptr<LinearSolver> MakeBlockCholeskySolver(SolvePrecision precision);

}  // namespace tamsi::internal
