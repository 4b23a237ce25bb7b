// Embedding example: one TAMSI step of a 1 kg point mass sliding at 1 m/s on a plane (μ = 0.5, h = 1 ms).
#include <tamsi/tamsi_solver.h>

#include <cstdio>

int main() {
  const double m = 1.0, g = 9.81, h = 1e-3, k = 1e4;
  tamsi::ContactProblem problem;
  problem.time_step = h;
  problem.M.resize(3, 3);
  for (int i = 0; i < 3; ++i) problem.M.insert(i, i) = m;
  problem.Jn.resize(1, 3);  // normal +z
  problem.Jn.insert(0, 2) = 1.0;
  problem.Jt.resize(2, 3);  // tangents +x, +y
  problem.Jt.insert(0, 0) = 1.0;
  problem.Jt.insert(1, 1) = 1.0;
  problem.p_star = Eigen::Vector3d(m * 1.0, 0.0, -h * m * g);  // M v0 + h τ
  problem.delta0 = Eigen::VectorXd::Constant(1, m * g / k);    // resting penetration
  problem.stiffness = Eigen::VectorXd::Constant(1, k);
  problem.dissipation = Eigen::VectorXd::Constant(1, 10.0);
  problem.friction = Eigen::VectorXd::Constant(1, 0.5);

  tamsi::TamsiSolver solver;
  tamsi::Result result;
  if (solver.Solve(problem, &result) != tamsi::Status::kSuccess) {
    std::fprintf(stderr, "%s\n", result.summary.FullReport().c_str());
    return 1;
  }
  // Coulomb sliding: v = v0 − h μ g.
  std::printf("%s\nvx = %.6f m/s (Coulomb: %.6f)\n", result.summary.BriefReport().c_str(), result.v[0],
              1.0 - h * 0.5 * g);
  return 0;
}
