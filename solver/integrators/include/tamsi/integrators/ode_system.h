#pragma once
/// @file
/// A system ẋ = f(t, x) (paper eq. 3) as the integrators of the paper's Sec. III–IV see it: the time derivative,
/// counted (the number of f evaluations is the paper's measure of work), and the contacts' tangential velocities at
/// a state, for TALS.

#include <Eigen/Core>

namespace tamsi::integrators {

class OdeSystem {
 public:
  virtual ~OdeSystem() = default;

  /// Size of the state x (for a multibody system nq + nv).
  virtual int size() const = 0;
  /// Number of contacts whose tangential velocities TALS watches (0: TALS has nothing to limit).
  virtual int num_contacts() const { return 0; }
  /// The stiction tolerance v_s (m/s) of the system's regularized friction (eq. 7).
  virtual double stiction_tolerance() const { return 1e-4; }

  /// ẋ = f(t, x): size() entries. Counts one evaluation.
  void EvalTimeDerivative(double t, const Eigen::VectorXd& x, Eigen::VectorXd* xdot) {
    ++evaluations_;
    CalcTimeDerivative(t, x, xdot);
  }
  /// vt(x) = Jt(q) v (eq. 4) in each contact's 2D tangent basis at the configuration q of x: 2 num_contacts()
  /// entries (m/s). Not counted as an f evaluation.
  virtual void CalcTangentialVelocities(double t, const Eigen::VectorXd& x, Eigen::VectorXd* vt) {
    (void)t, (void)x;
    vt->resize(0);
  }

  /// f evaluations since construction or the last ResetEvaluations().
  long long evaluations() const { return evaluations_; }
  void ResetEvaluations() { evaluations_ = 0; }

 protected:
  virtual void CalcTimeDerivative(double t, const Eigen::VectorXd& x, Eigen::VectorXd* xdot) = 0;

 private:
  long long evaluations_{0};
};

}  // namespace tamsi::integrators
