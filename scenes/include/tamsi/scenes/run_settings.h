#pragma once
/// @file
/// The simulator settings `tamsi run` and the Python package take by name (DESIGN.md, "The command line"), and the
/// SimulatorOptions they give for a scene.

#include <tamsi/scenes/scene_library.h>
#include <tamsi/scenes/simulator.h>
#include <tamsi/tamsi_solver.h>

#include <optional>
#include <string>

namespace tamsi::scenes {

/// The largest per-geom contact stiffness (N/m) and dissipation (s/m) a run accepts: beyond them no time step of a
/// manipulation scene converges (every step fails after its retries).
inline constexpr double kMaxStiffness = 1e12;
inline constexpr double kMaxDissipation = 1e6;

/// A run's engine and solver choices; unset values take the scene's defaults.
struct RunSettings {
  /// "tamsi", "mujoco" (MuJoCo's own solver), or "tamsi-oneway": "tamsi" with coupling one_way.
  std::string solver{"tamsi"};
  /// With solver "mujoco": "newton", "cg" or "pgs"; "" keeps the model's choice.
  std::string mujoco_solver;
  /// "analytic" or "mujoco" (NarrowPhase).
  std::string narrow_phase{"analytic"};
  /// SimulatorOptions::carry_friction_duals.
  bool carry_friction_duals{true};
  /// SimulatorOptions::extrapolate_velocities.
  bool extrapolate_velocities{true};
  /// Time step h (s; the model's when unset), per-geom contact stiffness (N/m) and dissipation (s/m) overriding MJCF
  /// user data, stiction tolerance v_s (m/s; the scene's when unset).
  std::optional<double> time_step, stiffness, dissipation, stiction_tolerance;
  /// The solver's options (coupling, threads, iteration cap, newton_solve, friction_newton, …); v_s above replaces
  /// theirs.
  Options iteration;
};

/// The simulator options of `settings` for `scene`. Throws std::invalid_argument naming the bad setting: an unknown
/// solver, MuJoCo solver or narrow phase; a time step that is not finite and > 0; a stiffness not in
/// (0, kMaxStiffness] or a dissipation not in [0, kMaxDissipation]; solver options out of range (Options::IsValid:
/// threads outside [0, kernels::MaxThreads()] among them).
SimulatorOptions MakeSimulatorOptions(const RunSettings& settings, const Scene& scene);

}  // namespace tamsi::scenes
