#include "tamsi/quasistatic/lemke.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <vector>

namespace tamsi::quasistatic {
namespace {

// Variables of the augmented system  I w − M z − d z0 = q  are numbered w_i = i, z_i = n + i, z0 = 2n.
class LemkeTableau {
 public:
  LemkeTableau(const Eigen::MatrixXd& M, const Eigen::VectorXd& q)
      : M_(M), q_(q), n_(static_cast<int>(q.size())), basis_(n_), Binv_(Eigen::MatrixXd::Identity(n_, n_)), x_(q) {
    for (int i = 0; i < n_; ++i) basis_[i] = i;
  }

  int artificial() const { return 2 * n_; }

  // Column of a variable in the augmented system.
  Eigen::VectorXd Column(int var) const {
    if (var < n_) return Eigen::VectorXd::Unit(n_, var);
    if (var < 2 * n_) return -M_.col(var - n_);
    return -Eigen::VectorXd::Ones(n_);
  }

  // Makes `entering` basic in `row`, given its column a = B⁻¹ Column(entering). Returns the leaving variable.
  int Pivot(int row, int entering, const Eigen::VectorXd& a) {
    const double pivot = a(row);
    Binv_.row(row) /= pivot;
    x_(row) /= pivot;
    for (int i = 0; i < n_; ++i) {
      if (i == row || a(i) == 0.0) continue;
      Binv_.row(i) -= a(i) * Binv_.row(row);
      x_(i) -= a(i) * x_(row);
    }
    const int leaving = basis_[row];
    basis_[row] = entering;
    return leaving;
  }

  // Recomputes B⁻¹ and x = B⁻¹ q from the basis columns. Returns false if B is numerically singular.
  bool Refactorize() {
    Eigen::MatrixXd B(n_, n_);
    for (int i = 0; i < n_; ++i) B.col(i) = Column(basis_[i]);
    Eigen::PartialPivLU<Eigen::MatrixXd> lu(B);
    const double rcond = lu.rcond();
    if (!(rcond > 1e-15)) return false;
    Binv_ = lu.inverse();
    x_ = lu.solve(q_);
    return true;
  }

  // The current z (n): basic z variables take their x value.
  Eigen::VectorXd Z() const {
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n_);
    for (int i = 0; i < n_; ++i) {
      if (basis_[i] >= n_ && basis_[i] < 2 * n_) z(basis_[i] - n_) = x_(i);
    }
    return z;
  }

  const Eigen::MatrixXd& Binv() const { return Binv_; }
  const Eigen::VectorXd& x() const { return x_; }
  int basis(int row) const { return basis_[row]; }

 private:
  const Eigen::MatrixXd& M_;
  const Eigen::VectorXd& q_;
  int n_;
  std::vector<int> basis_;
  Eigen::MatrixXd Binv_;
  Eigen::VectorXd x_;
};

// Keeps, among `rows`, those whose key(i) ties the minimum key: key(i) − min ≤ tolerance · |min| + floor(i), where
// floor(i) is the round-off level of key(i).
template <typename Key, typename Floor>
void KeepMinimal(std::vector<int>* rows, double tolerance, Key key, Floor floor) {
  double lo = INFINITY;
  for (int i : *rows) lo = std::min(lo, key(i));
  std::vector<int> kept;
  for (int i : *rows) {
    if (key(i) - lo <= tolerance * std::abs(lo) + floor(i)) kept.push_back(i);
  }
  rows->swap(kept);
}

// Lexicographic choice among candidate rows. `sign` = +1 selects the lexicographic minimum of (x_i, B⁻¹_i)/a_i (the
// usual ratio test); the initial pivot of the artificial variable uses sign = −1 with a = −d, i.e. the lexicographic
// maximum of (−x_i, −B⁻¹_i)/d_i. Returns −1 if no candidate exists.
int LexicographicRow(const LemkeTableau& tableau, const Eigen::VectorXd& a, std::vector<int> rows, double sign,
                     double ratio_tolerance) {
  if (rows.empty()) return -1;
  constexpr double kRoundoff = 100 * std::numeric_limits<double>::epsilon();
  const double x_scale = kRoundoff * tableau.x().cwiseAbs().maxCoeff();
  KeepMinimal(
      &rows, ratio_tolerance, [&](int i) { return sign * tableau.x()(i) / a(i); },
      [&](int i) { return x_scale / std::abs(a(i)); });
  for (int i : rows) {
    if (tableau.basis(i) == tableau.artificial()) return i;
  }
  const int n = static_cast<int>(a.size());
  for (int j = 0; j < n && rows.size() > 1; ++j) {
    const double column_scale = kRoundoff * tableau.Binv().col(j).cwiseAbs().maxCoeff();
    KeepMinimal(
        &rows, ratio_tolerance, [&](int i) { return sign * tableau.Binv()(i, j) / a(i); },
        [&](int i) { return column_scale / std::abs(a(i)); });
  }
  // Remaining ties are numerical: take the largest pivot.
  return *std::max_element(rows.begin(), rows.end(), [&](int i, int k) { return std::abs(a(i)) < std::abs(a(k)); });
}

LemkeResult Finish(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, Eigen::VectorXd z, LemkeStatus status,
                   int iterations, const LemkeOptions& options) {
  LemkeResult result;
  result.iterations = iterations;
  result.residual = LcpResidual(M, q, z);
  result.w = M * z + q;
  result.z = std::move(z);
  result.status = status;
  if (status == LemkeStatus::kSolved && !(result.residual <= options.residual_tolerance)) {
    result.status = LemkeStatus::kInaccurate;
  }
  return result;
}

}  // namespace

const char* ToString(LemkeStatus status) {
  switch (status) {
    case LemkeStatus::kSolved:
      return "solved";
    case LemkeStatus::kRayTermination:
      return "ray_termination";
    case LemkeStatus::kMaxIterations:
      return "max_iterations";
    case LemkeStatus::kInaccurate:
      return "inaccurate";
    case LemkeStatus::kSingularBasis:
      return "singular_basis";
  }
  return "unknown";
}

bool LemkeOptions::IsValid(std::string* why) const {
  auto fail = [why](const char* message) {
    if (why != nullptr) *why = message;
    return false;
  };
  if (!(pivot_tolerance >= 0.0 && pivot_tolerance < 1.0)) return fail("pivot_tolerance must be in [0, 1)");
  if (!(ratio_tolerance >= 0.0 && ratio_tolerance < 1.0)) return fail("ratio_tolerance must be in [0, 1)");
  if (!(residual_tolerance > 0.0)) return fail("residual_tolerance must be positive");
  if (refactorization_interval < 1) return fail("refactorization_interval must be at least 1");
  return true;
}

std::string LemkeResult::BriefReport() const {
  char buffer[160];
  std::snprintf(buffer, sizeof(buffer), "%s in %d pivots, residual %.3g", ToString(status), iterations, residual);
  return buffer;
}

double LcpResidual(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& z) {
  const Eigen::VectorXd w = M * z + q;
  const double z_max = z.size() ? z.cwiseAbs().maxCoeff() : 0.0;
  const double s_z = std::max(1.0, z_max);
  const double m_max = M.size() ? M.cwiseAbs().maxCoeff() : 0.0;
  const double q_max = q.size() ? q.cwiseAbs().maxCoeff() : 0.0;
  const double s_w = std::max({1.0, q_max, m_max * z_max});
  double r = 0.0;
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    r = std::max({r, -z(i) / s_z, -w(i) / s_w, std::abs(z(i) * w(i)) / (s_z * s_w)});
  }
  return std::isnan(r) ? INFINITY : r;
}

LemkeResult SolveLcp(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const LemkeOptions& options) {
  std::string why;
  if (!options.IsValid(&why)) throw std::invalid_argument("LemkeOptions: " + why);
  if (M.rows() != M.cols()) throw std::invalid_argument("SolveLcp: M must be square");
  if (q.size() != M.rows()) throw std::invalid_argument("SolveLcp: q must have as many entries as M has rows");
  if (!M.allFinite()) throw std::invalid_argument("SolveLcp: M has a non-finite entry");
  if (!q.allFinite()) throw std::invalid_argument("SolveLcp: q has a non-finite entry");

  const int n = static_cast<int>(q.size());
  if (n == 0 || q.minCoeff() >= 0.0) {
    return Finish(M, q, Eigen::VectorXd::Zero(n), LemkeStatus::kSolved, 0, options);
  }
  const int max_iterations = options.max_iterations > 0 ? options.max_iterations : 50 * n + 100;

  LemkeTableau tableau(M, q);
  // Initial pivot: z0 enters at the level that makes every w_i = q_i + z0 ≥ 0; the most negative q_i leaves.
  Eigen::VectorXd a = tableau.Column(tableau.artificial());
  std::vector<int> rows;
  for (int i = 0; i < n; ++i) {
    if (q(i) < 0.0) rows.push_back(i);
  }
  int row = LexicographicRow(tableau, a, rows, -1.0, options.ratio_tolerance);
  int leaving = tableau.Pivot(row, tableau.artificial(), a);
  int iterations = 1;
  int since_refactorization = 1;

  while (true) {
    const int entering = leaving < n ? leaving + n : leaving - n;  // the complement of the variable that left
    if (iterations >= max_iterations) {
      return Finish(M, q, tableau.Z(), LemkeStatus::kMaxIterations, iterations, options);
    }
    if (since_refactorization >= options.refactorization_interval) {
      if (!tableau.Refactorize()) return Finish(M, q, tableau.Z(), LemkeStatus::kSingularBasis, iterations, options);
      since_refactorization = 0;
    }
    a = tableau.Binv() * tableau.Column(entering);
    const double a_max = a.cwiseAbs().maxCoeff();
    rows.clear();
    for (int i = 0; i < n; ++i) {
      if (a(i) > options.pivot_tolerance * a_max) rows.push_back(i);
    }
    row = LexicographicRow(tableau, a, rows, 1.0, options.ratio_tolerance);
    if (row < 0) return Finish(M, q, tableau.Z(), LemkeStatus::kRayTermination, iterations, options);
    leaving = tableau.Pivot(row, entering, a);
    ++iterations;
    ++since_refactorization;
    if (leaving == tableau.artificial()) {
      // Polish the final basis once: x = B⁻¹ q from a fresh factorization.
      if (!tableau.Refactorize()) return Finish(M, q, tableau.Z(), LemkeStatus::kSingularBasis, iterations, options);
      return Finish(M, q, tableau.Z(), LemkeStatus::kSolved, iterations, options);
    }
  }
}

}  // namespace tamsi::quasistatic
