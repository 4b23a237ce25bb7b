#include <tamsi/scenes/run_settings.h>

#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tamsi::scenes {
namespace {

template <typename T>
T Lookup(const std::map<std::string, T>& names, const std::string& value, const char* setting) {
  const auto it = names.find(value);
  if (it != names.end()) return it->second;
  std::string known;
  for (const auto& [name, unused] : names) known += (known.empty() ? "" : ", ") + name;
  throw std::invalid_argument(std::string(setting) + ": expected one of " + known + ", got '" + value + "'");
}

/// Throws std::invalid_argument "`setting`: must be ..., got value" unless value is finite and lower < value ≤ upper
/// (lower ≤ value with `closed`); upper = ∞ asks for finiteness alone.
void CheckRange(const char* setting, double value, double lower, bool closed, double upper) {
  if (std::isfinite(value) && (closed ? value >= lower : value > lower) && value <= upper) return;
  std::ostringstream message;
  message << setting << ": must be " << (closed ? ">= " : "> ") << lower;
  if (std::isfinite(upper))
    message << " and at most " << upper;
  else
    message << " and finite";
  message << ", got " << value;
  throw std::invalid_argument(message.str());
}

}  // namespace

SimulatorOptions MakeSimulatorOptions(const RunSettings& settings, const Scene& scene) {
  static const std::map<std::string, Engine> kEngines{
      {"tamsi", Engine::kTamsi}, {"tamsi-oneway", Engine::kTamsi}, {"mujoco", Engine::kMujoco}};
  static const std::map<std::string, int> kMujocoSolvers{
      {"pgs", mjSOL_PGS}, {"cg", mjSOL_CG}, {"newton", mjSOL_NEWTON}};
  static const std::map<std::string, NarrowPhase> kNarrowPhases{{"analytic", NarrowPhase::kAnalytic},
                                                                {"mujoco", NarrowPhase::kMujoco}};
  const double kFinite = std::numeric_limits<double>::infinity();
  if (settings.time_step) CheckRange("dt", *settings.time_step, 0.0, false, kFinite);
  if (settings.stiffness) CheckRange("stiffness", *settings.stiffness, 0.0, false, kMaxStiffness);
  if (settings.dissipation) CheckRange("dissipation", *settings.dissipation, 0.0, true, kMaxDissipation);
  SimulatorOptions options;
  options.engine = Lookup(kEngines, settings.solver, "solver");
  options.solver = settings.iteration;
  if (settings.solver == "tamsi-oneway") options.solver.coupling = Coupling::kOneWay;
  options.solver.stiction_tolerance = settings.stiction_tolerance.value_or(scene.stiction_tolerance);
  options.time_step = settings.time_step.value_or(0.0);
  options.contact = scene.contact;
  if (settings.stiffness) {
    options.contact.stiffness = *settings.stiffness;
    options.contact.override_stiffness = true;
  }
  if (settings.dissipation) {
    options.contact.dissipation = *settings.dissipation;
    options.contact.override_dissipation = true;
  }
  if (!settings.mujoco_solver.empty())
    options.mujoco_solver = Lookup(kMujocoSolvers, settings.mujoco_solver, "mujoco_solver");
  options.narrow_phase = Lookup(kNarrowPhases, settings.narrow_phase, "narrow_phase");
  options.carry_friction_duals = settings.carry_friction_duals;
  options.extrapolate_velocities = settings.extrapolate_velocities;
  std::string error;
  if (!options.solver.IsValid(&error)) throw std::invalid_argument(error);
  return options;
}

}  // namespace tamsi::scenes
