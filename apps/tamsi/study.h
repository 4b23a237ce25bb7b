#pragma once
/// @file
/// `tamsi study fig4|fig5|fig7|fig8|all --output DIR [--quick]`: the paper's integrator study (Sec. III–IV, VI-A),
/// written as CSVs with named columns into DIR and drawn as PNGs by plot_study.py (matplotlib). docs/paper_study.md
/// shows the figures beside the paper's claims.

#include <filesystem>
#include <fstream>
#include <string>

namespace tamsi::cli {

/// Where the figures go and how much they compute (quick: coarser sweeps and references, shorter spans, for CI).
struct StudySettings {
  std::filesystem::path output;
  bool quick{false};
};

/// Opens DIR/name for writing with 10 significant digits; throws CLI::RuntimeError (exit status 1) when it cannot.
std::ofstream OpenStudyCsv(const StudySettings& settings, const std::string& name);

/// Fig. 4: the Newton residual history at the box's first slide→stick transition (h = 10 ms), with and without TALS.
/// Writes fig4_newton_residuals.csv; prints where the transition is.
void StudyFigure4(const StudySettings& settings);
/// Fig. 5: work (f evaluations) against the localized error in v for IE with FN/QN, fixed/error-controlled, with and
/// without TALS, over h and a. Writes fig5_work_precision.csv.
void StudyFigure5(const StudySettings& settings);
/// Fig. 7 (TAMSI's curve): simulated time against wall-clock time on gripper_mug_shake at h = 3 ms. Writes
/// fig7_wall_clock.csv.
void StudyFigure7(const StudySettings& settings);
/// Fig. 8: TAMSI's error in generalized velocities on gripper_mug_shake against h, against a TAMSI reference at a
/// small h, nondimensionalized by T and A. Writes fig8_convergence.csv.
void StudyFigure8(const StudySettings& settings);

}  // namespace tamsi::cli
