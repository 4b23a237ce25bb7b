// The parallel jaw gripper of the paper's Sec. VI-A (gripper_mug_shake): Fig. 8 (TAMSI's convergence in h).
#include <tamsi/scenes/run.h>
#include <tamsi/scenes/scene_library.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include "study.h"

namespace tamsi::cli {
namespace {

using Params = scenes::GripperMugParameters;

std::unique_ptr<scenes::Run> GripperRun(double h) { return SceneRun(scenes::DefaultSceneName(), h); }

// Generalized velocities sampled every `interval` (s) over `duration`, one row per sample.
std::vector<Eigen::VectorXd> SampledVelocities(double h, double interval, double duration) {
  const std::unique_ptr<scenes::Run> sim = GripperRun(h);
  const long long steps_per_sample = std::llround(interval / h);
  const long long samples = std::llround(duration / interval);
  std::vector<Eigen::VectorXd> v;
  const int nv = sim->model().nv;
  for (long long s = 0; s < samples; ++s) {
    for (long long k = 0; k < steps_per_sample; ++k) sim->Step();
    v.push_back(Eigen::Map<const Eigen::VectorXd>(sim->data().qvel, nv));
  }
  return v;
}

// Which velocities are translational (m/s) and which rotational (rad/s), from the joint types.
std::vector<bool> TranslationalDofs(const mjModel& model) {
  std::vector<bool> translational(model.nv, false);
  for (int j = 0; j < model.njnt; ++j) {
    const int adr = model.jnt_dofadr[j];
    if (model.jnt_type[j] == mjJNT_SLIDE) translational[adr] = true;
    if (model.jnt_type[j] == mjJNT_FREE) translational[adr] = translational[adr + 1] = translational[adr + 2] = true;
  }
  return translational;
}

// The grip's closing transient in the reference run, sampled every 0.1 ms over 30 ms: the finger's and the mug's
// velocities along the closing direction y (m/s), the mug's slip along the shake z relative to the gripper (m/s) and
// its angular velocity about x (rad/s, body frame), the only rotational velocity the scene excites (its mirror
// symmetry keeps ω_y = ω_z = 0).
void WriteGripTransient(const StudySettings& settings, double h_reference) {
  const double interval = 1e-4, duration = 0.03;
  const std::vector<Eigen::VectorXd> v = SampledVelocities(h_reference, interval, duration);
  const std::unique_ptr<scenes::Run> sim = GripperRun(h_reference);
  const mjModel& model = sim->model();
  const auto dof = [&model](const char* joint) { return model.jnt_dofadr[mj_name2id(&model, mjOBJ_JOINT, joint)]; };
  const int shake = dof("translate_joint"), finger = dof("finger_sliding_joint"), mug = dof("mug_joint");
  std::ofstream out = OpenStudyCsv(settings, "fig8_grip_transient.csv");
  out << "t,v_finger_y,v_mug_y,slip_z,omega_x\n";
  for (std::size_t s = 0; s < v.size(); ++s) {
    out << (s + 1) * interval << "," << v[s][finger] << "," << v[s][mug + 1] << "," << v[s][mug + 2] - v[s][shake]
        << "," << v[s][mug + 3] << "\n";
  }
}

}  // namespace

void StudyFigure8(const StudySettings& settings) {
  const double period = Params::kPeriod, amplitude = Params::kAmplitude;
  const double duration = settings.quick ? 0.03 : 2 * period;
  // Every h divides the sample interval (the largest h) and is a multiple of the reference step. The rotational error
  // reaches first order only below h ≈ 0.1 ms (docs/paper_study.md, Fig. 8), hence h down to 3 ms / 64 and a
  // reference 30 times finer than that.
  const double h_reference = settings.quick ? 1e-4 : 1.5625e-6, interval = 3e-3;
  const std::vector<double> steps =
      settings.quick ? std::vector<double>{3e-3, 1.5e-3}
                     : std::vector<double>{3e-3, 1.5e-3, 0.75e-3, 0.375e-3, 0.1875e-3, 93.75e-6, 46.875e-6};
  const std::vector<Eigen::VectorXd> reference = SampledVelocities(h_reference, interval, duration);
  const std::vector<bool> translational = TranslationalDofs(GripperRun(h_reference)->model());
  std::ofstream out = OpenStudyCsv(settings, "fig8_convergence.csv");
  out << "h,h_over_T,error_translational,error_rotational\n";
  for (double h : steps) {
    const std::vector<Eigen::VectorXd> v = SampledVelocities(h, interval, duration);
    // RMS over samples of the L² norm of each group's error, nondimensionalized: v T/A and ω T.
    double sum_t = 0.0, sum_r = 0.0;
    for (std::size_t s = 0; s < v.size(); ++s) {
      for (std::size_t i = 0; i < translational.size(); ++i) {
        const double e = v[s][i] - reference[s][i];
        (translational[i] ? sum_t : sum_r) += e * e;
      }
    }
    const double n = static_cast<double>(v.size());
    out << h << "," << h / period << "," << std::sqrt(sum_t / n) * period / amplitude << ","
        << std::sqrt(sum_r / n) * period << "\n";
  }
  WriteGripTransient(settings, h_reference);
  std::cout << "fig8: " << duration << " s of gripper_mug_shake, TAMSI reference at h = " << h_reference << " s\n";
}

}  // namespace tamsi::cli
