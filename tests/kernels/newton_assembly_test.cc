// NewtonMatrixPattern (kernels/include/tamsi/kernels/newton_assembly.h) against a dense sum of the contacts' blocks
// (and AssembleDenseBlock against NewtonMatrixPattern):
// supports mixing whole bodies (runs of 6 sharing columns), long runs (past the unrolled lengths), single velocities
// and gaps, so that every run length and column group the assembly distinguishes is summed.
#include <gtest/gtest.h>
#include <tamsi/kernels/contact_jacobian.h>
#include <tamsi/kernels/newton_assembly.h>
#include <tamsi/kernels/parallel.h>

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <cstring>
#include <random>
#include <vector>

namespace tamsi::kernels {
namespace {

using SparseMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

struct AssemblyCase {
  SparseMatrix M, Jn, Jt;
  Eigen::VectorXd blocks;  // 9nc, row-major 3 × 3 per contact
  double h{2e-3};
};

/// nv = 6 bodies × 6 + 14 joint velocities; each contact's support is drawn from: one body (a run of 6), two bodies
/// (runs of 6 in two column groups), a body with a few joints (runs of 6 and of 1–3), a chain of 9–14 joints (a run
/// longer than 8), or scattered joints (runs of 1).
AssemblyCase RandomCase(unsigned seed, int nc) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::uniform_int_distribution<int> kind(0, 4), body(0, 5), joint(36, 49);
  const int nv = 50;
  AssemblyCase c;
  Eigen::MatrixXd R = Eigen::MatrixXd::NullaryExpr(nv, nv, [&] { return value(rng); });
  Eigen::MatrixXd M = 0.05 * R * R.transpose() + Eigen::MatrixXd::Identity(nv, nv);
  for (int a = 0; a < nv; ++a)  // M block-diagonal per body, diagonal over the joints
    for (int b = 0; b < nv; ++b)
      if (a != b && (a >= 36 || b >= 36 || a / 6 != b / 6)) M(a, b) = 0.0;
  c.M = M.sparseView();
  Eigen::MatrixXd Jn = Eigen::MatrixXd::Zero(nc, nv), Jt = Eigen::MatrixXd::Zero(2 * nc, nv);
  for (int i = 0; i < nc; ++i) {
    std::vector<int> support;
    auto add_body = [&](int b) {
      for (int a = 0; a < 6; ++a) support.push_back(6 * b + a);
    };
    switch (kind(rng)) {
      case 0:
        add_body(body(rng));
        break;
      case 1:
        add_body(body(rng));
        add_body(body(rng));
        break;
      case 2:
        add_body(body(rng));
        for (int k = std::uniform_int_distribution<int>(1, 3)(rng); k > 0; --k) support.push_back(joint(rng));
        break;
      case 3:
        for (int a = 36; a < 36 + std::uniform_int_distribution<int>(9, 14)(rng); ++a) support.push_back(a);
        break;
      default:
        for (int k = 0; k < 4; ++k) support.push_back(joint(rng));
    }
    for (int a : support) {
      Jn(i, a) = value(rng);
      Jt(2 * i, a) = value(rng);
      Jt(2 * i + 1, a) = value(rng);
    }
  }
  c.Jn = Jn.sparseView();
  c.Jt = Jt.sparseView();
  c.blocks = Eigen::VectorXd::NullaryExpr(9 * nc, [&] { return value(rng); });
  return c;
}

/// A and its symmetric part S (B with entries (1, 0) and (2, 0) zeroed) summed densely, contact by contact.
void DenseNewtonMatrices(const AssemblyCase& c, Eigen::MatrixXd* A, Eigen::MatrixXd* S) {
  const int nc = static_cast<int>(c.Jn.rows());
  *A = Eigen::MatrixXd(c.M);
  *S = *A;
  const Eigen::MatrixXd Jn(c.Jn), Jt(c.Jt);
  for (int i = 0; i < nc; ++i) {
    Eigen::MatrixXd Jc(3, Jn.cols());
    Jc << Jn.row(i), Jt.row(2 * i), Jt.row(2 * i + 1);
    Eigen::Matrix3d B = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(c.blocks.data() + 9 * i);
    *A += c.h * Jc.transpose() * B * Jc;
    B(1, 0) = B(2, 0) = 0.0;
    *S += c.h * Jc.transpose() * B * Jc;
  }
}

struct Assembled {
  std::vector<double> values, symmetric_values;
  Eigen::MatrixXd A, S;
};

Assembled Assemble(const AssemblyCase& c, int threads) {
  const ThreadBudget budget(threads);
  const ContactJacobian J(c.Jn, c.Jt);
  NewtonMatrixPattern pattern(budget, c.M, J);
  Assembled out;
  out.values.assign(pattern.nnz(), -1.0);  // stale values, which Assemble must overwrite
  out.symmetric_values.assign(pattern.nnz(), -1.0);
  pattern.Assemble(budget, c.M, J, c.h, c.blocks, out.values.data(), out.symmetric_values.data());
  const int n = pattern.size();
  out.A = Eigen::Map<const SparseMatrix>(n, n, pattern.nnz(), pattern.col_ptr().data(), pattern.row_index().data(),
                                         out.values.data());
  out.S = Eigen::Map<const SparseMatrix>(n, n, pattern.nnz(), pattern.col_ptr().data(), pattern.row_index().data(),
                                         out.symmetric_values.data());
  return out;
}

TEST(NewtonMatrixAssembly, EqualsTheDenseSumOfTheContactsBlocks) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const AssemblyCase c = RandomCase(seed, 40);
    Eigen::MatrixXd A, S;
    DenseNewtonMatrices(c, &A, &S);
    const Assembled sparse = Assemble(c, 1);
    EXPECT_LE((sparse.A - A).cwiseAbs().maxCoeff(), 1e-13 * A.cwiseAbs().maxCoeff()) << "seed " << seed;
    EXPECT_LE((sparse.S - S).cwiseAbs().maxCoeff(), 1e-13 * S.cwiseAbs().maxCoeff()) << "seed " << seed;
    EXPECT_GT((A - S).cwiseAbs().maxCoeff(), 1e-6) << "the W_tn coupling is present";
  }
}

TEST(NewtonMatrixAssembly, BitwiseIdenticalForAnyThreadCount) {
  const AssemblyCase c = RandomCase(7, 3000);  // enough columns for several parallel ranges
  const Assembled one = Assemble(c, 1);
  for (int threads : {2, 4}) {
    const Assembled many = Assemble(c, threads);
    ASSERT_EQ(many.values.size(), one.values.size());
    EXPECT_EQ(std::memcmp(many.values.data(), one.values.data(), one.values.size() * sizeof(double)), 0) << threads;
    EXPECT_EQ(std::memcmp(many.symmetric_values.data(), one.symmetric_values.data(),
                          one.symmetric_values.size() * sizeof(double)),
              0)
        << threads;
  }
}

/// Two cases side by side: block-diagonal M, Jn and Jt, the second case's contacts after the first's.
AssemblyCase SideBySide(const AssemblyCase& a, const AssemblyCase& b) {
  auto stack = [](const SparseMatrix& x, const SparseMatrix& y) {
    Eigen::MatrixXd z = Eigen::MatrixXd::Zero(x.rows() + y.rows(), x.cols() + y.cols());
    z.topLeftCorner(x.rows(), x.cols()) = Eigen::MatrixXd(x);
    z.bottomRightCorner(y.rows(), y.cols()) = Eigen::MatrixXd(y);
    return SparseMatrix(z.sparseView());
  };
  AssemblyCase c;
  c.M = stack(a.M, b.M);
  c.Jn = stack(a.Jn, b.Jn);
  // Jt's rows come in pairs per contact: the second case's pairs after the first's, as its contacts are.
  c.Jt = stack(a.Jt, b.Jt);
  c.blocks.resize(a.blocks.size() + b.blocks.size());
  c.blocks << a.blocks, b.blocks;
  return c;
}

TEST(NewtonMatrixAssembly, DenseBlockOfAnIslandEqualsTheAssembledValuesBitForBit) {
  for (unsigned seed = 1; seed <= 10; ++seed) {
    const AssemblyCase c = SideBySide(RandomCase(seed, 40), RandomCase(seed + 100, 30));
    const Assembled sparse = Assemble(c, 1);
    const ContactJacobian J(c.Jn, c.Jt);
    const int half = 50;  // RandomCase's nv: each case is an island of the whole
    std::vector<int> local(2 * half);
    for (int v = 0; v < 2 * half; ++v) local[v] = v % half;
    struct Island {
      int first_velocity, first_contact, num_contacts;
    };
    for (const Island& island : {Island{0, 0, 40}, Island{half, 40, 30}}) {
      std::vector<int> velocities(half), contacts(island.num_contacts);
      for (int a = 0; a < half; ++a) velocities[a] = island.first_velocity + a;
      for (int k = 0; k < island.num_contacts; ++k) contacts[k] = island.first_contact + k;
      Eigen::MatrixXd dense = Eigen::MatrixXd::Constant(3, 3, -1.0);  // a stale buffer of another size
      AssembleDenseBlock(c.M, J, c.h, c.blocks, velocities.data(), half, contacts.data(), island.num_contacts,
                         local.data(), &dense);
      const Eigen::MatrixXd expected = sparse.A.block(island.first_velocity, island.first_velocity, half, half);
      ASSERT_EQ(dense.rows(), half);
      ASSERT_EQ(dense.cols(), half);
      EXPECT_EQ(std::memcmp(dense.data(), expected.data(), sizeof(double) * half * half), 0)
          << "seed " << seed << ", island at velocity " << island.first_velocity;
    }
  }
}

}  // namespace
}  // namespace tamsi::kernels
