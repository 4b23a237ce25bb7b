#include <gtest/gtest.h>
#include <tamsi/kernels/parallel.h>
#include <tamsi/newton_system.h>
#include <tamsi/synthetic/synthetic_problems.h>
#include <tamsi/tamsi_solver.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "../solver/newton_check.h"

namespace tamsi::synthetic {
namespace {

constexpr double kGravity = 9.81;

SyntheticOptions Sliding() {
  SyntheticOptions o;
  o.motion = InitialMotion::kSliding;
  return o;
}

double TotalWeight(const SyntheticProblem& s) {
  double w = 0.0;
  for (const Body& b : s.bodies) w += b.mass * kGravity;
  return w;
}

/// Generalized velocities that give body b the linear velocity `linear[b]` and angular velocity `angular[b]`.
Eigen::VectorXd Velocities(const std::vector<Eigen::Vector3d>& linear, const std::vector<Eigen::Vector3d>& angular) {
  Eigen::VectorXd v(6 * linear.size());
  for (size_t b = 0; b < linear.size(); ++b) v.segment<6>(6 * b) << linear[b], angular[b];
  return v;
}

TEST(SyntheticProblems, ShapesValidateAndMassBlocks) {
  const SyntheticProblem families[] = {SpheresOnPlane(7, 1), SphereStack(7, 1), BoxGrid(7, 1)};
  const int contacts_per_body[] = {1, 1, 4};
  for (int f = 0; f < 3; ++f) {
    const SyntheticProblem& s = families[f];
    SCOPED_TRACE(f);
    EXPECT_NO_THROW(s.problem.Validate());
    EXPECT_EQ(s.problem.num_velocities(), 42);
    EXPECT_EQ(s.problem.num_contacts(), 7 * contacts_per_body[f]);
    EXPECT_EQ(s.contacts.size(), static_cast<size_t>(s.problem.num_contacts()));
    ASSERT_TRUE(s.problem.v0.has_value());
    EXPECT_DOUBLE_EQ(s.problem.time_step, 1e-3);
    for (int b = 0; b < 7; ++b) {
      const Body& body = s.bodies[b];
      EXPECT_GE(body.mass, 0.05);
      EXPECT_LE(body.mass, 0.3);
      for (int k = 0; k < 3; ++k) EXPECT_EQ(s.problem.M.coeff(6 * b + k, 6 * b + k), body.mass);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) EXPECT_EQ(s.problem.M.coeff(6 * b + 3 + i, 6 * b + 3 + j), body.inertia(i, j));
      // No coupling between bodies or between linear and angular velocities.
      EXPECT_EQ(s.problem.M.coeff(6 * b, 6 * b + 3), 0.0);
      if (b > 0) {
        EXPECT_EQ(s.problem.M.coeff(6 * b, 6 * (b - 1)), 0.0);
      }
      EXPECT_TRUE((body.rotation.transpose() * body.rotation).isIdentity(1e-12));
    }
    for (const Contact& c : s.contacts) {
      EXPECT_NEAR(c.tangent1.cross(c.tangent2).dot(c.normal), 1.0, 1e-14);
      EXPECT_NEAR(c.tangent1.dot(c.normal), 0.0, 1e-14);
    }
    EXPECT_TRUE(s.problem.v0->isZero());
    // Resting: p* = h τ, gravity only.
    for (int b = 0; b < 7; ++b) EXPECT_DOUBLE_EQ(s.problem.p_star[6 * b + 2], -1e-3 * s.bodies[b].mass * kGravity);
  }
}

TEST(SyntheticProblems, SameSeedSameProblemOtherSeedOtherProblem) {
  const SyntheticProblem a = SphereStack(20, 42, Sliding());
  const SyntheticProblem b = SphereStack(20, 42, Sliding());
  const SyntheticProblem c = SphereStack(20, 43, Sliding());
  EXPECT_TRUE(a.problem.M.isApprox(b.problem.M, 0.0));
  EXPECT_EQ(a.problem.p_star, b.problem.p_star);
  EXPECT_EQ(a.problem.delta0, b.problem.delta0);
  EXPECT_EQ(a.problem.friction, b.problem.friction);
  EXPECT_NE(a.problem.p_star, c.problem.p_star);
}

TEST(SyntheticProblems, RangesAndInitialMotion) {
  const SyntheticProblem s = SpheresOnPlane(200, 5, Sliding());
  double fastest = 0.0;
  for (int b = 0; b < 200; ++b) {
    const Eigen::Matrix<double, 6, 1> v0 = s.problem.v0->segment<6>(6 * b);
    EXPECT_EQ(v0[2], 0.0);
    EXPECT_TRUE(v0.tail<3>().isZero());
    fastest = std::max(fastest, v0.head<2>().norm());
    EXPECT_LE(v0.head<2>().norm(), 0.5);
    // p* = M v0 + h τ.
    EXPECT_NEAR(s.problem.p_star[6 * b], s.bodies[b].mass * v0[0], 1e-15);
    const double r = s.bodies[b].size[0];
    EXPECT_GE(r, 0.02);
    EXPECT_LE(r, 0.06);
    EXPECT_GE(s.problem.stiffness[b], 1e4);
    EXPECT_LE(s.problem.stiffness[b], 1e5);
    EXPECT_GE(s.problem.friction[b], 0.3);
    EXPECT_LE(s.problem.friction[b], 1.0);
    // Settled penetration m g / k, and the sphere overlaps the ground by exactly δ0.
    EXPECT_NEAR(s.problem.delta0[b], s.bodies[b].mass * kGravity / s.problem.stiffness[b], 1e-16);
    EXPECT_NEAR(s.bodies[b].position.z() - r, -s.problem.delta0[b], 1e-16);
  }
  EXPECT_GT(fastest, 0.4);
}

/// A tall tower: penetrations stay at most max_penetration, deep contacts are stiffened, and k δ0 is the weight above.
TEST(SyntheticProblems, TallTowerPenetrationIsCapped) {
  const SyntheticProblem s = SphereStack(1000, 4);
  EXPECT_LE(s.problem.delta0.maxCoeff(), 2e-3 * (1 + 1e-12));
  EXPECT_NEAR(s.problem.delta0[0], 2e-3, 1e-15);
  EXPECT_NEAR(s.problem.stiffness[0], TotalWeight(s) / 2e-3, 1e-9 * TotalWeight(s) / 2e-3);
  EXPECT_LE(s.problem.stiffness[999], 1e5);  // the top contact carries one sphere: its draw stands
  double above = 0.0;
  for (int b = 999; b >= 0; --b) {
    above += s.bodies[b].mass * kGravity;
    EXPECT_NEAR(s.problem.stiffness[b] * s.problem.delta0[b], above, 1e-12 * above) << b;
  }
}

TEST(SyntheticProblems, InvalidInputsThrow) {
  SyntheticOptions o;
  o.min_mass = -1.0;
  EXPECT_THROW(SpheresOnPlane(3, 0, o), std::invalid_argument);
  o = SyntheticOptions();
  o.max_size = 0.5 * o.min_size;
  EXPECT_THROW(SphereStack(3, 0, o), std::invalid_argument);
  EXPECT_THROW(BoxGrid(-1, 0), std::invalid_argument);
  o = SyntheticOptions();
  o.max_penetration = 0.0;
  EXPECT_THROW(SpheresOnPlane(3, 0, o), std::invalid_argument);
  const SyntheticProblem empty = SphereStack(0, 0);
  EXPECT_EQ(empty.problem.num_velocities(), 0);
  EXPECT_NO_THROW(empty.problem.Validate());
}

TEST(SyntheticProblems, SphereOnPlaneJacobiansMatchRigidMotions) {
  const int n = 5;
  const SyntheticProblem s = SpheresOnPlane(n, 3);
  const ContactProblem& p = s.problem;
  std::vector<Eigen::Vector3d> linear(n, Eigen::Vector3d::Zero()), angular(n, Eigen::Vector3d::Zero());
  // Vertical translation by u_b: separation velocity u_b, no sliding.
  for (int b = 0; b < n; ++b) linear[b] = Eigen::Vector3d(0, 0, 0.1 * (b - 2));
  Eigen::VectorXd vn = p.Jn * Velocities(linear, angular);
  Eigen::VectorXd vt = p.Jt * Velocities(linear, angular);
  for (int b = 0; b < n; ++b) EXPECT_NEAR(vn[b], 0.1 * (b - 2), 1e-15);
  EXPECT_LT(vt.norm(), 1e-15);
  // Spin about the vertical axis through the center: the contact point is on the axis.
  for (int b = 0; b < n; ++b) linear[b].setZero(), angular[b] = Eigen::Vector3d(0, 0, 3.0);
  EXPECT_LT((p.Jn * Velocities(linear, angular)).norm(), 1e-15);
  EXPECT_LT((p.Jt * Velocities(linear, angular)).norm(), 1e-15);
  // Pure rotation ω = 2 rad/s about x: the contact point, ρ below the center, slides at ω ρ along +y.
  for (int b = 0; b < n; ++b) angular[b] = Eigen::Vector3d(2.0, 0, 0);
  vt = p.Jt * Velocities(linear, angular);
  for (int b = 0; b < n; ++b) {
    const double rho = s.bodies[b].position.z() - s.contacts[b].point.z();
    const Eigen::Vector3d slip = vt[2 * b] * s.contacts[b].tangent1 + vt[2 * b + 1] * s.contacts[b].tangent2;
    EXPECT_NEAR(slip.y(), 2.0 * rho, 1e-15);
    EXPECT_NEAR(slip.x(), 0.0, 1e-15);
    // Rolling without slipping: adding the linear velocity −ω ρ ŷ cancels the slip.
    linear[b] = Eigen::Vector3d(0, -2.0 * rho, 0);
  }
  EXPECT_LT((p.Jt * Velocities(linear, angular)).norm(), 1e-15);
}

TEST(SyntheticProblems, StackJacobiansMatchRigidMotions) {
  const int n = 6;
  const SyntheticProblem s = SphereStack(n, 11);
  const ContactProblem& p = s.problem;
  std::vector<Eigen::Vector3d> linear(n), angular(n, Eigen::Vector3d::Zero());
  // Vertical velocities u_b: contact b separates at u_b − u_{b−1} (the ground for b = 0).
  const double u[n] = {0.3, -0.1, 0.25, 0.25, 0.0, -0.4};
  for (int b = 0; b < n; ++b) linear[b] = Eigen::Vector3d(0, 0, u[b]);
  const Eigen::VectorXd vn = p.Jn * Velocities(linear, angular);
  EXPECT_NEAR(vn[0], 0.3, 1e-15);
  for (int b = 1; b < n; ++b) EXPECT_NEAR(vn[b], u[b] - u[b - 1], 1e-15) << b;
  // The whole tower moving rigidly (V + ω × x): sphere–sphere contacts see no relative velocity; the ground contact
  // moves at V + ω × p.
  const Eigen::Vector3d V(0.2, -0.1, 0.05), omega(0.7, -1.3, 0.4);
  for (int b = 0; b < n; ++b) {
    linear[b] = V + omega.cross(s.bodies[b].position);
    angular[b] = omega;
  }
  const Eigen::VectorXd v = Velocities(linear, angular);
  const Eigen::VectorXd rigid_vn = p.Jn * v, rigid_vt = p.Jt * v;
  for (int b = 1; b < n; ++b) {
    EXPECT_NEAR(rigid_vn[b], 0.0, 1e-15);
    EXPECT_NEAR(rigid_vt.segment<2>(2 * b).norm(), 0.0, 1e-15);
  }
  const Eigen::Vector3d ground = V + omega.cross(s.contacts[0].point);
  EXPECT_NEAR(rigid_vn[0], ground.z(), 1e-15);
  EXPECT_NEAR(rigid_vt.segment<2>(0).norm(), ground.head<2>().norm(), 1e-15);
  // Geometry: each sphere overlaps the one below (or the ground) by exactly δ0.
  for (int b = 1; b < n; ++b) {
    const double gap =
        s.bodies[b].position.z() - s.bodies[b - 1].position.z() - s.bodies[b].size[0] - s.bodies[b - 1].size[0];
    EXPECT_NEAR(gap, -p.delta0[b], 1e-15);
  }
}

TEST(SyntheticProblems, BoxCornerJacobiansMatchRigidMotions) {
  const SyntheticProblem s = BoxGrid(3, 8);
  const ContactProblem& p = s.problem;
  std::vector<Eigen::Vector3d> linear(3, Eigen::Vector3d::Zero()), angular(3, Eigen::Vector3d(1.5, 0, 0));
  // Rotation about x through the center lifts each corner at ω (p − c)_y.
  const Eigen::VectorXd vn = p.Jn * Velocities(linear, angular);
  for (int i = 0; i < 12; ++i) {
    const Eigen::Vector3d r = s.contacts[i].point - s.bodies[s.contacts[i].body_b].position;
    EXPECT_NEAR(vn[i], 1.5 * r.y(), 1e-15);
  }
  // Spin about z: corners slide tangentially at ω times their horizontal distance from the axis.
  for (auto& w : angular) w = Eigen::Vector3d(0, 0, 2.0);
  const Eigen::VectorXd v = Velocities(linear, angular);
  const Eigen::VectorXd spin_vn = p.Jn * v, spin_vt = p.Jt * v;
  for (int i = 0; i < 12; ++i) {
    const Eigen::Vector3d r = s.contacts[i].point - s.bodies[s.contacts[i].body_b].position;
    EXPECT_NEAR(spin_vn[i], 0.0, 1e-15);
    EXPECT_NEAR(spin_vt.segment<2>(2 * i).norm(), 2.0 * r.head<2>().norm(), 1e-14);
    // The corners are at the box's half-extents.
    const Eigen::Vector3d local = s.bodies[s.contacts[i].body_b].rotation.transpose() * r;
    EXPECT_NEAR(std::abs(local.x()), s.bodies[s.contacts[i].body_b].size.x(), 1e-15);
  }
}

/// Σ fn over the contacts with the ground (N).
double GroundForce(const SyntheticProblem& s, const Eigen::VectorXd& fn) {
  double total = 0.0;
  for (size_t i = 0; i < s.contacts.size(); ++i)
    if (s.contacts[i].body_a < 0) total += fn[i];
  return total;
}

/// With π = k δ0 (v = 0) the contact forces Jnᵀ π balance gravity exactly on every body (no net force, no torque),
/// and the ground carries the total weight.
// The Newton matrix of 6-DOF bodies touching each other (eq. 23, symmetric part included) equals central differences
// of the residual: its pattern is built a body's columns at a time and each contact's support in runs of a body's
// velocities (kernels::NewtonMatrixPattern), which the random problems of tamsi_solver_test do not exercise.
TEST(SyntheticProblems, BodyNewtonMatrixMatchesFiniteDifferencesOfTheResidual) {
  const double vs = 1e-2;  // wide stiction region: sampled points avoid the kink at ‖vt‖ = v_s
  int checked = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    SyntheticOptions o = Sliding();
    o.tower_height = 3;  // two towers of three: contacts with the ground and between spheres
    const SyntheticProblem s = SphereStack(6, seed, o);
    const ContactProblem& p = s.problem;
    const int nv = p.num_velocities(), nc = p.num_contacts();
    const kernels::ThreadBudget budget(1);
    NewtonSystem system(p, /*two_way=*/true, vs, FrictionRegularization::kLinear, budget);
    const Eigen::VectorXd v = *p.v0 + 2e-3 * Eigen::VectorXd::Ones(nv);
    system.Evaluate(v);
    bool smooth = true;  // away from the kinks of eq. 5 (δ = 0, 1 − d vn = 0) and eq. 7 (s = 1)
    for (int i = 0; i < nc; ++i) {
      const double speed = system.vt().segment<2>(2 * i).norm() / vs;
      smooth &= std::abs(speed - 1) > 0.05 && p.delta0[i] - p.time_step * system.vn()[i] > 1e-5 &&
                1 - p.dissipation[i] * system.vn()[i] > 1e-2;
    }
    if (!smooth) continue;
    ++checked;
    Eigen::VectorXd symmetric;
    system.Assemble(&symmetric);
    const Eigen::MatrixXd A = system.Jacobian();
    const Eigen::MatrixXd fd = testing::ResidualFiniteDifferences(system, v);
    EXPECT_LT((A - fd).norm(), 1e-6 * A.norm()) << "seed " << seed;
    // The symmetric part on the same pattern: A without W_tn, so symmetric, and equal to A where no contact couples
    // a normal to a tangential velocity.
    const auto& pattern = system.pattern();
    Eigen::MatrixXd S = Eigen::MatrixXd::Zero(nv, nv);
    for (int j = 0; j < nv; ++j)
      for (int e = pattern.col_ptr()[j]; e < pattern.col_ptr()[j + 1]; ++e) S(pattern.row_index()[e], j) = symmetric[e];
    EXPECT_LT((S - S.transpose()).norm(), 1e-12 * S.norm()) << "seed " << seed;
    EXPECT_LT((S - A).norm(), 0.5 * A.norm()) << "seed " << seed;
  }
  EXPECT_GE(checked, 3);
}

TEST(SyntheticProblems, SettledPenetrationsBalanceGravity) {
  const SyntheticProblem families[] = {SpheresOnPlane(9, 2), SphereStack(9, 2), BoxGrid(9, 2)};
  for (const SyntheticProblem& s : families) {
    const ContactProblem& p = s.problem;
    const Eigen::VectorXd pi = p.stiffness.cwiseProduct(p.delta0);
    const Eigen::VectorXd residual = p.time_step * (p.Jn.transpose() * pi) + p.p_star;  // −r(0) of eq. 21
    EXPECT_LT(residual.cwiseAbs().maxCoeff(), 1e-15 * TotalWeight(s));
    EXPECT_NEAR(GroundForce(s, pi), TotalWeight(s), 1e-12 * TotalWeight(s));
  }
}

TEST(SyntheticProblems, RestingStackCarriesItsWeight) {
  for (Coupling coupling : {Coupling::kTwoWay, Coupling::kOneWay}) {
    SCOPED_TRACE(ToString(coupling));
    const SyntheticProblem s = SphereStack(50, 9);
    Options options;
    options.coupling = coupling;
    TamsiSolver solver(options);
    Result result;
    ASSERT_EQ(solver.Solve(s.problem, &result), Status::kSuccess) << result.summary.FullReport();
    EXPECT_NEAR(GroundForce(s, result.fn), TotalWeight(s), 1e-3 * TotalWeight(s));
    // Each contact carries the spheres above it; nothing moves beyond the stiction tolerance.
    double above = 0.0;
    for (int b = 49; b >= 0; --b) {
      above += s.bodies[b].mass * kGravity;
      EXPECT_NEAR(result.fn[b], above, 1e-3 * above) << b;
    }
    EXPECT_LT(result.v.cwiseAbs().maxCoeff(), 1e-4);
  }
}

TEST(SyntheticProblems, RestingSpheresAndBoxesCarryTheirWeight) {
  const SyntheticProblem families[] = {SpheresOnPlane(30, 4), BoxGrid(30, 4)};
  for (const SyntheticProblem& s : families) {
    TamsiSolver solver;
    Result result;
    ASSERT_EQ(solver.Solve(s.problem, &result), Status::kSuccess) << result.summary.FullReport();
    EXPECT_NEAR(GroundForce(s, result.fn), TotalWeight(s), 1e-3 * TotalWeight(s));
    EXPECT_LT(result.v.cwiseAbs().maxCoeff(), 1e-4);
  }
}

/// Sliding spheres: friction decelerates each sphere by at most μ g h, opposite to its velocity.
TEST(SyntheticProblems, SlidingSpheresDecelerateByFriction) {
  const SyntheticProblem s = SpheresOnPlane(40, 6, Sliding());
  TamsiSolver solver;
  Result result;
  ASSERT_EQ(solver.Solve(s.problem, &result), Status::kSuccess) << result.summary.FullReport();
  for (int b = 0; b < 40; ++b) {
    const Eigen::Vector2d v0 = s.problem.v0->segment<2>(6 * b), v = result.v.segment<2>(6 * b);
    const Eigen::Vector2d ft(result.ft[2 * b] * s.contacts[b].tangent1.head<2>() +
                             result.ft[2 * b + 1] * s.contacts[b].tangent2.head<2>());
    if (v0.norm() < 1e-2) continue;
    EXPECT_LT(ft.dot(v0), 0.0) << b;
    EXPECT_LE(ft.norm(), s.problem.friction[b] * result.fn[b] * (1 + 1e-12)) << b;
    EXPECT_LT(v.norm(), v0.norm()) << b;
    EXPECT_GT(v.norm(), v0.norm() - 1.01 * s.problem.friction[b] * kGravity * 1e-3) << b;
  }
}

/// One tower of 1,000 spheres sliding over each other (≈ 1,000 simultaneous stick–slip transitions in one island):
/// the paper's iteration crawls (TALS cuts every step to α ≪ 1; 362 iterations here), the secant safeguard converges
/// within the default 100 iterations to the same velocities, with friction inside the Coulomb cone.
TEST(SlidingTower, ThousandSpheresConvergeWithTheSecantSafeguardToThePapersSolution) {
  SyntheticOptions o;
  o.motion = InitialMotion::kSliding;
  const SyntheticProblem s = SphereStack(1000, 1, o);
  for (LineSearch line_search : {LineSearch::kTals, LineSearch::kExact}) {
    SCOPED_TRACE(ToString(line_search));
    Options options;
    options.friction_newton = FrictionNewton::kTangent;
    options.line_search = line_search;
    TamsiSolver solver(options);
    Result result;
    ASSERT_EQ(solver.Solve(s.problem, &result), Status::kSuccess) << result.summary.BriefReport();
    EXPECT_GT(result.summary.counters.secant_iterations, 0);
    EXPECT_LT(result.summary.counters.secant_iterations, result.summary.iterations);  // Newton finishes
    EXPECT_GT(result.summary.stick_slip_transitions, 500);
    for (int i = 0; i < s.problem.num_contacts(); ++i)
      EXPECT_LE(result.ft.segment<2>(2 * i).norm(), s.problem.friction[i] * result.fn[i] * (1 + 1e-12)) << i;

    options.secant_safeguard = false;
    solver.set_options(options);
    Result paper;
    EXPECT_EQ(solver.Solve(s.problem, &paper), Status::kMaxIterationsReached);
    if (line_search == LineSearch::kExact) {
      options.max_iterations = 500;
      solver.set_options(options);
      ASSERT_EQ(solver.Solve(s.problem, &paper), Status::kSuccess) << paper.summary.BriefReport();
      EXPECT_EQ(paper.summary.counters.secant_iterations, 0);
      // Both meet ‖Δv‖ ≤ 1e-2 v_s per contact; the velocities agree to a few times that.
      EXPECT_LT((result.v - paper.v).lpNorm<Eigen::Infinity>(), 1e-5);
    }
  }
}

/// The same tower under the primal–dual iteration (the default): it converges without falling back, in fewer
/// iterations than the safeguarded paper's iteration, to the paper's solution, friction inside the Coulomb cone; one
/// exact Newton update of eq. 23 at its v moves no contact velocity by more than the tolerance.
TEST(SlidingTower, ThousandSpheresConvergeUnderThePrimalDualIterationToThePapersSolution) {
  SyntheticOptions o;
  o.motion = InitialMotion::kSliding;
  const SyntheticProblem s = SphereStack(1000, 1, o);
  Options options;
  Result primal_dual;
  ASSERT_EQ(TamsiSolver(options).Solve(s.problem, &primal_dual), Status::kSuccess);
  EXPECT_EQ(primal_dual.summary.counters.primal_dual_fallbacks, 0);
  EXPECT_EQ(primal_dual.summary.counters.secant_iterations, 0);
  EXPECT_GT(primal_dual.summary.stick_slip_transitions, 500);
  options.friction_newton = FrictionNewton::kTangent;
  Result tangent;
  ASSERT_EQ(TamsiSolver(options).Solve(s.problem, &tangent), Status::kSuccess);
  EXPECT_LT(primal_dual.summary.iterations, tangent.summary.iterations);
  EXPECT_LT((primal_dual.v - tangent.v).lpNorm<Eigen::Infinity>(), 1e-5);
  for (int i = 0; i < s.problem.num_contacts(); ++i)
    EXPECT_LE(primal_dual.ft.segment<2>(2 * i).norm(), s.problem.friction[i] * primal_dual.fn[i] * (1 + 1e-12)) << i;
  EXPECT_LE(testing::NewtonUpdateAt(s.problem, primal_dual.v), 1e-2 * options.stiction_tolerance);
}

/// One island of 300 spheres sliding over each other (two layers' worth of contacts per sphere), and its solution by
/// exact Newton (a sparse LU per iteration) to 1e-8 m/s, the reference of the Krylov solves.
struct SlidingTowerReference {
  ContactProblem problem;
  Options options;
  Result exact;
};
SlidingTowerReference SolveSlidingTowerExactly() {
  SyntheticOptions o;
  o.motion = InitialMotion::kSliding;
  SlidingTowerReference r{SphereStack(300, 2, o).problem, Options{}, Result{}};
  r.options.relative_tolerance = 1e-4;  // 1e-8 m/s
  r.options.newton_solve = NewtonSolve::kExact;
  EXPECT_EQ(TamsiSolver(r.options).Solve(r.problem, &r.exact), Status::kSuccess);
  return r;
}

// One island of 300 spheres sliding over each other: GMRES with any preconditioner (kept LU, Cholesky of the symmetric
// part, overlapping Schwarz on it) meets exact Newton's solution to the convergence tolerance, and the symmetric
// preconditioner replaces every sparse LU by a Cholesky.
TEST(SlidingTower, KrylovNewtonSolvesAgreeWithExactNewton) {
  SlidingTowerReference tower = SolveSlidingTowerExactly();
  ASSERT_EQ(tower.exact.summary.status, Status::kSuccess);
  ASSERT_EQ(tower.exact.summary.num_islands, 1);
  EXPECT_EQ(tower.exact.summary.counters.krylov_solves, 0);
  for (NewtonSolve mode : {NewtonSolve::kReuseFactorization, NewtonSolve::kSymmetricPreconditioner}) {
    SCOPED_TRACE(ToString(mode));
    tower.options.newton_solve = mode;
    Result result;
    ASSERT_EQ(TamsiSolver(tower.options).Solve(tower.problem, &result), Status::kSuccess)
        << result.summary.BriefReport();
    EXPECT_EQ(result.summary.newton_solve, mode);
    EXPECT_GT(result.summary.counters.krylov_solves, 0);
    EXPECT_EQ(result.summary.counters.newton_systems, result.summary.iterations);  // one island
    EXPECT_LT((result.v - tower.exact.v).lpNorm<Eigen::Infinity>(), 1e-7);
    if (mode == NewtonSolve::kSymmetricPreconditioner) {
      EXPECT_EQ(result.summary.counters.krylov_solves,
                result.summary.counters.newton_systems);  // no iteration fell back to the LU
      // A Cholesky per iteration, but for the last ones, which keep theirs (Options::keep_preconditioner_update).
      EXPECT_LE(result.summary.counters.numeric_factorizations, result.summary.iterations);
      EXPECT_GT(2 * result.summary.counters.numeric_factorizations, result.summary.iterations);
    } else {  // reuse: the systems GMRES did not solve were factored
      EXPECT_LT(result.summary.counters.krylov_solves, result.summary.counters.newton_systems);
      EXPECT_GE(result.summary.counters.krylov_solves + result.summary.counters.numeric_factorizations,
                result.summary.counters.newton_systems);
    }
  }
  // Overlapping Schwarz in place of the Cholesky (forced by a threshold of one velocity and no flops budget; subdomains
  // of 8 spheres + overlap): GMRES solves every Newton system, the solution is exact Newton's to the tolerance, and it
  // is bitwise identical for 1, 2 and 4 threads (subdomains factored and applied in parallel, parallel GMRES).
  tower.options.newton_solve = NewtonSolve::kSymmetricPreconditioner;
  tower.options.schwarz_threshold = 1;
  tower.options.cholesky_flops_per_velocity = 0.0;
  tower.options.schwarz_part_bodies = 8;
  Result reference;
  for (int threads : {1, 2, 4}) {
    SCOPED_TRACE(threads);
    tower.options.num_threads = threads;
    Result result;
    ASSERT_EQ(TamsiSolver(tower.options).Solve(tower.problem, &result), Status::kSuccess)
        << result.summary.BriefReport();
    EXPECT_EQ(result.summary.counters.schwarz_islands, 1);
    EXPECT_GE(result.summary.counters.schwarz_subdomains, 300 / 8);
    EXPECT_EQ(result.summary.counters.krylov_solves,
              result.summary.counters.newton_systems);  // no iteration fell back to the LU
    EXPECT_LT((result.v - tower.exact.v).lpNorm<Eigen::Infinity>(), 1e-7);
    if (threads == 1) {
      reference = result;
    } else {
      EXPECT_EQ(result.v, reference.v);
      EXPECT_EQ(result.summary.counters.krylov_iterations, reference.summary.counters.krylov_iterations);
    }
  }
}

// An island above schwarz_threshold whose Cholesky is cheap keeps it (Options::cholesky_flops_per_velocity): the
// 300-sphere tower is a chain, whose block Cholesky has no fill (AMD's estimate: about 36 flops per velocity). With the
// default budget it is factored, not split into Schwarz subdomains; with a budget below its estimate it goes on
// Schwarz. Both solutions are exact Newton's to the tolerance.
TEST(SlidingTower, AnIslandAboveTheSchwarzThresholdKeepsACheapCholesky) {
  SlidingTowerReference tower = SolveSlidingTowerExactly();
  ASSERT_EQ(tower.exact.summary.status, Status::kSuccess);
  tower.options.newton_solve = NewtonSolve::kSymmetricPreconditioner;
  tower.options.schwarz_threshold = 1;
  for (double budget : {Options{}.cholesky_flops_per_velocity, 100.0, 10.0}) {
    SCOPED_TRACE(budget);
    tower.options.cholesky_flops_per_velocity = budget;
    Result result;
    ASSERT_EQ(TamsiSolver(tower.options).Solve(tower.problem, &result), Status::kSuccess)
        << result.summary.BriefReport();
    EXPECT_EQ(result.summary.counters.schwarz_islands, budget > 50.0 ? 0 : 1);
    EXPECT_LT((result.v - tower.exact.v).lpNorm<Eigen::Infinity>(), 1e-7);
  }
}

// Schwarz keeps a subdomain's factorization while its block holds still (Options::schwarz_refactor_tolerance): with a
// tolerance of 0 every block is factored in every Newton iteration; with the default, the last iterations, whose
// blocks hardly move, keep some; with no limit only the first iteration factors. The solution is exact Newton's to
// the tolerance in all three (the blocks only precondition GMRES on the true Newton matrix).
TEST(SlidingTower, SchwarzRefactorsOnlyTheSubdomainsThatChanged) {
  SlidingTowerReference tower = SolveSlidingTowerExactly();
  ASSERT_EQ(tower.exact.summary.status, Status::kSuccess);
  tower.options.newton_solve = NewtonSolve::kSymmetricPreconditioner;
  tower.options.schwarz_threshold = 1;
  tower.options.cholesky_flops_per_velocity = 0.0;
  tower.options.schwarz_part_bodies = 8;
  long long every_block = 0;
  for (double tolerance : {0.0, Options{}.schwarz_refactor_tolerance, std::numeric_limits<double>::max()}) {
    SCOPED_TRACE(tolerance);
    tower.options.schwarz_refactor_tolerance = tolerance;
    Result result;
    ASSERT_EQ(TamsiSolver(tower.options).Solve(tower.problem, &result), Status::kSuccess)
        << result.summary.BriefReport();
    const SolveCounters& c = result.summary.counters;
    ASSERT_EQ(c.schwarz_islands, 1);
    EXPECT_LT((result.v - tower.exact.v).lpNorm<Eigen::Infinity>(), 1e-7);
    if (tolerance == 0.0) {
      every_block = c.newton_systems * c.schwarz_subdomains;
      EXPECT_EQ(c.schwarz_factorizations, every_block);
    } else if (tolerance < 1.0) {
      EXPECT_GT(c.schwarz_factorizations, c.schwarz_subdomains);
      EXPECT_LT(c.schwarz_factorizations, c.newton_systems * c.schwarz_subdomains);
    } else {
      EXPECT_EQ(c.schwarz_factorizations, c.schwarz_subdomains);
    }
  }
  EXPECT_GT(every_block, 0);
}

// Warm and cold starts meet the same solution: the sliding tower solved from the free motion v* = M⁻¹p* and from a
// guess near its solution (as a simulator's next step starts from the last v) agree to the convergence tolerance,
// and the warm start takes fewer iterations.
TEST(SlidingTower, WarmAndColdStartsAgree) {
  SyntheticOptions o;
  o.motion = InitialMotion::kSliding;
  ContactProblem problem = SphereStack(300, 3, o).problem;
  Options options;
  options.relative_tolerance = 1e-4;  // 1e-8 m/s
  problem.v_guess.reset();
  Result cold, warm;
  ASSERT_EQ(TamsiSolver(options).Solve(problem, &cold), Status::kSuccess);
  problem.v_guess = Eigen::VectorXd(cold.v.array() + 1e-3);
  ASSERT_EQ(TamsiSolver(options).Solve(problem, &warm), Status::kSuccess);
  EXPECT_LT((warm.v - cold.v).lpNorm<Eigen::Infinity>(), 1e-7);
  EXPECT_LT(warm.summary.iterations, cold.summary.iterations);
}

struct DeterminismCase {
  const char* name;
  SyntheticProblem (*generate)(int, std::uint64_t, const SyntheticOptions&);
  int num_bodies;
  InitialMotion motion;
  Coupling coupling;
  NewtonSolve newton_solve{NewtonSolve::kExact};
};

class ThreadDeterminism : public ::testing::TestWithParam<DeterminismCase> {};

TEST_P(ThreadDeterminism, BitwiseIdenticalForAnyThreadCount) {
  const DeterminismCase& c = GetParam();
  SyntheticOptions o;
  o.motion = c.motion;
  o.tower_height = 100;
  const SyntheticProblem s = c.generate(c.num_bodies, 17, o);
  ASSERT_GE(s.problem.num_contacts(), 3000);
  Result reference;
  for (int threads : {1, 2, 4}) {
    SCOPED_TRACE(threads);
    Options options;
    options.coupling = c.coupling;
    options.newton_solve = c.newton_solve;
    options.num_threads = threads;
    TamsiSolver solver(options);
    Result result;
    ASSERT_EQ(solver.Solve(s.problem, &result), Status::kSuccess) << result.summary.BriefReport();
    EXPECT_EQ(result.summary.num_threads_used, threads);
    if (threads == 1) {
      EXPECT_GE(result.summary.iterations, 2);
      reference = result;
      continue;
    }
    EXPECT_EQ(result.summary.iterations, reference.summary.iterations);
    // Bitwise: operator== on Eigen vectors compares every coefficient exactly.
    EXPECT_TRUE(result.v == reference.v);
    EXPECT_TRUE(result.fn == reference.fn);
    EXPECT_TRUE(result.ft == reference.ft);
    EXPECT_TRUE(result.summary.vt_residual == reference.summary.vt_residual);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Synthetic, ThreadDeterminism,
    ::testing::Values(
        DeterminismCase{"StackTwoWay", &SphereStack, 3000, InitialMotion::kResting, Coupling::kTwoWay},
        DeterminismCase{"StackOneWay", &SphereStack, 3000, InitialMotion::kResting, Coupling::kOneWay},
        DeterminismCase{"SpheresSlidingTwoWay", &SpheresOnPlane, 3000, InitialMotion::kSliding, Coupling::kTwoWay},
        DeterminismCase{"BoxesSlidingTwoWay", &BoxGrid, 750, InitialMotion::kSliding, Coupling::kTwoWay},
        DeterminismCase{"TowersSlidingTwoWay", &SphereStack, 3000, InitialMotion::kSliding, Coupling::kTwoWay},
        DeterminismCase{"TowersSlidingSymmetricPreconditioner", &SphereStack, 3000, InitialMotion::kSliding,
                        Coupling::kTwoWay, NewtonSolve::kSymmetricPreconditioner},
        DeterminismCase{"BoxesSlidingOneWay", &BoxGrid, 750, InitialMotion::kSliding, Coupling::kOneWay}),
    [](const ::testing::TestParamInfo<DeterminismCase>& info) { return std::string(info.param.name); });

struct BackendCase {
  const char* name;
  SyntheticProblem (*generate)(int, std::uint64_t, const SyntheticOptions&);
  InitialMotion motion;
  Coupling coupling;
  LinearSolverType backend;
};

class BackendEquivalence : public ::testing::TestWithParam<BackendCase> {};

TEST_P(BackendEquivalence, SparseAgreesWithDenseOracle) {
  const BackendCase& c = GetParam();
  SyntheticOptions o;
  o.motion = c.motion;
  const SyntheticProblem s = c.generate(40, 23, o);
  Options options;
  options.coupling = c.coupling;
  options.newton_solve = NewtonSolve::kExact;  // every system factored by the backend under test
  options.linear_solver = LinearSolverType::kDense;
  TamsiSolver dense_solver(options);
  options.linear_solver = c.backend;
  TamsiSolver sparse_solver(options);
  Result dense, sparse;
  ASSERT_EQ(dense_solver.Solve(s.problem, &dense), Status::kSuccess) << dense.summary.BriefReport();
  ASSERT_EQ(sparse_solver.Solve(s.problem, &sparse), Status::kSuccess) << sparse.summary.BriefReport();
  EXPECT_EQ(dense.summary.linear_solver_used, LinearSolverType::kDense);
  EXPECT_EQ(sparse.summary.linear_solver_used, c.backend);
  EXPECT_EQ(sparse.summary.iterations, dense.summary.iterations);
  EXPECT_LT((sparse.v - dense.v).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LT((sparse.fn - dense.fn).cwiseAbs().maxCoeff(), 1e-8 * dense.fn.cwiseAbs().maxCoeff());
  EXPECT_LT((sparse.ft - dense.ft).cwiseAbs().maxCoeff(), 1e-8 * dense.fn.cwiseAbs().maxCoeff());
}

INSTANTIATE_TEST_SUITE_P(Synthetic, BackendEquivalence,
                         ::testing::Values(BackendCase{"StackUmfpackTwoWay", &SphereStack, InitialMotion::kSliding,
                                                       Coupling::kTwoWay, LinearSolverType::kUmfpack},
                                           BackendCase{"SpheresUmfpackTwoWay", &SpheresOnPlane, InitialMotion::kSliding,
                                                       Coupling::kTwoWay, LinearSolverType::kUmfpack},
                                           BackendCase{"BoxesUmfpackTwoWay", &BoxGrid, InitialMotion::kSliding,
                                                       Coupling::kTwoWay, LinearSolverType::kUmfpack},
                                           BackendCase{"StackUmfpackOneWay", &SphereStack, InitialMotion::kSliding,
                                                       Coupling::kOneWay, LinearSolverType::kUmfpack},
                                           BackendCase{"StackCholmodOneWay", &SphereStack, InitialMotion::kSliding,
                                                       Coupling::kOneWay, LinearSolverType::kCholmod},
                                           BackendCase{"SpheresCholmodOneWay", &SpheresOnPlane, InitialMotion::kSliding,
                                                       Coupling::kOneWay, LinearSolverType::kCholmod}),
                         [](const ::testing::TestParamInfo<BackendCase>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace tamsi::synthetic
