#pragma once
/// @file
/// Implicit Euler (IE) on the full state x = (q, v) (paper eq. 9): x^n solves r(x) = x − x^{n−1} − h f(t^n, x) = 0 by
/// Newton's method with the Jacobian of f by forward differences. The configuration changes inside the iteration, so
/// every f evaluation re-evaluates the geometry (contact Jacobians, penetrations) at the iterate. TALS (Sec. III-A)
/// optionally limits each update x ← x + α Δx from the contacts' tangential velocities at x and x + Δx.
///
/// Newton's convergence monitoring and Jacobian reuse follow Hairer & Wanner, Solving ODEs II, §IV.8: with
/// Θ_k = ‖Δx^k‖/‖Δx^{k−1}‖ the estimated contraction rate and η_k = Θ_k/(1 − Θ_k), the iteration has converged when
/// η_k ‖Δx^k‖ ≤ tolerance (from the second update on, as Drake's integrators do: the first alone cannot tell a good
/// iterate from a Jacobian that is too stiff); it is stopped as diverging when Θ_k ≥ 1 or when Θ_k^{kmax−k}/(1 − Θ_k)
/// ‖Δx^k‖ predicts that it will not converge within kmax iterations. Full Newton (FN) evaluates the Jacobian at every
/// iterate; quasi-Newton (QN) keeps the Jacobian and the factorization of I − hJ across iterations and steps while the
/// contraction rate stays good, refactors when h changes, re-evaluates J when an iteration with a stale Jacobian
/// fails, and only then shrinks h. ‖·‖ is the max norm (state units).

#include <tamsi/integrators/ode_system.h>

#include <Eigen/Core>
#include <Eigen/LU>
#include <vector>

namespace tamsi::integrators {

/// How Newton's Jacobian is refreshed.
enum class NewtonUpdate {
  kFull,   ///< FN: J = ∂f/∂x evaluated (by forward differences) at every iterate.
  kQuasi,  ///< QN: J kept across iterations and steps (Hairer & Wanner §IV.8).
};

struct ImplicitEulerOptions {
  NewtonUpdate newton{NewtonUpdate::kFull};
  /// TALS on the tangential velocities (Sec. III-A), with the angle limit θ_max (rad).
  bool tals{true};
  double max_angle{1.0471975511965976};
  /// kmax: Newton iterations per implicit solve, ≥ 1.
  int max_newton_iterations{10};
  /// Newton converges when η ‖Δx‖ ≤ this (state units, max norm), > 0. Error-controlled stepping uses
  /// κ · accuracy instead (below).
  double newton_tolerance{1e-5};
  /// Hairer & Wanner's divergence tests (Θ ≥ 1, predicted miss of kmax). Off: Newton runs to kmax or to a residual
  /// below newton_tolerance, for residual histories (Fig. 4).
  bool monitor_convergence{true};
  /// QN keeps its Jacobian for the next step when the largest Θ of the last solve is at most this.
  double jacobian_reuse_rate{0.1};

  /// Fixed step h (s) with convergence control, or the first trial step of error-controlled stepping. > 0.
  double time_step{1e-3};
  /// Convergence control: a step whose Newton iteration fails is redone as two halves, recursively, at most this
  /// many times (h / 2^max_halvings is the smallest step). ≥ 0.
  int max_halvings{30};

  /// Error control: steps sized so that the local error estimate (step doubling, max norm, state units) stays
  /// within `accuracy`. Off: fixed steps.
  bool error_controlled{false};
  double accuracy{1e-3};
  /// κ of the Newton tolerance κ · accuracy under error control (Hairer & Wanner suggest 0.01–0.1).
  double newton_kappa{0.05};
  /// Error-controlled step bounds (s); max ≤ 0: no bound.
  double min_time_step{1e-10};
  double max_time_step{0.0};

  /// Throws std::invalid_argument naming the first bad field.
  void Validate() const;
};

/// Work and outcome of the steps taken so far.
struct ImplicitEulerStatistics {
  long long steps{0};                 ///< accepted steps (convergence-control substeps each count)
  long long newton_iterations{0};     ///< over all implicit solves, failed ones included
  long long jacobian_evaluations{0};  ///< forward-difference Jacobians (each costs size() f evaluations)
  long long factorizations{0};        ///< LU factorizations of I − h J
  long long convergence_failures{0};  ///< implicit solves whose Newton iteration failed
  long long error_rejections{0};      ///< error-controlled steps rejected by the error estimate
  long long tals_limited{0};          ///< Newton updates that TALS limited (α < 1)
  double smallest_step{0.0};          ///< smallest accepted step (s)
};

/// One Newton iteration's record (residual histories, Fig. 4).
struct NewtonIterate {
  double residual;  ///< ‖r(x^k)‖ (max norm, state units) at the iterate the update starts from
  double update;    ///< ‖Δx^k‖ of the full Newton update
  double alpha;     ///< TALS's α (1 without TALS)
};

/// The outcome of one implicit solve.
struct NewtonResult {
  bool converged{false};
  std::vector<NewtonIterate> iterates;
};

class ImplicitEuler {
 public:
  /// `system` must outlive the integrator. Throws std::invalid_argument for invalid options.
  ImplicitEuler(OdeSystem* system, const ImplicitEulerOptions& options);

  /// Solves r(x) = x − x0 − h f(t0 + h, x) = 0 from the guess x0. Writes x on success; leaves it otherwise.
  NewtonResult Solve(double t0, const Eigen::VectorXd& x0, double h, Eigen::VectorXd* x);

  /// One step toward t_end (> t), never past it: a fixed step of options.time_step (with convergence control), or
  /// one accepted error-controlled step. Returns false, leaving t and x, when the step fails at the smallest step.
  bool Step(double t_end, double* t, Eigen::VectorXd* x);

  /// Advances (t, x) to t_end: fixed steps of options.time_step with convergence control, or error-controlled
  /// steps, never past t_end. Returns false (and leaves t, x at the last accepted step) when a step fails with the
  /// smallest step allowed.
  bool Integrate(double t_end, double* t, Eigen::VectorXd* x);

  const ImplicitEulerStatistics& statistics() const { return statistics_; }
  const ImplicitEulerOptions& options() const { return options_; }
  /// The last forward-difference Jacobian ∂f/∂x and the state it was evaluated at.
  const Eigen::MatrixXd& jacobian() const { return jacobian_; }
  const Eigen::VectorXd& jacobian_point() const { return jacobian_point_; }
  /// The step error control will try next (s).
  double next_time_step() const { return h_next_; }

 private:
  bool FixedStep(double t0, const Eigen::VectorXd& x0, double h, int halvings_left, Eigen::VectorXd* x);
  /// One error-controlled attempt of size h: false with *error = +inf on a convergence failure.
  bool DoubledStep(double t0, const Eigen::VectorXd& x0, double h, Eigen::VectorXd* x, double* error);
  void EvalJacobian(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& fx);
  void Factor(double h);
  /// One Newton iteration from the guess x0 with the current Jacobian policy; appends its iterates.
  bool Iterate(double t0, const Eigen::VectorXd& x0, double h, Eigen::VectorXd* x,
               std::vector<NewtonIterate>* iterates);
  double TalsAlpha(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& dx);
  void RecordStep(double h);

  OdeSystem* system_;
  ImplicitEulerOptions options_;
  ImplicitEulerStatistics statistics_;
  Eigen::MatrixXd jacobian_;                 // ∂f/∂x
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;  // of I − h J
  bool have_jacobian_{false}, jacobian_fresh_{false};
  double factored_h_{0.0};
  double h_next_{0.0};
  Eigen::VectorXd jacobian_point_, f_, r_, dx_, x_trial_, vt_, vt_trial_, x_full_, x_half_, x_new_;
};

}  // namespace tamsi::integrators
