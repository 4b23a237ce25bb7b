// MuJoCo's constraints other than contact, as rows of the TAMSI step (DESIGN.md, "Constraints of the model").
//
// Every row is a constraint function g(q) (m or rad) with its Jacobian J (ġ = J v), taken at q0 and linearized with
// the first-order estimate g ≈ g0 + h J v of eq. 19, so it is implicit in the step like the contact normal force:
// - Joint limits (hinge, slide: g = q − lower and upper − q; ball: g = max range − rotation angle, when rotated)
//   and tendon limits (g = L − lower, upper − L) are unilateral: frictionless contacts with penetration δ0 = −g and
//   the Hunt–Crossley force K δ (1 − d ġ)₊ of eq. 5.
// - Equality constraints are bilateral spring–dampers λ = −K g − C ġ (ContactProblem::Jb): connect (3 rows: the
//   two anchors' world positions, body1's minus body2's), weld (those 3, then 3 rows of the rotation vector taking
//   body2's orientation to body1's times relpose, in world axes, scaled by torquescale as MuJoCo scales them), joint
//   (q1 − q1₀ − Σ cᵢ (q2 − q2₀)ⁱ) and tendon (the same polynomial in the tendon lengths less their lengths at qpos0).
//
// Stiffness and damping come from each constraint's own solref/solimp (MuJoCo's defaults where the model gives
// none: solref = (0.02 s, 1), solimp = (0.9, 0.95, 0.001, ...)). MuJoCo's soft constraint with reference acceleration
// a_ref = −b ġ − k g and impedance d gives, in the row's coordinate, (1 − d) F = m d (k g + b ġ) + m ġ̇ under a load F
// (m the row's effective mass, which MuJoCo approximates from the model's inverse weights at qpos0: dof_invweight0
// for joint limits and joint couplings, tendon_invweight0 for tendons, body_invweight0 for connect and weld, its
// translational part for positions and rotational part for orientations, summed over the two objects): in static
// equilibrium it deflects by g = (1 − d) F / (m d k). The compliant row reproduces that static stiffness and the
// damping force, with the same m and d at zero violation (solimp[0]):
//   K = m k d/(1 − d),   C = m b d/(1 − d),
// where, as in MuJoCo, k = 1/(dmax² τ² ζ²), b = 2/(dmax τ) for solref = (τ, ζ) with τ ≥ 2h (MuJoCo's refsafe,
// unless the model disables it), and k = −solref[0]/dmax², b = −solref[1]/dmax for solref = (−stiffness, −damping).
// Defaults: K/m = 24,930 s⁻², C/m = 947 s⁻¹, a static deflection of 4e-5 m per 1 N on a 1 kg row. MuJoCo's
// constraint also has the apparent inertia m/(1 − d), which a force law cannot have, so TAMSI's row approaches
// its equilibrium without MuJoCo's oscillation (time constant C/K = b/k, 38 ms by default).
// A limit's Hunt–Crossley dissipation is d = C/(K w) with w = solimp[2] (the impedance's transition width): at a
// violation of w its damping K d δ equals C. A weld's torquescale s scales its rotation rows (g and J) as in MuJoCo,
// and not their effective mass, so their stiffness on the joints grows as s².

#include <mujoco/mujoco.h>
#include <tamsi/scenes/mujoco_frontend.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "sparse_rows.h"

namespace tamsi::scenes {
namespace {

/// K/m (1/s²) and C/m (1/s) of MuJoCo's solref/solimp (above).
struct Compliance {
  double stiffness, damping;
};

/// "joint 'elbow'", or for an unnamed element its number and, for a geom, its body: "geom #43 of body 'tip'".
std::string Label(const mjModel& model, mjtObj type, int id, const char* kind) {
  const char* name = mj_id2name(&model, type, id);
  if (name) return std::string(kind) + " '" + name + "'";
  std::string label = std::string(kind) + " #" + std::to_string(id);
  if (type == mjOBJ_GEOM) {
    const char* body = mj_id2name(&model, mjOBJ_BODY, model.geom_bodyid[id]);
    if (body) label += std::string(" of body '") + body + "'";
  }
  return label;
}

/// Throws std::invalid_argument naming `field` of object `id` when the parameters give no usable spring.
Compliance MujocoCompliance(const mjModel& model, const mjtNum* solref, const mjtNum* solimp, double h, mjtObj type,
                            int id, const char* field) {
  const double dmin = std::clamp(solimp[0], mjMINIMP, mjMAXIMP);
  const double dmax = std::clamp(solimp[1], mjMINIMP, mjMAXIMP);
  double k = 0.0, b = 0.0;
  if (solref[0] > 0) {
    const double timeconst = (model.opt.disableflags & mjDSBL_REFSAFE) ? solref[0] : std::max(solref[0], 2.0 * h);
    const double dampratio = solref[1];
    k = 1.0 / (dmax * dmax * timeconst * timeconst * dampratio * dampratio);
    b = 2.0 / (dmax * timeconst);
  } else {
    k = -solref[0] / (dmax * dmax);
    b = -solref[1] / dmax;
  }
  const double gain = dmin / (1.0 - dmin);
  const Compliance c{k * gain, b * gain};
  if (!std::isfinite(c.stiffness) || !std::isfinite(c.damping) || c.stiffness < 0 || c.damping < 0) {
    const char* kind = type == mjOBJ_JOINT ? "joint" : type == mjOBJ_TENDON ? "tendon" : "equality";
    throw std::invalid_argument(Label(model, type, id, kind) + " " + field + ": solref (" + std::to_string(solref[0]) +
                                ", " + std::to_string(solref[1]) +
                                ") gives no finite, non-negative stiffness and damping");
  }
  return c;
}

/// MuJoCo's inverse weight at qpos0 of joint (dof) or tendon `id`, and the effective mass (kg, kg·m²) of a row whose
/// inverse weights sum to `invweight` (0 for a row that moves nothing).
double InverseWeight(const mjModel& model, bool joint, int id) {
  return joint ? model.dof_invweight0[model.jnt_dofadr[id]] : model.tendon_invweight0[id];
}
double EffectiveMass(double invweight) { return invweight > 0 ? 1.0 / invweight : 0.0; }

/// Calls f(dof, value) for the nonzeros of tendon t's Jacobian row (sparse, in the model's pattern ten_J_*).
template <class F>
void ForEachTendonEntry(const mjModel& model, const mjData& data, int t, F f) {
  const int start = model.ten_J_rowadr[t];
  for (int k = start; k < start + model.ten_J_rownnz[t]; ++k) f(model.ten_J_colind[k], data.ten_J[k]);
}

/// p = xpos + xmat · local, the world position of a point fixed in `body`.
void WorldPoint(const mjData& data, int body, const double* local, double p[3]) {
  mju_mulMatVec3(p, data.xmat + 9 * body, local);
  for (int i = 0; i < 3; ++i) p[i] += data.xpos[3 * body + i];
}

constexpr double kWorldAxes[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

}  // namespace

void ContactProblemBuilder::CalcConstraintRows(const mjModel& model, const mjData& data, double h,
                                               ContactProblem* problem) {
  limit_rows_->Clear();
  limit_distance_.clear();
  limit_stiffness_.clear();
  limit_dissipation_.clear();
  limit_info_.clear();
  equality_rows_->Clear();
  constraint_counts_ = ConstraintCounts{};
  if ((model.opt.disableflags & mjDSBL_LIMIT) == 0) CalcLimitRows(model, data, h);
  CalcEqualityRows(model, data, h, problem);  // sets Jb, g0, k, c (empty without equalities)
}

void ContactProblemBuilder::CheckLimitParameters(const mjModel& model) {
  if ((model.opt.disableflags & mjDSBL_LIMIT) != 0) return;
  // Whether a solref gives a finite, non-negative stiffness and damping does not depend on h.
  for (int j = 0; j < model.njnt; ++j) {
    if (model.jnt_limited[j])
      MujocoCompliance(model, model.jnt_solref + mjNREF * j, model.jnt_solimp + mjNIMP * j, 0.0, mjOBJ_JOINT, j,
                       "solreflimit");
  }
  for (int t = 0; t < model.ntendon; ++t) {
    if (model.tendon_limited[t])
      MujocoCompliance(model, model.tendon_solref_lim + mjNREF * t, model.tendon_solimp_lim + mjNIMP * t, 0.0,
                       mjOBJ_TENDON, t, "solreflimit");
  }
}

void ContactProblemBuilder::CalcLimitRows(const mjModel& model, const mjData& data, double h) {
  internal::SparseRows& rows = *limit_rows_;
  auto add = [&](double distance, const mjtNum* solref, const mjtNum* solimp, ContactInfo::Kind kind, int object) {
    rows.EndRow();
    const bool joint = kind == ContactInfo::Kind::kJointLimit;
    const Compliance c =
        MujocoCompliance(model, solref, solimp, h, joint ? mjOBJ_JOINT : mjOBJ_TENDON, object, "solreflimit");
    const double mass = EffectiveMass(InverseWeight(model, joint, object));
    const double width = std::max(solimp[2], 1e-9);
    limit_distance_.push_back(distance);
    limit_stiffness_.push_back(mass * c.stiffness);
    limit_dissipation_.push_back(c.stiffness > 0 ? c.damping / (c.stiffness * width) : 0.0);
    ContactInfo info;
    info.kind = kind;
    info.object = object;
    limit_info_.push_back(info);
  };
  // A side enters the step when the joint may reach it: violated, or within the larger of the model's margin, the
  // limit's solimp width and twice the distance it covers in a step at its current speed. A side farther away would
  // carry no force (its first-order penetration stays negative) unless the speed more than doubled within the step;
  // then it enters at the next step's start, violated, as MuJoCo's solver takes its limits.
  auto reachable = [h](double distance, double margin, const mjtNum* solimp, double speed) {
    return distance < std::max({margin, solimp[2], 2.0 * h * std::abs(speed)});
  };
  for (int j = 0; j < model.njnt; ++j) {
    if (!model.jnt_limited[j]) continue;
    const mjtNum* solref = model.jnt_solref + mjNREF * j;
    const mjtNum* solimp = model.jnt_solimp + mjNIMP * j;
    const double* range = model.jnt_range + 2 * j;
    const double margin = model.jnt_margin[j];
    const int dof = model.jnt_dofadr[j];
    const double* qpos = data.qpos + model.jnt_qposadr[j];
    if (model.jnt_type[j] == mjJNT_HINGE || model.jnt_type[j] == mjJNT_SLIDE) {
      for (const double sign : {1.0, -1.0}) {
        const double distance = sign > 0 ? qpos[0] - range[0] : range[1] - qpos[0];
        if (!reachable(distance, margin, solimp, data.qvel[dof])) continue;
        rows.Add(dof, sign);
        add(distance, solref, solimp, ContactInfo::Kind::kJointLimit, j);
        ++constraint_counts_.joint_limits;
      }
    } else if (model.jnt_type[j] == mjJNT_BALL) {
      // The cone: the rotation angle θ = ‖rotation vector‖ (in the joint's frame, where its dof velocities live)
      // stays below the largest range value; θ̇ = axis · ω, |θ̇| ≤ ‖ω‖.
      double rotation[3];
      mju_quat2Vel(rotation, qpos, 1.0);
      const double angle = mju_norm3(rotation);
      const double distance = std::max(range[0], range[1]) - angle;
      if (!(angle > 1e-10) || !reachable(distance, margin, solimp, mju_norm3(data.qvel + dof))) continue;
      for (int a = 0; a < 3; ++a) rows.Add(dof + a, -rotation[a] / angle);
      add(distance, solref, solimp, ContactInfo::Kind::kJointLimit, j);
      ++constraint_counts_.joint_limits;
    }
  }
  for (int t = 0; t < model.ntendon; ++t) {
    if (!model.tendon_limited[t]) continue;
    const double* range = model.tendon_range + 2 * t;
    const mjtNum* solimp = model.tendon_solimp_lim + mjNIMP * t;
    const double length = data.ten_length[t];
    for (const double sign : {1.0, -1.0}) {
      const double distance = sign > 0 ? length - range[0] : range[1] - length;
      if (!reachable(distance, model.tendon_margin[t], solimp, data.ten_velocity[t])) continue;
      ForEachTendonEntry(model, data, t, [&](int dof, double value) { rows.Add(dof, sign * value); });
      add(distance, model.tendon_solref_lim + mjNREF * t, solimp, ContactInfo::Kind::kTendonLimit, t);
      ++constraint_counts_.tendon_limits;
    }
  }
}

void ContactProblemBuilder::CalcEqualityRows(const mjModel& model, const mjData& data, double h,
                                             ContactProblem* problem) {
  internal::SparseRows& rows = *equality_rows_;
  std::vector<double>& g = equality_value_;
  std::vector<double>& stiffness = equality_stiffness_;
  std::vector<double>& damping = equality_damping_;
  g.clear();
  stiffness.clear();
  damping.clear();
  // Rows of the scratch rows 0 … n−1 (touched dofs in increasing order), with values g[0 … n−1].
  auto add_scratch_rows = [&](int n, const double* values, double scale, int e, double invweight) {
    std::sort(touched_.begin(), touched_.end());
    const Compliance c = MujocoCompliance(model, model.eq_solref + mjNREF * e, model.eq_solimp + mjNIMP * e, h,
                                          mjOBJ_EQUALITY, e, "solref");
    for (int r = 0; r < n; ++r) {
      for (int dof : touched_) rows.Add(dof, scale * row_values_[3 * static_cast<size_t>(dof) + r]);
      rows.EndRow();
      const double mass = EffectiveMass(invweight);
      g.push_back(scale * values[r]);
      stiffness.push_back(mass * c.stiffness);
      damping.push_back(mass * c.damping);
    }
  };
  // Joint and tendon couplings: value1 − value1₀ − Σ cᵢ (value2 − value2₀)ⁱ, row J1 − (Σ i cᵢ xⁱ⁻¹) J2.
  auto polynomial = [](const double* coef, double x, double* derivative) {
    *derivative = coef[1] + x * (2 * coef[2] + x * (3 * coef[3] + x * 4 * coef[4]));
    return coef[0] + x * (coef[1] + x * (coef[2] + x * (coef[3] + x * coef[4])));
  };
  for (int e = 0; e < model.neq && (model.opt.disableflags & mjDSBL_EQUALITY) == 0; ++e) {
    if (!data.eq_active[e]) continue;
    const int id1 = model.eq_obj1id[e], id2 = model.eq_obj2id[e];
    const double* eq = model.eq_data + mjNEQDATA * e;
    BeginScratchRows();
    switch (model.eq_type[e]) {
      case mjEQ_CONNECT:
      case mjEQ_WELD: {
        // Connect: anchors eq[0..2] in body1 and eq[3..5] in body2 (the compiler's). Weld: body2's origin as body1
        // holds it, eq[3..5] (relpose), against body2's anchor eq[0..2].
        const bool weld = model.eq_type[e] == mjEQ_WELD;
        double p1[3], p2[3], values[3];
        WorldPoint(data, id1, weld ? eq + 3 : eq, p1);
        WorldPoint(data, id2, weld ? eq : eq + 3, p2);
        for (int i = 0; i < 3; ++i) values[i] = p1[i] - p2[i];
        AccumulateBodyJacobian(model, data, id1, p1, kWorldAxes, +1.0);
        AccumulateBodyJacobian(model, data, id2, p2, kWorldAxes, -1.0);
        const double* w1 = model.body_invweight0 + 2 * id1;
        const double* w2 = model.body_invweight0 + 2 * id2;
        add_scratch_rows(3, values, 1.0, e, w1[0] + w2[0]);
        if (!weld) break;
        // Orientation: φ = log(R1 Rrel R2ᵀ) in world axes, the rotation taking body2's orientation to the one body1
        // holds for it. With Ṙ = [ω]R, the error E = R1 Rrel R2ᵀ turns at ω1 − E ω2, and φ̇ = Jl(φ)⁻¹ (ω1 − E ω2)
        // with Jl the left Jacobian of SO(3): Jl⁻¹ = I − ½[φ] + c [φ]², c = (1 − (θ/2) cot(θ/2))/θ².
        double target[4], inverse2[4], error[4], phi[3], E[9];
        mju_mulQuat(target, data.xquat + 4 * id1, eq + 6);
        mju_negQuat(inverse2, data.xquat + 4 * id2);
        mju_mulQuat(error, target, inverse2);
        mju_quat2Vel(phi, error, 1.0);
        mju_quat2Mat(E, error);
        BeginScratchRows();
        AccumulateBodyJacobian(model, data, id1, nullptr, kWorldAxes, +1.0, /*angular=*/true);
        AccumulateBodyJacobian(model, data, id2, nullptr, E, -1.0, /*angular=*/true);
        const double theta = mju_norm3(phi);
        const double c = theta > 1e-4 ? (1.0 - 0.5 * theta / std::tan(0.5 * theta)) / (theta * theta) : 1.0 / 12.0;
        const Eigen::Map<const Eigen::Vector3d> phi_vector(phi);
        for (int dof : touched_) {
          Eigen::Map<Eigen::Vector3d> row(ScratchRow(dof));
          const Eigen::Vector3d w = row;
          const Eigen::Vector3d cross = phi_vector.cross(w);
          row = w - 0.5 * cross + c * phi_vector.cross(cross);
        }
        add_scratch_rows(3, phi, eq[10], e, w1[1] + w2[1]);
        break;
      }
      case mjEQ_JOINT:
      case mjEQ_TENDON: {
        const bool joint = model.eq_type[e] == mjEQ_JOINT;
        auto value = [&](int id) {
          return joint ? data.qpos[model.jnt_qposadr[id]] - model.qpos0[model.jnt_qposadr[id]]
                       : data.ten_length[id] - model.tendon_length0[id];
        };
        auto accumulate = [&](int id, double scale) {
          if (joint) {
            ScratchRow(model.jnt_dofadr[id])[0] += scale;
          } else {
            ForEachTendonEntry(model, data, id, [&](int dof, double v) { ScratchRow(dof)[0] += scale * v; });
          }
        };
        double derivative = 0.0;
        const double x2 = id2 >= 0 ? value(id2) : 0.0;
        const double offset = polynomial(eq, x2, &derivative);
        const double violation = value(id1) - (id2 >= 0 ? offset : eq[0]);
        accumulate(id1, 1.0);
        if (id2 >= 0) accumulate(id2, -derivative);
        add_scratch_rows(1, &violation, 1.0, e,
                         InverseWeight(model, joint, id1) + (id2 >= 0 ? InverseWeight(model, joint, id2) : 0.0));
        break;
      }
      default:
        break;  // named by UnsupportedFeatures
    }
  }
  constraint_counts_.equality_rows = rows.size();
  internal::RowsToColumns(rows, model.nv, &column_next_, &problem->Jb);
  problem->g0 = Eigen::Map<const Eigen::VectorXd>(g.data(), static_cast<Eigen::Index>(g.size()));
  problem->constraint_stiffness =
      Eigen::Map<const Eigen::VectorXd>(stiffness.data(), static_cast<Eigen::Index>(stiffness.size()));
  problem->constraint_damping =
      Eigen::Map<const Eigen::VectorXd>(damping.data(), static_cast<Eigen::Index>(damping.size()));
}

}  // namespace tamsi::scenes
