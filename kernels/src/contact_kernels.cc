#include <tamsi/kernels/contact_kernels.h>
#include <tamsi/kernels/parallel.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace tamsi::kernels {

FrictionSlope RegularizedFrictionSlope(double mu, double s, FrictionRegularization regularization) {
  if (s > 1.0) return {mu / s, -mu / s};                                    // μ̃ = μ: g = μ/s, s g' = −μ/s.
  if (regularization == FrictionRegularization::kLinear) return {mu, 0.0};  // μ̃ = μ s (eq. 7).
  return {mu * (2.0 - s), -mu * s};                                         // μ̃ = μ s (2 − s).
}

NormalForce HuntCrossleyForce(double k, double d, double delta0, double h, double vn) {
  const double delta = delta0 - h * vn;  // eq. 19, δ̇ = −vn
  const double damping = 1.0 - d * vn;   // (1 + d δ̇) of eq. 5
  if (delta <= 0.0 || damping <= 0.0) return {0.0, 0.0};
  return {k * damping * delta, -k * (d * delta + h * damping)};
}

double ContactPower(const ContactModel& model, double k, double d, double mu, double delta0, double pi_frozen,
                    const double* pi_lag, double vn, const Eigen::Vector2d& vt, double dvn, const Eigen::Vector2d& dvt,
                    double alpha) {
  const double pi = model.two_way ? HuntCrossleyForce(k, d, delta0, model.time_step, vn + alpha * dvn).pi : pi_frozen;
  const Eigen::Vector2d v = vt + alpha * dvt;
  const double vs = model.stiction_tolerance;
  const double g = RegularizedFrictionSlope(mu, v.norm() / vs, model.regularization).g;
  return dvn * pi - ((pi_lag ? *pi_lag : pi) / vs) * g * dvt.dot(v);
}

void CalcContactForces(const ThreadBudget& budget, const ContactModel& model, const Eigen::VectorXd& k,
                       const Eigen::VectorXd& d, const Eigen::VectorXd& mu, const Eigen::VectorXd& delta0,
                       const Eigen::VectorXd& pi_frozen, const Eigen::VectorXd& vn, const Eigen::VectorXd& vt,
                       Eigen::VectorXd* pi, Eigen::VectorXd* ft, Eigen::VectorXd* blocks,
                       const SlidingBlock* sliding_block, const Eigen::VectorXd* dual) {
  const int nc = static_cast<int>(vn.size());
  const double h = model.time_step;
  const double vs = model.stiction_tolerance;
  pi->resize(nc);
  ft->resize(2 * nc);
  if (blocks) blocks->resize(9 * nc);
  budget.For(nc, 256, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      NormalForce normal{pi_frozen[i], 0.0};
      if (model.two_way) normal = HuntCrossleyForce(k[i], d[i], delta0[i], h, vn[i]);
      const Eigen::Vector2d v = vt.segment<2>(2 * i);
      const double speed = v.norm();
      const double s = speed / vs;
      const FrictionSlope slope = RegularizedFrictionSlope(mu[i], s, model.regularization);
      (*pi)[i] = normal.pi;
      ft->segment<2>(2 * i) = -(normal.pi / vs) * slope.g * v;
      if (!blocks) continue;
      // B = −∂(π, ft)/∂(vn, vt), rows and columns ordered (n, t1, t2).
      Eigen::Map<Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> B(blocks->data() + 9 * i);
      B.setZero();
      B(0, 0) = -normal.dpi_dvn;
      const SlidingBlock block = s > 1.0 && sliding_block ? sliding_block[i] : SlidingBlock::kTangent;
      if (block == SlidingBlock::kPrimalDual) {
        // μ̃ w dπ/dvn and (π μ̃/‖vt‖)(I − ½(w v̂ᵀ + v̂ wᵀ)), with g = μ̃/s: μ̃ = g s and π μ̃/‖vt‖ = (π/v_s) g.
        const Eigen::Vector2d w = dual->segment<2>(2 * i);
        const Eigen::Vector2d u = v / speed;
        B.block<2, 1>(1, 0) = (slope.g * s * normal.dpi_dvn) * w;
        B.block<2, 2>(1, 1) =
            (normal.pi / vs) * slope.g * (Eigen::Matrix2d::Identity() - 0.5 * (w * u.transpose() + u * w.transpose()));
        continue;
      }
      // −∂ft/∂vn = (g/v_s) vt dπ/dvn (eq. 22).
      B.block<2, 1>(1, 0) = (slope.g / vs * normal.dpi_dvn) * v;
      // −∂ft/∂vt = (π/v_s)(g I + s g' v̂v̂ᵀ) (eq. 16); the secant keeps (π/v_s) g I.
      Eigen::Matrix2d dft = slope.g * Eigen::Matrix2d::Identity();
      if (speed > 0.0 && block != SlidingBlock::kSecant) dft += (slope.s_dg / (speed * speed)) * (v * v.transpose());
      B.block<2, 2>(1, 1) = (normal.pi / vs) * dft;
    }
  });
}

Eigen::Vector2d PrimalDualAt(const Eigen::Vector2d& vt, double stiction_tolerance) {
  return vt / std::max(stiction_tolerance, vt.norm());
}

Eigen::Vector2d UpdatePrimalDual(const Eigen::Vector2d& vt, const Eigen::Vector2d& dvt, const Eigen::Vector2d& w,
                                 double stiction_tolerance) {
  const double speed = vt.norm();
  Eigen::Vector2d next = vt + dvt;
  if (speed > stiction_tolerance) next -= w * (vt.dot(dvt) / speed);
  next /= std::max(stiction_tolerance, speed);
  return next / std::max(1.0, next.norm());
}

double TalsAlpha(const Eigen::Vector2d& vt, const Eigen::Vector2d& dvt, double stiction_tolerance, double cos_max,
                 double tan_max) {
  const double vs = stiction_tolerance;
  const double dv2 = dvt.squaredNorm();
  // A change far below v_s can neither jump across the stiction disk nor turn a sliding velocity noticeably.
  if (dv2 <= 1e-6 * vs * vs) return 1.0;
  const double x = vt.norm();
  if (x <= vs) return 1.0;  // From stiction: the Newton matrix is accurate there.
  const Eigen::Vector2d v1 = vt + dvt;
  const double x1 = v1.norm();
  if (x1 <= vs) return 1.0;  // Sliding to stiction: the step lands in the disk.
  // Sliding to sliding through the disk: stop at the line's point closest to the origin, which lies inside it.
  const double alpha_closest = -vt.dot(dvt) / dv2;
  if (alpha_closest > 0.0 && alpha_closest < 1.0 && (vt + alpha_closest * dvt).norm() < vs) return alpha_closest;
  // Sliding to sliding: limit the angle between vt and vt + α Δvt to θ_max.
  if (vt.dot(v1) >= cos_max * x * x1) return 1.0;
  const Eigen::Vector2d u = vt / x;
  const double a = u.dot(dvt);                                   // change along vt
  const double b = std::abs(u.x() * dvt.y() - u.y() * dvt.x());  // change across vt
  // tan(angle(α)) = α b / (x + α a) = tan θ_max.
  const double alpha = x * tan_max / (b - a * tan_max);
  return std::clamp(alpha, 0.0, 1.0);
}

TalsLimit CalcTalsLimit(const ThreadBudget& budget, const Eigen::VectorXd& vt, const Eigen::VectorXd& dvt,
                        double stiction_tolerance, double max_angle, const int* contacts, int num_contacts) {
  const int n = contacts ? num_contacts : static_cast<int>(vt.size() / 2);
  const double cos_max = std::cos(max_angle);
  const double tan_max = std::tan(max_angle);
  return budget.Reduce(
      n, 512, TalsLimit{1.0, 0},
      [&](int begin, int end) {
        TalsLimit limit{1.0, 0};
        for (int c = begin; c < end; ++c) {
          const int i = contacts ? contacts[c] : c;
          const double alpha =
              TalsAlpha(vt.segment<2>(2 * i), dvt.segment<2>(2 * i), stiction_tolerance, cos_max, tan_max);
          limit.alpha = std::min(limit.alpha, alpha);
          limit.limited_contacts += alpha < 1.0;
        }
        return limit;
      },
      [](TalsLimit a, TalsLimit b) {
        return TalsLimit{std::min(a.alpha, b.alpha), a.limited_contacts + b.limited_contacts};
      });
}

}  // namespace tamsi::kernels
