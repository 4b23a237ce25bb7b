#pragma once
/// @file
/// An MJCF model as the ODE ẋ = f(t, x) of the paper's eq. 3, for the implicit Euler integrators of its Sec. III–IV
/// (tamsi/integrators/implicit_euler.h): every f evaluation sets the configuration and velocities of x, runs MuJoCo's
/// kinematics and collision through the front end (ContactProblemBuilder) and evaluates the Hunt–Crossley normal
/// force (eq. 5) and the regularized friction (eq. 6–7) explicitly at that state, so the set of contacts, their
/// Jacobians and penetrations all follow the iterate.
///
/// State x = (Δq, v), 2 nv entries. Δq (nv) is a displacement in the tangent space of the configuration manifold
/// around the configuration q0 of the current step's start: q(x) = q0 ⊕ Δq with MuJoCo's mj_integratePos (hinge and
/// slide joints add, free-joint positions add in the world frame, quaternions of free and ball joints are multiplied
/// by exp(Δθ/2) on the right, Δθ in the body frame). Every x then gives a valid configuration with unit quaternions,
/// Newton's updates and the forward-difference Jacobian work in a vector space of dimension nv, and the implicit
/// step x^n = x^{n−1} + h f(x^n) from Δq = 0 reproduces q^n = q0 ⊕ h v^n, the position update of TAMSI's Simulator.
/// The caller re-centres the coordinates at the start of every step (BeginStep).
///
/// Inputs: the scene's Controller runs in every f evaluation, at its time t and the state q(x), v, so f(t, x) sees the
/// inputs as continuous-time functions and error control sees their changes (held over a step instead, a long
/// error-controlled step would skip them). A controller that keeps state between calls records it from whichever
/// evaluation comes first. Actuator activations (na > 0) are held at their initial values.

#include <tamsi/integrators/ode_system.h>
#include <tamsi/kernels/contact_kernels.h>
#include <tamsi/kernels/parallel.h>
#include <tamsi/scenes/mujoco_frontend.h>
#include <tamsi/scenes/mujoco_model.h>
#include <tamsi/scenes/simulator.h>

#include <Eigen/Core>
#include <array>
#include <vector>

namespace tamsi::scenes {

struct MujocoOdeOptions {
  /// Per-geom stiffness and dissipation where MJCF `user` data gives none.
  ContactDefaults contact;
  /// v_s (m/s) of the regularized friction (eq. 7), > 0, and its regularization.
  double stiction_tolerance{1e-4};
  FrictionRegularization regularization{FrictionRegularization::kLinear};
  /// h (s) of the integration, > 0: only MuJoCo's solref rule for joint limits and equality constraints (time
  /// constant ≥ 2h) reads it; contact forces are evaluated at the state, not over a step.
  double time_step{1e-3};
  NarrowPhase narrow_phase{NarrowPhase::kAnalytic};
};

class MujocoOdeSystem final : public integrators::OdeSystem {
 public:
  /// Starts from keyframe `keyframe` (-1: the model's qpos0 at rest) at its time. Throws std::invalid_argument for a
  /// null model, a keyframe out of range or invalid options (naming the field).
  MujocoOdeSystem(ModelPtr model, const MujocoOdeOptions& options, int keyframe = -1, Controller controller = {});
  ~MujocoOdeSystem() override;

  int size() const override { return 2 * model_->nv; }
  double stiction_tolerance() const override { return options_.stiction_tolerance; }
  /// vt = Jt(q(x)) v of the geom contacts at x, in their own tangent bases (2 per contact, m/s).
  void CalcTangentialVelocities(double t, const Eigen::VectorXd& x, Eigen::VectorXd* vt) override;
  /// Pairs the geom contacts of x and x_next by their geom pair (geom1, geom2) and their order among that pair's
  /// contacts, where both states have the same number of contacts for the pair; a contact made or broken between the
  /// two states has no tangential velocity at the other end and is left out (it is no stick/slip transition). vt_next
  /// is x_next's tangential velocity (3D, at its own configuration) projected on x's tangent basis, so that both are
  /// in one basis even where the contact frame turned.
  void CalcPairedTangentialVelocities(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& x_next,
                                      Eigen::VectorXd* vt, Eigen::VectorXd* vt_next) override;

  /// Re-centres the tangent coordinates for a step that starts at x: q0 ← q(x), x ← (0, v).
  void BeginStep(Eigen::VectorXd* x);
  /// The state x = (0, v) at the construction's keyframe and its time (s).
  Eigen::VectorXd initial_state() const;
  double initial_time() const { return initial_time_; }
  /// q(x) = q0 ⊕ Δq (nq).
  Eigen::VectorXd Configuration(const Eigen::VectorXd& x) const;
  /// The tangent-coordinate rate Δq̇ of body velocities v at displacement Δq (nv each): v for hinge, slide and the
  /// free joints' translations; J_r(Δθ)⁻¹ ω for the rotations of free and ball joints, where J_r is SO(3)'s right
  /// Jacobian (ω in the body frame).
  Eigen::VectorXd TangentRate(const Eigen::VectorXd& dq, const Eigen::VectorXd& v) const;

  const mjModel& model() const { return *model_; }
  /// MuJoCo's data at the last state evaluated (kinematics, contacts, forces, the controller's inputs).
  const mjData& data() const { return *data_; }
  /// The front end's contacts at the last state evaluated, and their normal forces π (N, eq. 5).
  const ContactProblemBuilder& builder() const { return builder_; }
  const Eigen::VectorXd& normal_forces() const { return pi_; }

 protected:
  void CalcTimeDerivative(double t, const Eigen::VectorXd& x, Eigen::VectorXd* xdot) override;

 private:
  /// Front-end pass at the state x: qpos, qvel, with `control` the controller's inputs at time t, then kinematics,
  /// collision, M, Jn, Jt, δ0, τ.
  void Evaluate(double t, const Eigen::VectorXd& x, bool control);
  /// vt of the geom contacts of the last Evaluate (2 per contact) and their keys (geom pair, order within the pair).
  void GeomTangentialVelocities(Eigen::VectorXd* vt, std::vector<std::array<int, 3>>* keys) const;

  ModelPtr model_;
  DataPtr data_;
  MujocoOdeOptions options_;
  Controller controller_;
  ContactProblemBuilder builder_;
  ContactProblem problem_;
  kernels::ThreadBudget budget_{1};
  Eigen::VectorXd q0_, initial_v_;
  double initial_time_{0.0};
  Eigen::VectorXd vn_, vt_, pi_, ft_, blocks_, pi_frozen_, generalized_force_, vt_other_;
  std::vector<std::array<int, 3>> keys_, keys_other_;
};

}  // namespace tamsi::scenes
