#include <tamsi/contact_problem.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tamsi {
namespace {

[[noreturn]] void Fail(const std::string& field, const std::string& what) {
  throw std::invalid_argument("ContactProblem." + field + ": " + what);
}

/// Field names are C strings: a std::string of a long name would allocate on every (steady-state) Validate.
void CheckShape(const char* field, const SparseMatrix& A, Eigen::Index rows, Eigen::Index cols) {
  if (A.rows() != rows || A.cols() != cols) {
    std::ostringstream os;
    os << "expected " << rows << " × " << cols << ", got " << A.rows() << " × " << A.cols();
    Fail(field, os.str());
  }
}

/// Each check first tests every value in one vectorized pass and walks the entries only to name a bad one: a
/// simulator validates every step's problem.
void CheckFinite(const char* field, const SparseMatrix& A) {
  if (A.isCompressed() && Eigen::Map<const Eigen::VectorXd>(A.valuePtr(), A.nonZeros()).allFinite()) return;
  for (int j = 0; j < A.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(A, j); it; ++it)
      if (!std::isfinite(it.value())) {
        std::ostringstream os;
        os << "non-finite value at (" << it.row() << ", " << it.col() << ")";
        Fail(field, os.str());
      }
}

void CheckVector(const char* field, const Eigen::VectorXd& x, Eigen::Index size, bool non_negative) {
  if (x.size() != size) {
    std::ostringstream os;
    os << "expected size " << size << ", got " << x.size();
    Fail(field, os.str());
  }
  if (x.allFinite() && (!non_negative || x.size() == 0 || x.minCoeff() >= 0.0)) return;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) Fail(field, "non-finite value at index " + std::to_string(i));
    if (non_negative && x[i] < 0.0) {
      std::ostringstream os;
      os << "must be ≥ 0, got " << x[i] << " at index " << i;
      Fail(field, os.str());
    }
  }
}

/// M = Mᵀ to 1e-10 times its largest entry (both triangles stored), and a positive diagonal, in one pass: the upper
/// entries (r, c), r < c, of each column c are met in increasing r, as the lower entries (c, r) of the columns r are,
/// so a cursor per column walks them; an entry whose mirror is not stored must be below the tolerance.
void CheckSymmetricWithPositiveDiagonal(const SparseMatrix& M) {
  const int n = static_cast<int>(M.outerSize());
  const int* outer = M.outerIndexPtr();
  const int* inner = M.innerIndexPtr();
  const double* values = M.valuePtr();
  auto end = [&](int j) { return M.isCompressed() ? outer[j + 1] : outer[j] + M.innerNonZeroPtr()[j]; };
  double scale = 0.0;
  for (int j = 0; j < n; ++j)
    for (int p = outer[j]; p < end(j); ++p) scale = std::max(scale, std::abs(values[p]));
  const double tolerance = 1e-10 * scale;
  auto check = [&](int row, int col, double value, double mirror) {
    if (std::abs(value - mirror) <= tolerance) return;
    std::ostringstream os;
    os << "must be symmetric with both triangles stored: M(" << row << ", " << col << ") = " << value << " but M("
       << col << ", " << row << ") = " << mirror;
    Fail("M", os.str());
  };
  thread_local std::vector<int> cursor;  // per column: its first upper entry not yet met (kept: no steady allocation)
  cursor.assign(outer, outer + n);
  for (int j = 0; j < n; ++j) {
    bool diagonal = false;
    for (int p = outer[j]; p < end(j); ++p) {
      const int i = inner[p];
      diagonal |= i == j && values[p] > 0.0;
      if (i <= j) continue;
      int& q = cursor[i];
      for (; q < end(i) && inner[q] < j; ++q) check(inner[q], i, values[q], 0.0);  // no mirror stored below
      double mirror = 0.0;
      if (q < end(i) && inner[q] == j) mirror = values[q++];
      check(i, j, values[p], mirror);
    }
    if (!diagonal) Fail("M", "diagonal entry " + std::to_string(j) + " must be > 0");
  }
  for (int c = 0; c < n; ++c)
    for (int q = cursor[c]; q < end(c) && inner[q] < c; ++q) check(inner[q], c, values[q], 0.0);
}

}  // namespace

void ContactProblem::Validate() const {
  if (!(time_step > 0.0) || !std::isfinite(time_step)) {
    std::ostringstream os;
    os << "must be finite and > 0, got " << time_step;
    Fail("time_step", os.str());
  }
  if (M.rows() != M.cols()) {
    std::ostringstream os;
    os << "must be square, got " << M.rows() << " × " << M.cols();
    Fail("M", os.str());
  }
  const Eigen::Index nv = M.rows();
  const Eigen::Index nc = Jn.rows();
  CheckFinite("M", M);
  CheckSymmetricWithPositiveDiagonal(M);
  CheckShape("Jn", Jn, nc, nv);
  CheckShape("Jt", Jt, 2 * nc, nv);
  CheckFinite("Jn", Jn);
  CheckFinite("Jt", Jt);
  CheckVector("p_star", p_star, nv, false);
  CheckVector("delta0", delta0, nc, false);
  CheckVector("stiffness", stiffness, nc, true);
  CheckVector("dissipation", dissipation, nc, true);
  CheckVector("friction", friction, nc, true);
  const Eigen::Index nb = Jb.rows();
  if (nb > 0 || Jb.cols() > 0) CheckShape("Jb", Jb, nb, nv);
  CheckFinite("Jb", Jb);
  CheckVector("g0", g0, nb, false);
  CheckVector("constraint_stiffness", constraint_stiffness, nb, true);
  CheckVector("constraint_damping", constraint_damping, nb, true);
  if (v0) CheckVector("v0", *v0, nv, false);
  if (v_guess) CheckVector("v_guess", *v_guess, nv, false);
  if (w_guess) {
    CheckVector("w_guess", *w_guess, 2 * nc, false);
    for (Eigen::Index i = 0; i < nc; ++i) {
      if (!(w_guess->segment<2>(2 * i).norm() <= 1.0 + 1e-12)) {
        throw std::invalid_argument("ContactProblem.w_guess: contact " + std::to_string(i) +
                                    " has norm > 1 (the friction duals lie in the unit disk)");
      }
    }
  }
}

}  // namespace tamsi
