#include <tamsi/scenes/mujoco_ode_system.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tamsi::scenes {
namespace {

ModelPtr CheckModel(ModelPtr model) {
  if (!model) throw std::invalid_argument("MujocoOdeSystem: model is null");
  return model;
}

void CheckOptions(const MujocoOdeOptions& options) {
  if (!(options.stiction_tolerance > 0.0) || !std::isfinite(options.stiction_tolerance))
    throw std::invalid_argument("MujocoOdeOptions.stiction_tolerance: must be finite and > 0, got " +
                                std::to_string(options.stiction_tolerance));
  if (!(options.time_step > 0.0) || !std::isfinite(options.time_step))
    throw std::invalid_argument("MujocoOdeOptions.time_step: must be finite and > 0, got " +
                                std::to_string(options.time_step));
}

// J_r(θ)⁻¹ ω, the rate of θ for q = q0 Exp(θ) turning at body angular velocity ω:
// ω + ½ θ×ω + (1/θ² − (1 + cos θ)/(2θ sin θ)) θ×(θ×ω).
Eigen::Vector3d InverseRightJacobianTimes(const Eigen::Vector3d& theta, const Eigen::Vector3d& omega) {
  const double angle = theta.norm();
  const double c = angle < 1e-4 ? 1.0 / 12.0 + angle * angle / 720.0
                                : 1.0 / (angle * angle) - (1.0 + std::cos(angle)) / (2.0 * angle * std::sin(angle));
  const Eigen::Vector3d cross = theta.cross(omega);
  return omega + 0.5 * cross + c * theta.cross(cross);
}

}  // namespace

MujocoOdeSystem::MujocoOdeSystem(ModelPtr model, const MujocoOdeOptions& options, int keyframe, Controller controller)
    : model_(CheckModel(std::move(model))),
      options_(options),
      controller_(std::move(controller)),
      builder_(*model_, options.contact) {
  CheckOptions(options);
  if (keyframe < -1 || keyframe >= model_->nkey)
    throw std::invalid_argument("MujocoOdeSystem: keyframe " + std::to_string(keyframe) + " out of range");
  InstallMujocoHandlers();
  builder_.set_narrow_phase(options.narrow_phase);
  ConfigureModelForTamsi(model_.get(), 0);
  data_.reset(mj_makeData(model_.get()));
  if (keyframe >= 0) {
    mj_resetDataKeyframe(model_.get(), data_.get(), keyframe);
  } else {
    mj_resetData(model_.get(), data_.get());
  }
  q0_ = Eigen::Map<const Eigen::VectorXd>(data_->qpos, model_->nq);
  initial_v_ = Eigen::Map<const Eigen::VectorXd>(data_->qvel, model_->nv);
  initial_time_ = data_->time;
}

MujocoOdeSystem::~MujocoOdeSystem() = default;

Eigen::VectorXd MujocoOdeSystem::initial_state() const {
  Eigen::VectorXd x = Eigen::VectorXd::Zero(2 * model_->nv);
  x.tail(model_->nv) = initial_v_;
  return x;
}

Eigen::VectorXd MujocoOdeSystem::Configuration(const Eigen::VectorXd& x) const {
  Eigen::VectorXd q = q0_;
  mj_integratePos(model_.get(), q.data(), x.data(), 1.0);  // Δq is x's head: a displacement over unit time
  return q;
}

void MujocoOdeSystem::BeginStep(Eigen::VectorXd* x) {
  q0_ = Configuration(*x);
  x->head(model_->nv).setZero();
}

Eigen::VectorXd MujocoOdeSystem::TangentRate(const Eigen::VectorXd& dq, const Eigen::VectorXd& v) const {
  Eigen::VectorXd rate = v;
  const mjModel& m = *model_;
  for (int j = 0; j < m.njnt; ++j) {
    const int type = m.jnt_type[j];
    if (type != mjJNT_FREE && type != mjJNT_BALL) continue;
    const int adr = m.jnt_dofadr[j] + (type == mjJNT_FREE ? 3 : 0);
    rate.segment<3>(adr) = InverseRightJacobianTimes(dq.segment<3>(adr), v.segment<3>(adr));
  }
  return rate;
}

void MujocoOdeSystem::Evaluate(double t, const Eigen::VectorXd& x, bool control) {
  const int nv = model_->nv;
  const Eigen::VectorXd q = Configuration(x);
  for (;;) {
    std::copy_n(q.data(), model_->nq, data_->qpos);
    std::copy_n(x.data() + nv, nv, data_->qvel);
    data_->time = t;
    if (control && controller_) controller_(*model_, data_.get());
    if (builder_.Build(*model_, data_.get(), options_.time_step, &problem_)) return;
    GrowArena(model_.get(), &data_);
  }
}

void MujocoOdeSystem::CalcTimeDerivative(double t, const Eigen::VectorXd& x, Eigen::VectorXd* xdot) {
  const int nv = model_->nv;
  Evaluate(t, x, true);
  const Eigen::Map<const Eigen::VectorXd> v(x.data() + nv, nv);
  // Contact forces at the state itself: eq. 5 with δ = δ0 (no step ahead, h = 0) and eq. 6–7.
  const kernels::ContactModel contact_model{0.0, options_.stiction_tolerance, options_.regularization, true};
  vn_.noalias() = problem_.Jn * v;
  vt_.noalias() = problem_.Jt * v;
  pi_frozen_.setZero(vn_.size());
  kernels::CalcContactForces(budget_, contact_model, problem_.stiffness, problem_.dissipation, problem_.friction,
                             problem_.delta0, pi_frozen_, vn_, vt_, &pi_, &ft_, &blocks_);
  // τ(q, v) + Jnᵀπ + Jtᵀft + Jbᵀλ with the equality constraints' spring–damper λ = −k g − c Jb v.
  generalized_force_ = builder_.generalized_forces();
  generalized_force_.noalias() += problem_.Jn.transpose() * pi_;
  generalized_force_.noalias() += problem_.Jt.transpose() * ft_;
  if (problem_.num_constraints() > 0) {
    const Eigen::VectorXd lambda = -problem_.constraint_stiffness.cwiseProduct(problem_.g0) -
                                   problem_.constraint_damping.cwiseProduct(problem_.Jb * v);
    generalized_force_.noalias() += problem_.Jb.transpose() * lambda;
  }
  xdot->resize(2 * nv);
  xdot->head(nv) = TangentRate(x.head(nv), v);
  // v̇ = M(q)⁻¹(…) with MuJoCo's sparse LDLᵀ of M (qM, armature included), as the front end's M.
  mj_factorM(model_.get(), data_.get());
  mj_solveM(model_.get(), data_.get(), xdot->data() + nv, generalized_force_.data(), 1);
}

void MujocoOdeSystem::GeomTangentialVelocities(Eigen::VectorXd* vt, std::vector<std::array<int, 3>>* keys) const {
  const std::vector<ContactInfo>& contacts = builder_.contacts();
  const Eigen::Map<const Eigen::VectorXd> v(data_->qvel, model_->nv);
  int geom_contacts = 0;
  while (geom_contacts < static_cast<int>(contacts.size()) && contacts[geom_contacts].kind == ContactInfo::Kind::kGeoms)
    ++geom_contacts;
  *vt = (problem_.Jt * v).head(2 * geom_contacts);
  keys->resize(geom_contacts);
  for (int i = 0; i < geom_contacts; ++i) {
    const int g1 = contacts[i].geom1, g2 = contacts[i].geom2;
    int order = 0;
    for (int j = 0; j < i; ++j) order += contacts[j].geom1 == g1 && contacts[j].geom2 == g2;
    (*keys)[i] = {g1, g2, order};
  }
}

void MujocoOdeSystem::CalcTangentialVelocities(double t, const Eigen::VectorXd& x, Eigen::VectorXd* vt) {
  Evaluate(t, x, false);
  GeomTangentialVelocities(vt, &keys_);
}

void MujocoOdeSystem::CalcPairedTangentialVelocities(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& x_next,
                                                     Eigen::VectorXd* vt, Eigen::VectorXd* vt_next) {
  // x_next first, keeping its world-frame tangential velocities; then x, whose contacts set the pairs and the basis.
  Evaluate(t, x_next, false);
  GeomTangentialVelocities(&vt_other_, &keys_other_);
  std::vector<Eigen::Vector3d> slip_next(keys_other_.size());
  for (size_t j = 0; j < keys_other_.size(); ++j) {
    const ContactInfo& c = builder_.contacts()[j];
    slip_next[j] = vt_other_[2 * j] * c.tangent1 + vt_other_[2 * j + 1] * c.tangent2;
  }
  Evaluate(t, x, false);
  Eigen::VectorXd vt_here;
  GeomTangentialVelocities(&vt_here, &keys_);
  // Contacts per geom pair at each end: a pair whose count changed is left out whole.
  auto count = [](const std::vector<std::array<int, 3>>& keys, int g1, int g2) {
    return std::count_if(keys.begin(), keys.end(), [&](const auto& k) { return k[0] == g1 && k[1] == g2; });
  };
  std::vector<std::pair<int, int>> pairs;  // (index at x, index at x_next)
  for (size_t i = 0; i < keys_.size(); ++i) {
    const auto match = std::find(keys_other_.begin(), keys_other_.end(), keys_[i]);
    if (match == keys_other_.end()) continue;
    if (count(keys_, keys_[i][0], keys_[i][1]) != count(keys_other_, keys_[i][0], keys_[i][1])) continue;
    pairs.emplace_back(static_cast<int>(i), static_cast<int>(match - keys_other_.begin()));
  }
  vt->resize(2 * pairs.size());
  vt_next->resize(2 * pairs.size());
  for (size_t p = 0; p < pairs.size(); ++p) {
    const auto [i, j] = pairs[p];
    const ContactInfo& c = builder_.contacts()[i];
    (*vt)[2 * p] = vt_here[2 * i];
    (*vt)[2 * p + 1] = vt_here[2 * i + 1];
    (*vt_next)[2 * p] = c.tangent1.dot(slip_next[j]);
    (*vt_next)[2 * p + 1] = c.tangent2.dot(slip_next[j]);
  }
}

}  // namespace tamsi::scenes
