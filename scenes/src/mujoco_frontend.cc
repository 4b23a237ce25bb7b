#include <tamsi/scenes/mujoco_frontend.h>
#include <tamsi/scenes/mujoco_model.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sparse_rows.h"

namespace tamsi::scenes {

const char* ToString(ContactInfo::Kind kind) {
  switch (kind) {
    case ContactInfo::Kind::kGeoms:
      return "geoms";
    case ContactInfo::Kind::kJointLimit:
      return "joint_limit";
    case ContactInfo::Kind::kTendonLimit:
      return "tendon_limit";
  }
  return "unknown";
}

ContactDefaults PenetrationAllowanceDefaults(const mjModel& model, double allowance) {
  if (!(allowance > 0) || !std::isfinite(allowance)) {
    throw std::invalid_argument("penetration allowance must be positive and finite, got " + std::to_string(allowance));
  }
  constexpr double kGravity = 9.81;
  double max_mass = 0.0;
  for (int b = 1; b < model.nbody; ++b) max_mass = std::max(max_mass, model.body_mass[b]);
  if (max_mass <= 0) max_mass = 1.0;
  ContactDefaults defaults;
  defaults.stiffness = 2.0 * max_mass * kGravity / allowance;
  defaults.dissipation = 1.0 / std::sqrt(kGravity * allowance);
  return defaults;
}

ContactProblemBuilder::~ContactProblemBuilder() = default;
ContactProblemBuilder::ContactProblemBuilder(ContactProblemBuilder&&) noexcept = default;
ContactProblemBuilder& ContactProblemBuilder::operator=(ContactProblemBuilder&&) noexcept = default;

ContactProblemBuilder::ContactProblemBuilder(const mjModel& model, const ContactDefaults& defaults)
    : jn_rows_(std::make_unique<internal::SparseRows>()),
      jt_rows_(std::make_unique<internal::SparseRows>()),
      limit_rows_(std::make_unique<internal::SparseRows>()),
      equality_rows_(std::make_unique<internal::SparseRows>()) {
  if (!(defaults.stiffness > 0) || !std::isfinite(defaults.stiffness)) {
    throw std::invalid_argument("ContactDefaults.stiffness must be positive and finite, got " +
                                std::to_string(defaults.stiffness));
  }
  if (!(defaults.dissipation >= 0) || !std::isfinite(defaults.dissipation)) {
    throw std::invalid_argument("ContactDefaults.dissipation must be non-negative and finite, got " +
                                std::to_string(defaults.dissipation));
  }
  body_last_dof_.assign(model.nbody, -1);
  for (int b = 0; b < model.nbody; ++b) {
    int body = b;
    while (body > 0 && model.body_dofnum[body] == 0) body = model.body_parentid[body];
    if (body > 0) body_last_dof_[b] = model.body_dofadr[body] + model.body_dofnum[body] - 1;
  }
  chain_ptr_.assign(model.nbody + 1, 0);
  chain_dofs_.clear();
  for (int b = 0; b < model.nbody; ++b) {
    for (int dof = body_last_dof_[b]; dof >= 0; dof = model.dof_parentid[dof]) chain_dofs_.push_back(dof);
    std::sort(chain_dofs_.begin() + chain_ptr_[b], chain_dofs_.end());
    chain_ptr_[b + 1] = static_cast<int>(chain_dofs_.size());
  }
  geom_stiffness_.assign(model.ngeom, defaults.stiffness);
  geom_dissipation_.assign(model.ngeom, defaults.dissipation);
  if (model.nuser_geom >= 2) {
    for (int g = 0; g < model.ngeom; ++g) {
      const double k = model.geom_user[g * model.nuser_geom + 0];
      const double d = model.geom_user[g * model.nuser_geom + 1];
      const char* name = mj_id2name(&model, mjOBJ_GEOM, g);
      const std::string label = "geom " + (name ? std::string("'") + name + "'" : "#" + std::to_string(g));
      if (!std::isfinite(k) || k < 0) {
        throw std::invalid_argument(label + ": user[0] (stiffness, N/m) must be finite and >= 0, got " +
                                    std::to_string(k));
      }
      if (!std::isfinite(d) || d < 0) {
        throw std::invalid_argument(label + ": user[1] (dissipation, s/m) must be finite and >= 0, got " +
                                    std::to_string(d));
      }
      if (k > 0) {
        if (!defaults.override_stiffness) geom_stiffness_[g] = k;
        if (!defaults.override_dissipation) geom_dissipation_[g] = d;
      }
    }
  }
  row_values_.assign(3 * static_cast<size_t>(model.nv), 0.0);
  dof_mark_.assign(model.nv, -1);
  column_next_.assign(model.nv, 0);
  tau_.setZero(model.nv);
  BuildMassPattern(model);
  joint_damping_.setZero(model.nv);
  if ((model.opt.disableflags & mjDSBL_DAMPER) == 0) {
    joint_damping_ = Eigen::Map<const Eigen::VectorXd>(model.dof_damping, model.nv);
  }
  damping_ = joint_damping_;
  for (int a = 0; a < model.nu && (model.opt.disableflags & mjDSBL_ACTUATION) == 0; ++a) {
    // Affine bias b0 + b1·length + b2·velocity of a joint actuator without activation dynamics:
    // ∂force/∂qdot = gear² b2 on its dof (b2 < 0 damps), while its force is inside its forcerange.
    const bool joint = model.actuator_trntype[a] == mjTRN_JOINT || model.actuator_trntype[a] == mjTRN_JOINTINPARENT;
    if (!joint || model.actuator_dyntype[a] != mjDYN_NONE || model.actuator_biastype[a] != mjBIAS_AFFINE) continue;
    const int jnt = model.actuator_trnid[2 * a];
    if (model.jnt_type[jnt] != mjJNT_HINGE && model.jnt_type[jnt] != mjJNT_SLIDE) continue;
    const double gear = model.actuator_gear[6 * a];
    const double coefficient = -gear * gear * model.actuator_biasprm[mjNBIAS * a + 2];
    if (coefficient < 0) {
      throw std::invalid_argument("actuator " + std::to_string(a) +
                                  " has a negative velocity gain; TAMSI's implicit damping needs D >= 0");
    }
    if (coefficient > 0) actuator_damping_.push_back({a, model.jnt_dofadr[jnt], coefficient});
  }
  if ((joint_damping_.array() < 0).any()) {
    throw std::invalid_argument("model has negative joint damping; TAMSI's implicit damping needs D >= 0");
  }
  CheckLimitParameters(model);
}

void ContactProblemBuilder::CalcImplicitDamping(const mjModel& model, const mjData& data) {
  damping_ = joint_damping_;
  for (const ActuatorDamping& entry : actuator_damping_) {
    const int a = entry.actuator;
    const double force = data.actuator_force[a];
    const bool saturated = model.actuator_forcelimited[a] &&
                           (force <= model.actuator_forcerange[2 * a] || force >= model.actuator_forcerange[2 * a + 1]);
    if (!saturated) damping_[entry.dof] += entry.coefficient;
  }
}

bool ContactProblemBuilder::Build(const mjModel& model, mjData* data, double h, ContactProblem* problem) {
  if (!(h > 0) || !std::isfinite(h)) {
    throw std::invalid_argument("ContactProblemBuilder::Build: time step must be positive, got " + std::to_string(h));
  }
  // Position stage without the constraint solver's parts (mj_makeConstraint would need the full efc buffer).
  mj_kinematics(&model, data);
  mj_comPos(&model, data);
  mj_tendon(&model, data);
  mj_transmission(&model, data);
  mj_crb(&model, data);
  const int full_before = data->warning[mjWARN_CONTACTFULL].number;
  try {
    Collide(model, data, narrow_phase_);
  } catch (const ArenaFullError&) {
    return false;
  }
  if (data->warning[mjWARN_CONTACTFULL].number != full_before) return false;
  // Velocity stage: cvel, qfrc_passive, qfrc_bias; then actuation.
  mj_fwdVelocity(&model, data);
  mj_fwdActuation(&model, data);
  CalcImplicitDamping(model, *data);
  const int nv = model.nv;
  Eigen::Map<const Eigen::VectorXd> passive(data->qfrc_passive, nv), actuator(data->qfrc_actuator, nv),
      applied(data->qfrc_applied, nv), bias(data->qfrc_bias, nv);
  tau_ = passive + actuator + applied - bias;
  for (int b = 1; b < model.nbody; ++b) {
    const double* wrench = data->xfrc_applied + 6 * b;
    if (std::any_of(wrench, wrench + 6, [](double x) { return x != 0.0; })) {
      mj_applyFT(&model, data, wrench, wrench + 3, data->xipos + 3 * b, b, tau_.data());
    }
  }

  CalcConstraintRows(model, *data, h, problem);
  AssembleMassMatrix(*data, &problem->M);
  for (int j = 0; j < nv; ++j) mass_diagonal_[j] = problem->M.valuePtr()[mass_diagonal_index_[j]];
  SetTimeStep(h, problem);
  AssembleJacobians(model, *data, problem);
  Eigen::Map<const Eigen::VectorXd> v0(data->qvel, nv);
  problem->p_star.noalias() = problem->M * v0;  // into p_star's storage: a sum with the product would allocate
  problem->p_star += h * tau_;
  problem->v0 = v0;
  problem->v_guess = v0;
  return true;
}

void ContactProblemBuilder::BuildMassPattern(const mjModel& model) {
  const int nv = model.nv;
  // mjData.M holds the lower triangle of M by rows (CSR: M_rowadr, M_rownnz, M_colind), row i the ancestors j ≤ i
  // of dof i and its diagonal. Each nonzero of the pattern records (as its value) the address in M it reads.
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(2 * static_cast<size_t>(model.nC));
  for (int i = 0; i < nv; ++i) {
    for (int adr = model.M_rowadr[i]; adr < model.M_rowadr[i] + model.M_rownnz[i]; ++adr) {
      const int j = model.M_colind[adr];
      triplets.emplace_back(i, j, adr);
      if (j != i) triplets.emplace_back(j, i, adr);
    }
  }
  mass_pattern_.resize(nv, nv);
  mass_pattern_.setFromTriplets(triplets.begin(), triplets.end());
  mass_pattern_.makeCompressed();
  mass_source_.resize(mass_pattern_.nonZeros());
  for (Eigen::Index k = 0; k < mass_pattern_.nonZeros(); ++k) {
    mass_source_[k] = static_cast<int>(mass_pattern_.valuePtr()[k]);
  }
  mass_diagonal_index_.assign(nv, -1);
  for (int j = 0; j < nv; ++j) {
    for (int k = mass_pattern_.outerIndexPtr()[j]; k < mass_pattern_.outerIndexPtr()[j + 1]; ++k) {
      if (mass_pattern_.innerIndexPtr()[k] == j) mass_diagonal_index_[j] = k;
    }
  }
  mass_diagonal_.setZero(nv);
}

void ContactProblemBuilder::AssembleMassMatrix(const mjData& data, SparseMatrix* M) {
  *M = mass_pattern_;
  double* values = M->valuePtr();
  for (size_t k = 0; k < mass_source_.size(); ++k) values[k] = data.M[mass_source_[k]];
}

void ContactProblemBuilder::SetTimeStep(double h, ContactProblem* problem) const {
  problem->time_step = h;
  double* values = problem->M.valuePtr();
  for (size_t j = 0; j < mass_diagonal_index_.size(); ++j) {
    values[mass_diagonal_index_[j]] = mass_diagonal_[j] + h * damping_[j];
  }
}

void ContactProblemBuilder::BeginScratchRows() {
  if (stamp_ > INT_MAX / 2) {
    std::fill(dof_mark_.begin(), dof_mark_.end(), -1);
    stamp_ = -1;
  }
  ++stamp_;
  touched_.clear();
}

double* ContactProblemBuilder::ScratchRow(int dof) {
  double* row = &row_values_[3 * static_cast<size_t>(dof)];
  if (dof_mark_[dof] != stamp_) {
    dof_mark_[dof] = stamp_;
    row[0] = row[1] = row[2] = 0.0;
    touched_.push_back(dof);
  }
  return row;
}

namespace {

/// The offset from the subtree com of `body`'s root to `point`: cdof's linear part is the velocity at that com.
void OffsetFromRootCom(const mjModel& model, const mjData& data, int body, const double point[3], double offset[3]) {
  const double* com = data.subtree_com + 3 * model.body_rootid[body];
  for (int k = 0; k < 3; ++k) offset[k] = point[k] - com[k];
}

/// Adds sign · `velocity` projected on the 3 rows of `frame` to `row`.
inline void AddFrameRows(const double velocity[3], const double frame[9], double sign, double row[3]) {
  for (int r = 0; r < 3; ++r) {
    const double* axis = frame + 3 * r;
    row[r] += sign * (axis[0] * velocity[0] + axis[1] * velocity[1] + axis[2] * velocity[2]);
  }
}

/// Adds sign · (the velocity that a unit rate of a dof with motion `cdof` (angular ω, linear v at the subtree com)
/// gives a point at `offset` from that com, v + ω × offset) projected on the 3 rows of `frame` to `row`.
inline void AddPointVelocityRows(const double* cdof, const double offset[3], const double frame[9], double sign,
                                 double row[3]) {
  const double lin[3] = {cdof[3] + cdof[1] * offset[2] - cdof[2] * offset[1],
                         cdof[4] + cdof[2] * offset[0] - cdof[0] * offset[2],
                         cdof[5] + cdof[0] * offset[1] - cdof[1] * offset[0]};
  AddFrameRows(lin, frame, sign, row);
}

}  // namespace

void ContactProblemBuilder::AccumulateBodyJacobian(const mjModel& model, const mjData& data, int body,
                                                   const double point[3], const double frame[9], double sign,
                                                   bool angular) {
  int dof = body_last_dof_[body];
  if (dof < 0) return;
  double offset[3] = {0.0, 0.0, 0.0};
  if (!angular) OffsetFromRootCom(model, data, body, point, offset);
  for (; dof >= 0; dof = model.dof_parentid[dof]) {
    const double* cdof = data.cdof + 6 * dof;
    double* row = ScratchRow(dof);
    if (angular)
      AddFrameRows(cdof, frame, sign, row);  // cdof's angular part
    else
      AddPointVelocityRows(cdof, offset, frame, sign, row);
  }
}

void ContactProblemBuilder::CalcContactRows(const mjModel& model, const mjData& data, int body, int other,
                                            const double point[3], const double frame[9]) {
  touched_.clear();
  double offset[3], other_offset[3];
  OffsetFromRootCom(model, data, body, point, offset);
  OffsetFromRootCom(model, data, other, point, other_offset);
  const int *a = chain_dofs_.data() + chain_ptr_[body], *a_end = chain_dofs_.data() + chain_ptr_[body + 1];
  const int *b = chain_dofs_.data() + chain_ptr_[other], *b_end = chain_dofs_.data() + chain_ptr_[other + 1];
  while (a != a_end || b != b_end) {
    const int dof = std::min(a != a_end ? *a : INT_MAX, b != b_end ? *b : INT_MAX);
    double* row = &row_values_[3 * static_cast<size_t>(dof)];
    row[0] = row[1] = row[2] = 0.0;
    if (a != a_end && *a == dof) AddPointVelocityRows(data.cdof + 6 * *a++, offset, frame, +1.0, row);
    if (b != b_end && *b == dof) AddPointVelocityRows(data.cdof + 6 * *b++, other_offset, frame, -1.0, row);
    touched_.push_back(dof);
  }
}

bool ContactProblemBuilder::JacobianPatternsHold(const mjModel& model, const mjData& data,
                                                 const ContactProblem& problem) const {
  if (2 * static_cast<size_t>(data.ncon) != contact_bodies_.size() || limit_rows_->outer != limit_outer_ ||
      limit_rows_->inner != limit_inner_ || !jn_pattern_.Matches(problem.Jn) || !jt_pattern_.Matches(problem.Jt)) {
    return false;
  }
  for (int i = 0; i < data.ncon; ++i) {
    if (model.geom_bodyid[data.contact[i].geom2] != contact_bodies_[2 * i] ||
        model.geom_bodyid[data.contact[i].geom1] != contact_bodies_[2 * i + 1]) {
      return false;
    }
  }
  return true;
}

void ContactProblemBuilder::AssembleJacobians(const mjModel& model, const mjData& data, ContactProblem* problem) {
  const int nv = model.nv;
  const int ncon = data.ncon;
  const int nc = ncon + limit_rows_->size();
  contacts_.resize(nc);
  problem->delta0.resize(nc);
  problem->stiffness.resize(nc);
  problem->dissipation.resize(nc);
  problem->friction.resize(nc);
  // A contact's rows depend only on its two bodies' dof chains: with the same body pairs as the last step, each row's
  // values go straight to where they went then. Otherwise rows in CSR form, then column-major in one O(nnz) pass.
  const bool in_place = JacobianPatternsHold(model, data, *problem);
  last_build_in_place_ = in_place;
  if (!in_place) {  // the record of the last full build is void until this one ends
    jn_rows_->Clear();
    jt_rows_->Clear();
    contact_bodies_.clear();
    limit_outer_.clear();
  }
  double* jn_values = problem->Jn.valuePtr();
  double* jt_values = problem->Jt.valuePtr();
  for (int i = 0; i < ncon; ++i) {
    const mjContact& con = data.contact[i];
    const int g1 = con.geom1, g2 = con.geom2;
    ContactInfo& info = contacts_[i];
    info.kind = ContactInfo::Kind::kGeoms;
    info.object = -1;
    info.geom1 = g1;
    info.geom2 = g2;
    info.position = Eigen::Vector3d(con.pos[0], con.pos[1], con.pos[2]);
    info.normal = Eigen::Vector3d(con.frame[0], con.frame[1], con.frame[2]);
    info.tangent1 = Eigen::Vector3d(con.frame[3], con.frame[4], con.frame[5]);
    info.tangent2 = Eigen::Vector3d(con.frame[6], con.frame[7], con.frame[8]);
    const double k1 = geom_stiffness_[g1], k2 = geom_stiffness_[g2];
    const double d1 = geom_dissipation_[g1], d2 = geom_dissipation_[g2];
    problem->delta0[i] = -con.dist;
    problem->stiffness[i] = k1 * k2 / (k1 + k2);
    problem->dissipation[i] = (k2 * d1 + k1 * d2) / (k1 + k2);
    problem->friction[i] = con.dim == 1 ? 0.0 : con.friction[0];

    const int body = model.geom_bodyid[g2], other = model.geom_bodyid[g1];
    CalcContactRows(model, data, body, other, con.pos, con.frame);
    if (in_place) {
      const int n0 = jn_rows_->outer[i], t1 = jt_rows_->outer[2 * i], t2 = jt_rows_->outer[2 * i + 1];
      for (size_t k = 0; k < touched_.size(); ++k) {
        const double* row = &row_values_[3 * static_cast<size_t>(touched_[k])];
        jn_values[jn_slot_[n0 + k]] = row[0];
        jt_values[jt_slot_[t1 + k]] = row[1];
        jt_values[jt_slot_[t2 + k]] = row[2];
      }
      continue;
    }
    contact_bodies_.push_back(body);
    contact_bodies_.push_back(other);
    for (int dof : touched_) jn_rows_->Add(dof, row_values_[3 * static_cast<size_t>(dof)]);
    jn_rows_->EndRow();
    for (int r = 1; r <= 2; ++r) {
      for (int dof : touched_) jt_rows_->Add(dof, row_values_[3 * static_cast<size_t>(dof) + r]);
      jt_rows_->EndRow();
    }
  }
  // Limits: frictionless contacts whose penetration is the violation; no tangent rows.
  const internal::SparseRows& limits = *limit_rows_;
  for (int l = 0; l < limits.size(); ++l) {
    const int i = ncon + l;
    contacts_[i] = limit_info_[l];
    problem->delta0[i] = -limit_distance_[l];
    problem->stiffness[i] = limit_stiffness_[l];
    problem->dissipation[i] = limit_dissipation_[l];
    problem->friction[i] = 0.0;
    if (in_place) {
      const int n0 = jn_rows_->outer[i] - limits.outer[l];
      for (int k = limits.outer[l]; k < limits.outer[l + 1]; ++k) jn_values[jn_slot_[n0 + k]] = limits.values[k];
      continue;
    }
    for (int k = limits.outer[l]; k < limits.outer[l + 1]; ++k) jn_rows_->Add(limits.inner[k], limits.values[k]);
    jn_rows_->EndRow();
    jt_rows_->EndRow();
    jt_rows_->EndRow();
  }
  if (in_place) return;
  internal::RowsToColumns(*jn_rows_, nv, &column_next_, &problem->Jn, &jn_slot_);
  internal::RowsToColumns(*jt_rows_, nv, &column_next_, &problem->Jt, &jt_slot_);
  jn_pattern_.Assign(problem->Jn);
  jt_pattern_.Assign(problem->Jt);
  limit_outer_ = limits.outer;
  limit_inner_ = limits.inner;
}

double MechanicalEnergy(const mjModel& model, mjData* data, const ContactProblem* contacts) {
  mj_kinematics(&model, data);
  mj_comPos(&model, data);
  mj_crb(&model, data);
  Eigen::VectorXd Mv(model.nv);
  mj_mulM(&model, data, Mv.data(), data->qvel);
  const double kinetic = 0.5 * Eigen::Map<const Eigen::VectorXd>(data->qvel, model.nv).dot(Mv);
  double potential = 0.0;
  if ((model.opt.disableflags & mjDSBL_GRAVITY) == 0) {
    for (int b = 1; b < model.nbody; ++b) {
      const double* com = data->xipos + 3 * b;
      const double* g = model.opt.gravity;
      potential -= model.body_mass[b] * (g[0] * com[0] + g[1] * com[1] + g[2] * com[2]);
    }
  }
  for (int j = 0; j < model.njnt; ++j) {  // joint springs of hinge and slide joints
    if (model.jnt_type[j] != mjJNT_HINGE && model.jnt_type[j] != mjJNT_SLIDE) continue;
    const double stretch = data->qpos[model.jnt_qposadr[j]] - model.qpos_spring[model.jnt_qposadr[j]];
    potential += 0.5 * model.jnt_stiffness[j] * stretch * stretch;
  }
  double elastic = 0.0;
  if (contacts != nullptr) {
    for (int i = 0; i < contacts->num_contacts(); ++i) {
      const double delta = std::max(contacts->delta0[i], 0.0);
      elastic += 0.5 * contacts->stiffness[i] * delta * delta;
    }
  }
  return kinetic + potential + elastic;
}

}  // namespace tamsi::scenes
