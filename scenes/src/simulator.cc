#include <tamsi/scenes/simulator.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace tamsi::scenes {
namespace {

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

mjtNum SteadyClockSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Sets MuJoCo's global timer callback for a scope, then puts back the one it found; writes it only where it differs
/// (the global is shared by every thread).
class TimerCallbackScope {
 public:
  explicit TimerCallbackScope(mjfTime timer) : caller_(mjcb_time) {
    if (timer != caller_) mjcb_time = timer;
  }
  ~TimerCallbackScope() {
    if (mjcb_time != caller_) mjcb_time = caller_;
  }
  TimerCallbackScope(const TimerCallbackScope&) = delete;
  TimerCallbackScope& operator=(const TimerCallbackScope&) = delete;

 private:
  mjfTime caller_;
};

std::string Format(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

ModelPtr CheckModel(ModelPtr model) {
  if (!model) throw std::invalid_argument("Simulator: model is null");
  return model;
}

/// Throws std::invalid_argument unless `keyframe` is -1 or one of the model's keyframes.
void CheckKeyframe(const mjModel& model, int keyframe) {
  if (keyframe < -1 || keyframe >= model.nkey) {
    throw std::invalid_argument("Simulator: keyframe " + std::to_string(keyframe) + " out of range");
  }
}

/// The model's state at `keyframe` (-1: qpos0 at rest). Throws std::invalid_argument naming the keyframe and the
/// entry when a position, velocity, activation or control is not finite.
void ResetState(const mjModel& model, mjData* data, int keyframe) {
  if (keyframe >= 0) {
    mj_resetDataKeyframe(&model, data, keyframe);
  } else {
    mj_resetData(&model, data);
  }
  const char* key_name = keyframe >= 0 ? mj_id2name(&model, mjOBJ_KEY, keyframe) : nullptr;
  const std::string source = keyframe < 0 ? std::string("the model's qpos0")
                             : key_name   ? "keyframe '" + std::string(key_name) + "'"
                                          : "keyframe #" + std::to_string(keyframe);
  auto check = [&](const char* field, const double* values, int n) {
    for (int i = 0; i < n; ++i)
      if (!std::isfinite(values[i]))
        throw std::invalid_argument(source + ": " + field + "[" + std::to_string(i) + "] is not finite");
  };
  check("qpos", data->qpos, model.nq);
  check("qvel", data->qvel, model.nv);
  check("act", data->act, model.na);
  check("ctrl", data->ctrl, model.nu);
}

// MuJoCo warnings that make a step of its own solver invalid.
constexpr int kMujocoFatalWarnings[] = {mjWARN_CONTACTFULL, mjWARN_CNSTRFULL, mjWARN_BADQPOS, mjWARN_BADQVEL,
                                        mjWARN_BADQACC};

}  // namespace

RunStatistics& RunStatistics::operator+=(const RunStatistics& other) {
  steps += other.steps;
  sim_time += other.sim_time;
  wall_time += other.wall_time;
  time_frontend += other.time_frontend;
  time_solve += other.time_solve;
  iterations_total += other.iterations_total;
  iterations_max = std::max(iterations_max, other.iterations_max);
  retried_steps += other.retried_steps;
  failed_solves += other.failed_solves;
  contacts_total += other.contacts_total;
  solves += other.solves;
  structure_reuses += other.structure_reuses;
  contacts_max = std::max(contacts_max, other.contacts_max);
  limit_rows_max = std::max(limit_rows_max, other.limit_rows_max);
  equality_rows_max = std::max(equality_rows_max, other.equality_rows_max);
  limit_violation_max = std::max(limit_violation_max, other.limit_violation_max);
  equality_violation_max = std::max(equality_violation_max, other.equality_violation_max);
  counters += other.counters;
  if (tunnelling_steps == 0) first_tunnelling = other.first_tunnelling;
  tunnelling_steps += other.tunnelling_steps;
  return *this;
}

std::string RunStatistics::Report() const {
  std::ostringstream out;
  out << "steps            " << steps << "\n";
  out << "sim time         " << Format("%.4g", sim_time) << " s\n";
  out << "wall time        " << Format("%.4g", wall_time) << " s";
  if (time_frontend > 0 || time_solve > 0) {
    out << " (front end " << Format("%.4g", time_frontend) << " s, solve " << Format("%.4g", time_solve) << " s)";
  } else if (steps > 0) {
    out << " (phases not timed)";
  }
  out << "\n";
  out << "real-time rate   " << Format("%.4g", real_time_rate()) << "x\n";
  out << "iterations       mean " << Format("%.3g", iterations_mean()) << ", max " << iterations_max;
  if (solves > 0) {
    out << " (" << counters.secant_iterations << " with the secant safeguard; " << counters.primal_dual_fallbacks
        << " primal-dual fallbacks; " << counters.symmetric_directions << " symmetric directions)\n";
  } else {
    out << " (MuJoCo's solver: per step, the most of any of its islands)\n";
  }
  out << "retried steps    " << retried_steps << " (failed solves " << failed_solves << ")\n";
  out << "contacts         mean " << Format("%.4g", contacts_mean()) << ", max " << contacts_max << "\n";
  if (limit_rows_max > 0 || equality_rows_max > 0) {
    out << "constraints      " << limit_rows_max << " limit rows, " << equality_rows_max
        << " equality rows; largest violation at a step's start: limits " << Format("%.3g", limit_violation_max)
        << ", equalities " << Format("%.3g", equality_violation_max) << " (m or rad)\n";
  }
  if (solves > 0 && counters.time_total == 0) {
    out << "solver phases    not timed (" << counters.numeric_factorizations << " numeric factorizations, "
        << counters.krylov_iterations << " GMRES iterations)\n";
  } else if (solves > 0) {
    out << "solver phases    residual " << Format("%.4g", counters.time_residual) << " s, assembly "
        << Format("%.4g", counters.time_assembly) << " s, factorization "
        << Format("%.4g", counters.time_symbolic + counters.time_numeric) << " s (" << counters.numeric_factorizations
        << " numeric), linear solves " << Format("%.4g", counters.time_solve) << " s (" << counters.krylov_iterations
        << " GMRES iterations), line search " << Format("%.4g", counters.time_line_search) << " s\n";
  }
  if (solves > 0) {
    out << "structure reused " << structure_reuses << " of " << solves << " solves ("
        << Format("%.3g", 100.0 * structure_reuses / solves) << " %)\n";
  }
  if (tunnelling_steps > 0)
    out << "tunnelling risk  " << tunnelling_steps << " steps; first: " << first_tunnelling << "\n";
  return out.str();
}

int FindKeyframe(const mjModel& model, const std::string& name) {
  if (name.empty()) return model.nkey > 0 ? 0 : -1;
  const int key = mj_name2id(&model, mjOBJ_KEY, name.c_str());
  if (key < 0) {
    std::string known;
    for (int k = 0; k < model.nkey; ++k) {
      const char* key_name = mj_id2name(&model, mjOBJ_KEY, k);
      known += std::string(known.empty() ? "" : ", ") + (key_name ? key_name : "#" + std::to_string(k));
    }
    throw std::invalid_argument("unknown keyframe '" + name + "' (model has: " + (known.empty() ? "none" : known) +
                                ")");
  }
  return key;
}

Simulator::Simulator(ModelPtr model, const SimulatorOptions& options, int keyframe, Controller controller)
    : model_(CheckModel(std::move(model))),
      options_(options),
      controller_(std::move(controller)),
      builder_(*model_, options.contact),
      solver_(options.solver) {
  if (!std::isfinite(options.time_step)) throw std::invalid_argument("SimulatorOptions.time_step must be finite");
  if (!(options.max_speed > 0)) {
    throw std::invalid_argument("SimulatorOptions.max_speed must be > 0, got " + std::to_string(options.max_speed));
  }
  if (options.max_halvings < 0 || options.max_halvings > 20) {
    throw std::invalid_argument("SimulatorOptions.max_halvings must be in [0, 20], got " +
                                std::to_string(options.max_halvings));
  }
  if (options.mujoco_solver < -1 || options.mujoco_solver > mjSOL_NEWTON) {
    throw std::invalid_argument("SimulatorOptions.mujoco_solver must be -1, mjSOL_PGS, mjSOL_CG or mjSOL_NEWTON");
  }
  CheckKeyframe(*model_, keyframe);
  time_step_ = options.time_step > 0 ? options.time_step : model_->opt.timestep;
  if (!(time_step_ > 0)) throw std::invalid_argument("Simulator: the model's timestep must be positive");
  FindFreeBodies();
  InstallMujocoHandlers();
  builder_.set_narrow_phase(options.narrow_phase);
  if (options.engine == Engine::kTamsi) {
    ConfigureModelForTamsi(model_.get(), 0);
    own_data_.reset(mj_makeData(model_.get()));
    data_ = own_data_.get();
    ResetState(*model_, data_, keyframe);
    return;
  }
  model_->opt.timestep = time_step_;
  if (options.mujoco_solver >= 0) model_->opt.solver = options.mujoco_solver;
  own_data_.reset(mj_makeData(model_.get()));
  data_ = own_data_.get();
  ResetState(*model_, data_, keyframe);
}

Simulator::~Simulator() = default;

void Simulator::Reset(int keyframe) {
  CheckKeyframe(*model_, keyframe);
  ResetState(*model_, data_, keyframe);
  problem_ = ContactProblem();
  result_ = Result();
  duals_.Forget();
  known_velocity_changes_ = 0;
  ResetStatistics();
}

StepInfo Simulator::Step() {
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < free_bodies_.size(); ++i)
    std::copy_n(data_->qpos + free_bodies_[i].qpos, 3, travel_start_.begin() + 3 * i);
  StepInfo info = options_.engine == Engine::kTamsi ? StepTamsi(start) : StepMujoco();
  CheckTravel(&info);
  info.wall_time = Seconds(start);
  stats_.wall_time += info.wall_time;
  stats_.steps += 1;
  stats_.sim_time += time_step_;
  stats_.time_frontend += info.time_frontend;
  stats_.time_solve += info.time_solve;
  stats_.iterations_total += info.iterations;
  stats_.iterations_max = std::max(stats_.iterations_max, info.iterations);
  stats_.contacts_total += info.contacts;
  stats_.contacts_max = std::max(stats_.contacts_max, info.contacts);
  stats_.limit_rows_max = std::max(stats_.limit_rows_max, info.limit_rows);
  stats_.equality_rows_max = std::max(stats_.equality_rows_max, info.equality_rows);
  stats_.limit_violation_max = std::max(stats_.limit_violation_max, info.max_limit_violation);
  stats_.equality_violation_max = std::max(stats_.equality_violation_max, info.max_equality_violation);
  if (info.substeps > 1) stats_.retried_steps += 1;
  stats_.failed_solves += info.failed_solves;
  stats_.solves += info.solves;
  stats_.structure_reuses += info.structure_reuses;
  stats_.counters += info.counters;
  if (info.fast_bodies > 0 && stats_.tunnelling_steps++ == 0) {
    const char* name = mj_id2name(model_.get(), mjOBJ_BODY, info.fastest_body);
    const FreeBody* fastest = nullptr;
    for (const FreeBody& b : free_bodies_)
      if (b.body == info.fastest_body) fastest = &b;
    stats_.first_tunnelling = "body '" + (name ? std::string(name) : "#" + std::to_string(info.fastest_body)) +
                              "' travelled " + Format("%.3g", info.max_travel_ratio * fastest->half_thickness) +
                              " m in the step to t = " + Format("%.6g", data_->time) +
                              " s, more than its thinnest collision geom's half-thickness (" +
                              Format("%.3g", fastest->half_thickness) +
                              " m): contacts may have been passed through; a smaller time step helps";
  }
  if (observer_) observer_(*this);
  return info;
}

namespace {

/// Thrown inside Simulator::Step(mjData*) when the caller's arena is too small for the step (before its state changed).
struct CallerArenaFull {};

}  // namespace

StepInfo Simulator::Step(mjData* data) {
  mjData* const own = own_data_.get();
  struct Restore {
    Simulator* simulator;
    mjData* own;
    ~Restore() { simulator->data_ = own; }
  } restore{this, own};
  data_ = data;
  try {
    return Step();
  } catch (const CallerArenaFull&) {
  }
  data_ = own;
  return StepState(data);
}

StepInfo Simulator::StepState(mjData* data) {
  // What a step reads of `data` (its state and inputs) and what it writes back.
  constexpr int kReads = mjSTATE_TIME | mjSTATE_QPOS | mjSTATE_QVEL | mjSTATE_ACT | mjSTATE_PLUGIN | mjSTATE_USER;
  constexpr int kWrites = mjSTATE_TIME | mjSTATE_QPOS | mjSTATE_QVEL | mjSTATE_ACT;
  mj_copyState(model_.get(), data, data_, kReads);
  const StepInfo info = Step();
  mj_copyState(model_.get(), data_, data, kWrites);
  return info;
}

void Simulator::GrowOwnArena() {
  if (data_ != own_data_.get()) throw CallerArenaFull();
  GrowArena(model_.get(), &own_data_);
  data_ = own_data_.get();
}

void Simulator::FindFreeBodies() {
  const mjModel& m = *model_;
  for (int b = 1; b < m.nbody; ++b) {
    if (m.body_jntnum[b] < 1 || m.jnt_type[m.body_jntadr[b]] != mjJNT_FREE) continue;
    double thinnest = std::numeric_limits<double>::infinity();
    for (int g = m.body_geomadr[b]; g < m.body_geomadr[b] + m.body_geomnum[b]; ++g) {
      if (m.geom_contype[g] == 0 && m.geom_conaffinity[g] == 0) continue;  // visual only
      const double* size = m.geom_size + 3 * g;
      switch (m.geom_type[g]) {
        case mjGEOM_SPHERE:
        case mjGEOM_CAPSULE:
          thinnest = std::min(thinnest, size[0]);
          break;
        case mjGEOM_CYLINDER:
          thinnest = std::min({thinnest, size[0], size[1]});
          break;
        case mjGEOM_BOX:
        case mjGEOM_ELLIPSOID:
        case mjGEOM_MESH:  // a mesh's size: the half-sizes of its equivalent inertia box
          thinnest = std::min({thinnest, size[0], size[1], size[2]});
          break;
        default:
          break;
      }
    }
    if (thinnest > 0 && std::isfinite(thinnest)) free_bodies_.push_back({b, m.jnt_qposadr[m.body_jntadr[b]], thinnest});
  }
  travel_start_.resize(3 * free_bodies_.size());
}

void Simulator::CheckTravel(StepInfo* info) {
  for (size_t i = 0; i < free_bodies_.size(); ++i) {
    const FreeBody& b = free_bodies_[i];
    const double* start = travel_start_.data() + 3 * i;
    const double* end = data_->qpos + b.qpos;
    const double travel = std::hypot(end[0] - start[0], end[1] - start[1], end[2] - start[2]);
    const double ratio = travel / b.half_thickness;
    if (!(ratio > 1.0)) continue;
    info->fast_bodies += 1;
    if (ratio > info->max_travel_ratio) {
      info->max_travel_ratio = ratio;
      info->fastest_body = b.body;
    }
  }
}

double Simulator::NormalForceBetween(int a, int b) const {
  const mjModel& m = *model_;
  auto pair = [&](int g1, int g2) {
    const int b1 = m.geom_bodyid[g1], b2 = m.geom_bodyid[g2];
    return (b1 == a && b2 == b) || (b1 == b && b2 == a);
  };
  double force = 0.0;
  if (options_.engine == Engine::kTamsi) {
    const std::vector<ContactInfo>& contacts = builder_.contacts();
    for (size_t i = 0; i < contacts.size() && static_cast<Eigen::Index>(i) < result_.fn.size(); ++i)
      if (contacts[i].kind == ContactInfo::Kind::kGeoms && pair(contacts[i].geom1, contacts[i].geom2))
        force += result_.fn[i];
  } else {
    for (int i = 0; i < data_->ncon; ++i) {
      if (!pair(data_->contact[i].geom1, data_->contact[i].geom2)) continue;
      double wrench[6];
      mj_contactForce(&m, data_, i, wrench);
      force += wrench[0];
    }
  }
  return force;
}

void Simulator::BuildProblem() {
  while (!builder_.Build(*model_, data_, time_step_, &problem_)) GrowOwnArena();
}

StepInfo Simulator::StepTamsi(std::chrono::steady_clock::time_point start) {
  StepInfo info;
  ForgetIfStateChanged();
  if (controller_) controller_(*model_, data_);
  BuildProblem();
  if (options_.solver.time_phases) info.time_frontend = Seconds(start);
  const ConstraintCounts& counts = builder_.constraint_counts();
  info.limit_rows = counts.joint_limits + counts.tendon_limits;
  info.equality_rows = counts.equality_rows;
  info.contacts = problem_.num_contacts() - info.limit_rows;
  if (info.limit_rows > 0) info.max_limit_violation = std::max(0.0, problem_.delta0.tail(info.limit_rows).maxCoeff());
  if (info.equality_rows > 0) info.max_equality_violation = problem_.g0.lpNorm<Eigen::Infinity>();
  v0_ = Eigen::Map<const Eigen::VectorXd>(data_->qvel, model_->nv);
  CalcFirstDuals();
  delta_start_ = problem_.delta0;
  g_start_ = problem_.g0;
  std::string failure;
  for (int halvings = 0; halvings <= options_.max_halvings; ++halvings) {
    const int substeps = 1 << halvings;
    try {
      if (SolveWithSubsteps(substeps, &info)) {
        if (CarriesFrictionDuals()) duals_.Remember(builder_.contacts(), result_.vt);
        RecordVelocityChange();
        GatherState(&warm_state_);
        info.substeps = substeps;
        return info;
      }
      failure = !substep_failure_.empty()
                    ? substep_failure_
                    : std::string("status ") + ToString(result_.summary.status) +
                          (result_.summary.message.empty() ? "" : " (" + result_.summary.message + ")");
    } catch (const std::invalid_argument& e) {
      failure = std::string("invalid problem: ") + e.what();
    }
    info.failed_solves += 1;
  }
  stats_.failed_solves += info.failed_solves;
  std::ostringstream message;
  message << "step " << stats_.steps << " at t = " << data_->time << " s failed with 1 to "
          << (1 << options_.max_halvings) << " substeps (nv = " << model_->nv << ", nc = " << info.contacts
          << "): last solve " << failure << "; the state is left at t = " << data_->time << " s";
  throw StepFailedError(message.str());
}

void Simulator::GatherState(Eigen::VectorXd* state) const {
  const mjModel& m = *model_;
  state->resize(1 + m.nq + m.nv + m.na);
  (*state)[0] = data_->time;
  std::copy_n(data_->qpos, m.nq, state->data() + 1);
  std::copy_n(data_->qvel, m.nv, state->data() + 1 + m.nq);
  std::copy_n(data_->act, m.na, state->data() + 1 + m.nq + m.nv);
}

bool Simulator::AtState(const Eigen::VectorXd& state) const {
  const mjModel& m = *model_;
  if (state.size() != 1 + m.nq + m.nv + m.na || state[0] != data_->time) return false;
  const double* x = state.data() + 1;
  return std::equal(x, x + m.nq, data_->qpos) && std::equal(x + m.nq, x + m.nq + m.nv, data_->qvel) &&
         std::equal(x + m.nq + m.nv, x + m.nq + m.nv + m.na, data_->act);
}

std::vector<double> Simulator::SaveFrictionDuals() const {
  return AtState(warm_state_) ? duals_.Save() : std::vector<double>();
}

void Simulator::ForgetIfStateChanged() {
  if (AtState(warm_state_)) return;
  duals_.Forget();
  known_velocity_changes_ = 0;
}

void Simulator::RestoreFrictionDuals(const std::vector<double>& record) {
  ForgetIfStateChanged();
  duals_.Load(record);
  GatherState(&warm_state_);
}

std::vector<double> Simulator::SaveVelocityChanges() const {
  std::vector<double> record;
  if (!AtState(warm_state_)) return record;
  if (known_velocity_changes_ >= 1) record.assign(velocity_change_.begin(), velocity_change_.end());
  if (known_velocity_changes_ >= 2)
    record.insert(record.end(), previous_velocity_change_.begin(), previous_velocity_change_.end());
  return record;
}

void Simulator::CheckVelocityChanges(const std::vector<double>& record, int nv) {
  const size_t n = static_cast<size_t>(nv);
  if (record.size() != 0 && record.size() != n && record.size() != 2 * n) {
    throw std::invalid_argument("velocity changes: " + std::to_string(record.size()) +
                                " values, expected 0, nv = " + std::to_string(nv) + " or 2 nv");
  }
}

void Simulator::RestoreVelocityChanges(const std::vector<double>& record) {
  CheckVelocityChanges(record, model_->nv);
  const size_t nv = static_cast<size_t>(model_->nv);
  ForgetIfStateChanged();
  known_velocity_changes_ = nv == 0 ? 0 : static_cast<int>(record.size() / nv);
  if (known_velocity_changes_ >= 1) velocity_change_ = Eigen::Map<const Eigen::VectorXd>(record.data(), nv);
  if (known_velocity_changes_ >= 2)
    previous_velocity_change_ = Eigen::Map<const Eigen::VectorXd>(record.data() + nv, nv);
  GatherState(&warm_state_);
}

bool Simulator::ExtrapolatesVelocities() const {
  return options_.extrapolate_velocities && known_velocity_changes_ == 2 &&
         (velocity_change_ - previous_velocity_change_).norm() <= 0.5 * velocity_change_.norm();
}

void Simulator::RecordVelocityChange() {
  std::swap(velocity_change_, previous_velocity_change_);
  velocity_change_ = v_work_ - v0_;
  known_velocity_changes_ = std::min(known_velocity_changes_ + 1, 2);
}

bool Simulator::CarriesFrictionDuals() const {
  return options_.carry_friction_duals && options_.solver.friction_newton == FrictionNewton::kPrimalDual;
}

void Simulator::CalcFirstDuals() {
  if (!CarriesFrictionDuals()) {
    problem_.w_guess.reset();
    return;
  }
  if (!problem_.w_guess) problem_.w_guess.emplace();  // kept engaged: its storage serves every step
  auto vt_guess = [this]() -> const Eigen::VectorXd& {
    vt_guess_.noalias() = problem_.Jt * v0_;
    return vt_guess_;
  };
  duals_.Carry(builder_.contacts(), vt_guess, options_.solver.stiction_tolerance, &w_start_);
}

bool Simulator::SolveWithSubsteps(int substeps, StepInfo* info) {
  const int nv = model_->nv;
  const double h = time_step_ / substeps;
  q_work_ = Eigen::Map<const Eigen::VectorXd>(data_->qpos, model_->nq);
  v_work_ = v0_;
  builder_.SetTimeStep(h, &problem_);
  problem_.delta0 = delta_start_;
  problem_.g0 = g_start_;
  substep_failure_.clear();
  info->iterations = 0;
  if (problem_.w_guess) *problem_.w_guess = w_start_;
  const Eigen::VectorXd& tau = builder_.generalized_forces();
  const Eigen::VectorXd& damping = builder_.implicit_damping();
  for (int s = 0; s < substeps; ++s) {
    // Positions stay frozen at q0 for M, Jn, Jt and τ; only v and the first-order penetration advance. τ is
    // linearized about v0 in its damping part: τ(v) ≈ τ(v0) − D (v − v0).
    problem_.p_star.noalias() = problem_.M * v_work_;
    problem_.p_star += h * (tau + damping.cwiseProduct(v0_ - v_work_));
    problem_.v0 = v_work_;
    problem_.v_guess = v_work_;
    if (substeps == 1 && ExtrapolatesVelocities()) *problem_.v_guess += velocity_change_;
    if (sink_) sink_(problem_, stats_.steps, s, substeps);
    solver_.Solve(problem_, &result_);
    info->time_solve += result_.summary.counters.time_total;
    info->solves += 1;
    info->structure_reuses += result_.summary.structure_reused;
    info->iterations += result_.summary.iterations;
    info->counters += result_.summary.counters;
    if (!result_.ok()) {
      if (failure_sink_) failure_sink_(problem_, stats_.steps, s, substeps);
      return false;
    }
    const double speed = result_.v.lpNorm<Eigen::Infinity>();
    if (!(speed <= options_.max_speed)) {
      substep_failure_ = "diverged: a generalized speed of " + Format("%.3g", speed) +
                         " m/s or rad/s exceeds SimulatorOptions::max_speed (" + Format("%.3g", options_.max_speed) +
                         ")";
      if (failure_sink_) failure_sink_(problem_, stats_.steps, s, substeps);
      return false;
    }
    v_work_ = result_.v;
    if (problem_.w_guess) FrictionDuals(result_.vt, options_.solver.stiction_tolerance, &*problem_.w_guess);
    problem_.delta0 -= h * result_.vn;  // limits included: they are contacts
    if (problem_.num_constraints() > 0) {
      g_rate_.noalias() = problem_.Jb * v_work_;  // into its own storage: the product in a sum would allocate
      problem_.g0 += h * g_rate_;
    }
    mj_integratePos(model_.get(), q_work_.data(), v_work_.data(), h);
  }
  std::copy_n(q_work_.data(), model_->nq, data_->qpos);
  std::copy_n(v_work_.data(), nv, data_->qvel);
  IntegrateActivations();
  data_->time += time_step_;
  return true;
}

void Simulator::IntegrateActivations() {
  const mjModel& m = *model_;
  for (int a = 0; a < m.nu; ++a) {
    for (int i = m.actuator_actadr[a]; i >= 0 && i < m.actuator_actadr[a] + m.actuator_actnum[a]; ++i) {
      double act = data_->act[i] + time_step_ * data_->act_dot[i];
      if (m.actuator_actlimited[a]) act = std::clamp(act, m.actuator_actrange[2 * a], m.actuator_actrange[2 * a + 1]);
      data_->act[i] = act;
    }
  }
}

StepInfo Simulator::StepMujoco() {
  const mjModel& m = *model_;
  mjData* d = data_;
  const Eigen::VectorXd qpos = Eigen::Map<const Eigen::VectorXd>(d->qpos, m.nq);
  const Eigen::VectorXd qvel = Eigen::Map<const Eigen::VectorXd>(d->qvel, m.nv);
  const Eigen::VectorXd act = Eigen::Map<const Eigen::VectorXd>(d->act, m.na);
  const double time = d->time;
  int warnings_before[std::size(kMujocoFatalWarnings)];
  for (size_t w = 0; w < std::size(kMujocoFatalWarnings); ++w) {
    warnings_before[w] = d->warning[kMujocoFatalWarnings[w]].number;
  }
  const double constraint_before = d->timer[mjTIMER_CONSTRAINT].duration + d->timer[mjTIMER_POS_MAKE].duration +
                                   d->timer[mjTIMER_POS_PROJECT].duration;
  const bool timed = options_.solver.time_phases;
  const auto start = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  bool arena_full = false;
  {
    // MuJoCo's stages time themselves through its global timer callback: ours while timed (the solve time is read
    // from MuJoCo's timers), none otherwise, then the caller's again.
    const TimerCallbackScope timer_callback(timed ? &SteadyClockSeconds : nullptr);
    if (controller_) controller_(m, d);
    try {
      mj_step(&m, d);
    } catch (const ArenaFullError&) {
      arena_full = true;
    }
  }
  const double total = timed ? Seconds(start) : 0.0;
  int fatal = -1;
  for (size_t w = 0; w < std::size(kMujocoFatalWarnings) && fatal < 0; ++w) {
    if (d->warning[kMujocoFatalWarnings[w]].number != warnings_before[w]) fatal = kMujocoFatalWarnings[w];
  }
  if (!arena_full && fatal < 0) return MujocoStepInfo(constraint_before, total);
  std::copy_n(qpos.data(), m.nq, d->qpos);
  std::copy_n(qvel.data(), m.nv, d->qvel);
  std::copy_n(act.data(), m.na, d->act);  // a model without activations: act.data() is null
  d->time = time;
  if (!arena_full && fatal != mjWARN_CONTACTFULL && fatal != mjWARN_CNSTRFULL) {
    throw StepFailedError("step " + std::to_string(stats_.steps) + " at t = " + std::to_string(time) +
                          " s failed in MuJoCo's solver: " + LastMujocoWarning());
  }
  // The arena (contacts, constraint rows, the solver's matrices) was sized by MuJoCo's compiler for the first state
  // (a bin dropped from above has no contacts): double it and take the step again, as TAMSI's front end does for its
  // contact list.
  try {
    GrowOwnArena();
  } catch (const MujocoError& e) {
    throw StepFailedError("step " + std::to_string(stats_.steps) + " at t = " + std::to_string(time) +
                          " s: " + e.what());
  }
  return StepMujoco();
}

StepInfo Simulator::MujocoStepInfo(double constraint_before, double total) const {
  const mjData* d = data_;
  StepInfo info;
  if (options_.solver.time_phases) {
    info.time_solve = d->timer[mjTIMER_CONSTRAINT].duration + d->timer[mjTIMER_POS_MAKE].duration +
                      d->timer[mjTIMER_POS_PROJECT].duration - constraint_before;
    info.time_frontend = total - info.time_solve;
  }
  info.iterations = *std::max_element(d->solver_niter, d->solver_niter + std::clamp(d->nisland, 1, mjNISLAND));
  info.contacts = d->ncon;
  return info;
}

std::vector<ContactRecord> Simulator::LastContacts() const {
  std::vector<ContactRecord> records;
  if (options_.engine != Engine::kMujoco) {
    const std::vector<ContactInfo>& contacts = builder_.contacts();
    for (size_t i = 0; i < contacts.size(); ++i) {
      records.push_back({contacts[i], problem_.delta0[i], result_.fn[i], result_.ft[2 * i], result_.ft[2 * i + 1]});
    }
    return records;
  }
  const mjData& d = *data_;
  for (int i = 0; i < d.ncon; ++i) {
    const mjContact& c = d.contact[i];
    ContactRecord record;
    record.info.geom1 = c.geom[0];
    record.info.geom2 = c.geom[1];
    record.info.position = Eigen::Map<const Eigen::Vector3d>(c.pos);
    record.info.normal = Eigen::Map<const Eigen::Vector3d>(c.frame);
    record.info.tangent1 = Eigen::Map<const Eigen::Vector3d>(c.frame + 3);
    record.info.tangent2 = Eigen::Map<const Eigen::Vector3d>(c.frame + 6);
    record.penetration = -c.dist;
    mjtNum force[6];
    mj_contactForce(model_.get(), &d, i, force);
    record.fn = force[0];
    record.ft1 = force[1];
    record.ft2 = force[2];
    records.push_back(record);
  }
  return records;
}

const mjtNum* Simulator::Sensors() {
  if (model_->nsensordata == 0) return data_->sensordata;
  if (!sensor_data_) sensor_data_.reset(mj_makeData(model_.get()));
  for (;;) {
    mj_copyState(model_.get(), data_, sensor_data_.get(), mjSTATE_INTEGRATION);
    const mjWarningStat* warnings = sensor_data_->warning;
    const int full = warnings[mjWARN_CONTACTFULL].number + warnings[mjWARN_CNSTRFULL].number;
    try {
      mj_forward(model_.get(), sensor_data_.get());
      if (warnings[mjWARN_CONTACTFULL].number + warnings[mjWARN_CNSTRFULL].number == full)
        return sensor_data_->sensordata;
    } catch (const ArenaFullError&) {
    }
    // The arena was too small for MuJoCo's contacts and constraint rows at this state: double it, compute again.
    GrowArena(model_.get(), &sensor_data_);
  }
}

void Simulator::UpdateKinematics() {
  mj_kinematics(model_.get(), data_);
  mj_comPos(model_.get(), data_);
  mj_comVel(model_.get(), data_);
}

}  // namespace tamsi::scenes
