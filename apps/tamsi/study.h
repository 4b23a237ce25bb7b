#pragma once
/// @file
/// `tamsi study fig4|fig5|fig7|fig8|allegro|all --output DIR [--quick]`: the paper's integrator study (Sec. III–IV,
/// VI-A), written as CSVs with named columns into DIR and drawn as PNGs by plot_study.py (matplotlib).
/// docs/paper_study.md shows the figures beside the paper's claims.

#include <tamsi/scenes/run.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

namespace tamsi::cli {

/// Where the figures go and how much they compute (quick: coarser sweeps and references, shorter spans, for CI).
struct StudySettings {
  std::filesystem::path output;
  bool quick{false};
};

/// A run of the built-in scene `name` as `tamsi run` makes it (two-way TAMSI, one thread, the scene's contact and
/// v_s, its first keyframe, controller, sensor and checks) at time step h (s).
std::unique_ptr<scenes::Run> SceneRun(const std::string& name, double h);

/// Opens DIR/name for writing with 10 significant digits; throws CLI::RuntimeError (exit status 1) when it cannot.
std::ofstream OpenStudyCsv(const StudySettings& settings, const std::string& name);

/// Fig. 4: the Newton residual history at the box's first slide→stick transition (h = 10 ms), with and without TALS.
/// Writes fig4_newton_residuals.csv; prints where the transition is.
void StudyFigure4(const StudySettings& settings);
/// Fig. 5: work (f evaluations) against the localized error in v for IE with FN/QN, fixed/error-controlled, with and
/// without TALS, over h and a. Writes fig5_work_precision.csv.
void StudyFigure5(const StudySettings& settings);
/// Fig. 7: simulated time against wall-clock time on gripper_mug_shake at h = 3 ms for TAMSI, IE + FN + TALS and
/// IE + FN (fixed steps with convergence control). Writes fig7_wall_clock.csv; prints each run's wall time and work.
void StudyFigure7(const StudySettings& settings);
/// The Allegro hand (Sec. VI-B): TAMSI at h = 0.7 ms against error-controlled IE + QN at a = 0.01, with and without
/// TALS, on allegro_mug, wall clock as for Fig. 7. Writes allegro_wall_clock.csv. Throws scenes::ThirdPartyModelError,
/// before writing anything, without the models folder that holds the hand (README, "Models").
void StudyAllegro(const StudySettings& settings);
/// Fig. 8: TAMSI's error in generalized velocities on gripper_mug_shake against h, against a TAMSI reference at a
/// small h, nondimensionalized by T and A. Writes fig8_convergence.csv, and fig8_grip_transient.csv (the reference's
/// first 30 ms every 0.1 ms: the grip's closing, which alone excites the mug's rotation).
void StudyFigure8(const StudySettings& settings);

}  // namespace tamsi::cli
