#include "schwarz.h"

#include <algorithm>

namespace tamsi::internal {

bool SchwarzPreconditioner::Analyze(const kernels::ThreadBudget& budget, const CscView& A, const std::vector<int>& body,
                                    int num_bodies, int part_bodies, std::string* message) {
  if (!FindSubdomains(A, body, num_bodies, part_bodies, &subdomains_)) {
    if (message) *message = "Schwarz subdomains: METIS could not partition the island's bodies";
    blocks_.clear();
    return false;
  }
  copies_ = GroupBy(subdomains_.velocities, A.n);
  local_solutions_.setZero(static_cast<Eigen::Index>(subdomains_.velocities.size()));
  blocks_.clear();
  blocks_.resize(subdomains_.count);
  budget.For(subdomains_.count, 1, [&](int begin, int end) {
    std::vector<int> local(A.n, -1);  // velocity → its index in the subdomain at hand, −1 outside it
    for (int d = begin; d < end; ++d) {
      Block& b = blocks_[d];
      const int* first = subdomains_.velocities.data() + subdomains_.ptr[d];
      const int* last = first + subdomains_.size(d);
      for (const int* j = first; j != last; ++j) local[*j] = static_cast<int>(j - first);
      b.col_ptr.assign(1, 0);
      for (const int* j = first; j != last; ++j) {
        for (int p = A.col_ptr[*j]; p < A.col_ptr[*j + 1]; ++p) {
          const int i = local[A.row_index[p]];
          if (i < 0) continue;
          if (i == j - first) b.diagonal.push_back(static_cast<int>(b.row_index.size()));
          b.row_index.push_back(i);
          b.source.push_back(A.slot(p));
        }
        b.col_ptr.push_back(static_cast<int>(b.row_index.size()));
      }
      for (const int* j = first; j != last; ++j) local[*j] = -1;
      b.values.setZero(static_cast<Eigen::Index>(b.source.size()));
      if (static_cast<int>(b.diagonal.size()) != subdomains_.size(d)) {
        b.message = "a column without its diagonal entry";
        continue;
      }
      b.factorization = MakeBlockCholeskySolver(CholeskyPrecision::kSingleInverted);
      b.ok = b.factorization->Analyze(
          CscView{subdomains_.size(d), b.col_ptr.data(), b.row_index.data(), b.values.data()}, &b.message);
    }
  });
  return CollectStatus("analysis", message);
}

bool SchwarzPreconditioner::Factor(const kernels::ThreadBudget& budget, const CscView& S, double refactor_tolerance,
                                   int* factored, std::string* message) {
  budget.For(subdomains_.count, 1, [&](int begin, int end) {
    for (int d = begin; d < end; ++d) {
      Block& b = blocks_[d];
      b.factored = !b.ok || Changed(b, S, refactor_tolerance);
      if (!b.factored) continue;
      for (Eigen::Index e = 0; e < b.values.size(); ++e) b.values[e] = S.values[b.source[e]];
      b.ok = b.factorization->Factor(
          CscView{subdomains_.size(d), b.col_ptr.data(), b.row_index.data(), b.values.data()}, &b.message);
    }
  });
  *factored =
      static_cast<int>(std::count_if(blocks_.begin(), blocks_.end(), [](const Block& b) { return b.factored; }));
  return CollectStatus("factorization", message);
}

bool SchwarzPreconditioner::Changed(const Block& b, const CscView& S, double tolerance) {
  for (int j = 0; j + 1 < static_cast<int>(b.col_ptr.size()); ++j) {
    const double s_jj = b.values[b.diagonal[j]];
    for (int e = b.col_ptr[j]; e < b.col_ptr[j + 1]; ++e) {
      const double change = S.values[b.source[e]] - b.values[e];
      if (!(change * change <= tolerance * tolerance * s_jj * b.values[b.diagonal[b.row_index[e]]])) return true;
    }
  }
  return false;
}

bool SchwarzPreconditioner::Apply(const kernels::ThreadBudget& budget, const Eigen::VectorXd& r, Eigen::VectorXd* z) {
  if (!CollectStatus("solve", nullptr)) return false;
  budget.For(subdomains_.count, 1, [&](int begin, int end) {
    for (int d = begin; d < end; ++d) {
      const int* velocities = subdomains_.velocities.data() + subdomains_.ptr[d];
      blocks_[d].factorization->SolveGathered(r, velocities, local_solutions_.data() + subdomains_.ptr[d]);
    }
  });
  z->resize(r.size());
  budget.For(static_cast<int>(r.size()), 4096, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      double sum = 0.0;
      for (int c = copies_.ptr[i]; c < copies_.ptr[i + 1]; ++c) sum += local_solutions_[copies_.items[c]];
      (*z)[i] = sum;
    }
  });
  return true;
}

bool SchwarzPreconditioner::CollectStatus(const char* what, std::string* message) const {
  for (int d = 0; d < subdomains_.count; ++d) {
    if (blocks_[d].ok) continue;
    if (message) *message = "Schwarz subdomain " + std::to_string(d) + " " + what + ": " + blocks_[d].message;
    return false;
  }
  return true;
}

}  // namespace tamsi::internal
