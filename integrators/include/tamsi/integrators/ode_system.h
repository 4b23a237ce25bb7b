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
  /// The stiction tolerance v_s (m/s) of the system's regularized friction (eq. 7).
  virtual double stiction_tolerance() const { return 1e-4; }

  /// ẋ = f(t, x): size() entries. Counts one evaluation.
  void EvalTimeDerivative(double t, const Eigen::VectorXd& x, Eigen::VectorXd* xdot) {
    ++evaluations_;
    CalcTimeDerivative(t, x, xdot);
  }
  /// vt(x) = Jt(q) v (eq. 4) in each contact's 2D tangent basis at the configuration q of x: 2 entries per contact
  /// (m/s; none by default: TALS has nothing to limit). Not counted as an f evaluation.
  virtual void CalcTangentialVelocities(double t, const Eigen::VectorXd& x, Eigen::VectorXd* vt) {
    (void)t, (void)x;
    vt->resize(0);
  }
  /// The tangential velocities TALS compares across an update x → x_next: vt at x and vt_next at x_next for the
  /// contacts present at both, paired entry by entry (2m entries each for m paired contacts, m/s). A system whose
  /// contact set changes with the configuration pairs them itself; the default takes CalcTangentialVelocities at
  /// both states (a fixed contact set). Not counted as f evaluations.
  virtual void CalcPairedTangentialVelocities(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& x_next,
                                              Eigen::VectorXd* vt, Eigen::VectorXd* vt_next) {
    CalcTangentialVelocities(t, x, vt);
    CalcTangentialVelocities(t, x_next, vt_next);
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
