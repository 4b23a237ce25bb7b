#pragma once
// Test fixture: a point mass (nv = 3: x, y, z velocities) touching the plane z = 0 at one contact with normal +z and
// tangents +x, +y, stepped with TAMSI and positions advanced by z += h vz (the plane is fixed).

#include <tamsi/tamsi_solver.h>

#include <Eigen/Core>

namespace tamsi::testing {

struct PointMass {
  double mass{1.0};        // kg
  double stiffness{1e4};   // N/m
  double dissipation{10};  // s/m
  double friction{0.5};
  double time_step{1e-3};  // s
  double z{0.0};           // height of the contact point above the plane (m); penetration δ0 = −z
  Eigen::Vector3d v{Eigen::Vector3d::Zero()};  // m/s

  /// The problem of one step with external force f (N), warm-started at the current v.
  ContactProblem Problem(const Eigen::Vector3d& f) const {
    ContactProblem p;
    p.time_step = time_step;
    p.M.resize(3, 3);
    p.Jn.resize(1, 3);
    p.Jt.resize(2, 3);
    for (int i = 0; i < 3; ++i) p.M.insert(i, i) = mass;
    p.Jn.insert(0, 2) = 1.0;
    p.Jt.insert(0, 0) = 1.0;
    p.Jt.insert(1, 1) = 1.0;
    p.p_star = mass * v + time_step * f;
    p.delta0 = Eigen::VectorXd::Constant(1, -z);
    p.stiffness = Eigen::VectorXd::Constant(1, stiffness);
    p.dissipation = Eigen::VectorXd::Constant(1, dissipation);
    p.friction = Eigen::VectorXd::Constant(1, friction);
    p.v0 = Eigen::VectorXd(v);
    p.v_guess = Eigen::VectorXd(v);
    return p;
  }

  /// One step; returns the solver status and leaves the state untouched unless it succeeded.
  Status Step(TamsiSolver& solver, const Eigen::Vector3d& f, Result* result) {
    const Status status = solver.Solve(Problem(f), result);
    if (status == Status::kSuccess) {
      v = result->v;
      z += time_step * v.z();
    }
    return status;
  }
};

}  // namespace tamsi::testing
