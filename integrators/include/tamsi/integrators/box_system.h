#pragma once
/// @file
/// The paper's small system (Sec. IV-A): a box on a horizontal surface pushed sideways by a harmonic force,
/// m v̇ = f(t) − μ̃(|v|/v_s) W sgn(v), f(t) = F sin(2π ν t), W = m g, with μ̃ the regularized friction of eq. 7.

#include <tamsi/integrators/ode_system.h>
#include <tamsi/kernels/contact_kernels.h>

namespace tamsi::integrators {

struct BoxParameters {
  double mass{0.33};                ///< m (kg)
  double friction{1.0};             ///< μ
  double gravity{9.8};              ///< g (m/s²); W = m g
  double force_amplitude{4.0};      ///< F (N)
  double force_frequency{1.0};      ///< ν (Hz)
  double stiction_tolerance{1e-4};  ///< v_s (m/s)
  FrictionRegularization regularization{FrictionRegularization::kLinear};
};

/// State x = (p, v): position (m) and velocity (m/s) of the box along the surface. One contact, whose tangential
/// velocity is (v, 0).
class BoxSystem final : public OdeSystem {
 public:
  /// Throws std::invalid_argument naming the field when m, g or v_s is not positive or μ, F or ν is negative.
  explicit BoxSystem(const BoxParameters& parameters = {});

  int size() const override { return 2; }
  double stiction_tolerance() const override { return parameters_.stiction_tolerance; }
  void CalcTangentialVelocities(double t, const Eigen::VectorXd& x, Eigen::VectorXd* vt) override;

  const BoxParameters& parameters() const { return parameters_; }
  /// f(t) (N).
  double AppliedForce(double t) const;
  /// The friction force −μ̃(|v|/v_s) W sgn(v) (N).
  double FrictionForce(double v) const;
  /// While the box slides without reversing (|v| > v_s, sign s of v fixed), v(t) in closed form from v(t0) = v0:
  /// v0 + [F/(2πν)(cos 2πνt0 − cos 2πνt) − s μ W (t − t0)]/m (m/s).
  double SlidingVelocity(double t0, double v0, double t) const;

 protected:
  void CalcTimeDerivative(double t, const Eigen::VectorXd& x, Eigen::VectorXd* xdot) override;

 private:
  BoxParameters parameters_;
};

/// The first step of size h at which the box goes from sliding to stiction (|v| > v_s at its start, ≤ v_s at its end)
/// when fixed-step IE with full Newton and TALS integrates it from x0 at t = 0: the step the paper's Fig. 4 shows.
struct SlideToStickStep {
  bool found{false};
  double t_start{0.0};      ///< s
  Eigen::VectorXd x_start;  ///< (p, v) at t_start
  Eigen::VectorXd x_end;    ///< (p, v) at t_start + h
};
SlideToStickStep FindFirstSlideToStick(const BoxParameters& parameters, const Eigen::VectorXd& x0, double h,
                                       double t_end);

}  // namespace tamsi::integrators
