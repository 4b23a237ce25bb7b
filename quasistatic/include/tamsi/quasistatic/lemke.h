#pragma once
/// @file
/// A lexicographic Lemke solver for small, dense, degenerate linear complementarity problems LCP(q, M):
/// find z ≥ 0 with w = M z + q ≥ 0 and zᵀw = 0 (spec quasistatic.md §9). It is the solver behind the quasi-static
/// model's velocity and time-stepping LCPs (§3, §4), whose matrices are copositive but not copositive-plus.

#include <Eigen/Dense>
#include <string>

namespace tamsi::quasistatic {

/// How a Lemke solve ended.
enum class LemkeStatus {
  kSolved,          ///< z satisfies the LCP within LemkeOptions::residual_tolerance.
  kRayTermination,  ///< The entering column had no positive entry: Lemke's method ended on a secondary ray.
                    ///< For a copositive M this certifies that q is not in SOL(0, M)*; usually no solution exists.
  kMaxIterations,   ///< The pivot count reached LemkeOptions::max_iterations.
  kInaccurate,      ///< Lemke terminated, but the recomputed residual exceeds the tolerance.
  kSingularBasis,   ///< Refactorizing the basis met a numerically singular matrix.
};

/// Name of a status, e.g. "ray_termination".
const char* ToString(LemkeStatus status);

/// Options of SolveLcp. All tolerances are relative (see the field docs); the defaults follow spec §9.
struct LemkeOptions {
  /// Pivot cap; a value ≤ 0 means 50·n + 100 for an n × n problem.
  int max_iterations = 0;
  /// An entry a_i of the entering column is a pivot candidate when a_i > pivot_tolerance · max_j |a_j|.
  double pivot_tolerance = 1e-12;
  /// A ratio ties the minimum ratio θ of the lexicographic ratio test when it exceeds θ by at most
  /// ratio_tolerance · |θ| plus its round-off level (100 machine epsilons of the column's largest entry over the
  /// pivot). The artificial variable leaves whenever it ties (spec §9.2).
  double ratio_tolerance = 1e-9;
  /// Acceptance threshold for the scaled residual of LemkeResult::residual.
  double residual_tolerance = 1e-9;
  /// The basis inverse is recomputed from scratch (LU with partial pivoting) every this many pivots.
  int refactorization_interval = 50;

  /// True when every field is in range; otherwise false with a message naming the field in *why (if non-null).
  bool IsValid(std::string* why) const;
};

/// The outcome of SolveLcp.
struct LemkeResult {
  LemkeStatus status = LemkeStatus::kSolved;
  Eigen::VectorXd z;   ///< n; the last iterate (zero when no pivot was made). Meaningful when status is kSolved.
  Eigen::VectorXd w;   ///< n; recomputed as M z + q.
  int iterations = 0;  ///< Number of pivots, the initial pivot of the artificial variable included.
  /// Scaled residual max_i max(−z_i/s_z, −w_i/s_w, |z_i w_i|/(s_z s_w), 0) with s_z = max(1, ‖z‖∞) and
  /// s_w = max(1, ‖q‖∞, max|M_ij| · ‖z‖∞). Zero for an exact solution.
  double residual = 0.0;

  /// One line, e.g. "solved in 7 pivots, residual 1.2e-16".
  std::string BriefReport() const;
};

/// Solves LCP(q, M) by Lemke's complementary pivoting with covering vector d = 1 and a lexicographic minimum-ratio
/// test over the columns of the basis inverse (anti-cycling for degenerate problems). The solution is accepted by
/// its recomputed residual, never by the exit path alone.
///
/// @param M  n × n, dense, any sign pattern.
/// @param q  n.
/// @throws std::invalid_argument if M is not square, q's size differs from M's, an entry is not finite, or the
///         options are invalid (the message names the field).
LemkeResult SolveLcp(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const LemkeOptions& options = {});

/// The scaled LCP residual defined at LemkeResult::residual, for any candidate z (n).
double LcpResidual(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& z);

}  // namespace tamsi::quasistatic
