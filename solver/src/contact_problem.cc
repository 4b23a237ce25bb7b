#include <tamsi/contact_problem.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

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

void CheckFinite(const char* field, const SparseMatrix& A) {
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
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) Fail(field, "non-finite value at index " + std::to_string(i));
    if (non_negative && x[i] < 0.0) {
      std::ostringstream os;
      os << "must be ≥ 0, got " << x[i] << " at index " << i;
      Fail(field, os.str());
    }
  }
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
  // Symmetry relative to the largest entry, and a positive diagonal; M(j, i) is found by binary search in column i.
  if (nv > 0) {
    double scale = 0.0;
    for (int j = 0; j < M.outerSize(); ++j)
      for (SparseMatrix::InnerIterator it(M, j); it; ++it) scale = std::max(scale, std::abs(it.value()));
    for (int j = 0; j < M.outerSize(); ++j) {
      bool diagonal = false;
      for (SparseMatrix::InnerIterator it(M, j); it; ++it) {
        const double mirror = M.coeff(j, it.row());
        if (std::abs(it.value() - mirror) > 1e-10 * scale) {
          std::ostringstream os;
          os << "must be symmetric with both triangles stored: M(" << it.row() << ", " << j << ") = " << it.value()
             << " but M(" << j << ", " << it.row() << ") = " << mirror;
          Fail("M", os.str());
        }
        diagonal |= it.row() == j && it.value() > 0.0;
      }
      if (!diagonal) Fail("M", "diagonal entry " + std::to_string(j) + " must be > 0");
    }
  }
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
