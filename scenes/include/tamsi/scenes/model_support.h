#pragma once
/// @file
/// What the TAMSI step leaves out of a MuJoCo model, and how it differs from the integrator the model asks for: the
/// run's warnings, one line per kind (DESIGN.md, "Constraints of the model").

#include <mujoco/mujoco.h>

#include <cstddef>
#include <string>
#include <vector>

namespace tamsi::scenes {

/// One kind of part of a model that the TAMSI step does not take into account, with every element that has it.
struct UnsupportedFeature {
  /// What is left out: "frictionloss", "torsional and rolling friction (condim 6)", kContactSoftness, ...
  std::string kind;
  /// The kind of element ("joint", "tendon", "geom", "equality") and the elements, by name ('pad') or id (#3).
  std::string element;
  std::vector<std::string> elements;
  /// What TAMSI does instead; may be empty.
  std::string note;
  /// One line: "<kind> of <n> <element>s (<the first `shown` elements>, …): <note>".
  std::string Describe(std::size_t shown = 3) const;
};
/// The kind of a contact geom's non-default solref/solimp (TAMSI's contact stiffness and dissipation come from `user`
/// data or the penetration-allowance rule).
inline constexpr char kContactSoftness[] = "contact solref/solimp";
/// The parts of `model` that the TAMSI step does not take into account, one entry per kind in the order first met;
/// empty when every force MuJoCo would apply has a counterpart in the step.
std::vector<UnsupportedFeature> UnsupportedFeatures(const mjModel& model);
/// How the TAMSI step differs from the integrator the model asks for (mjOption::integrator), in one sentence; empty for
/// implicitfast, whose velocity derivatives (joint damping, actuator velocity gains) the step also treats implicitly
/// (eq. 19–23 for the contact forces). MuJoCo's Euler is implicit in joint damping only, RK4 is explicit and fourth
/// order, and implicit also differentiates the Coriolis and centrifugal forces.
std::string IntegratorDifference(const mjModel& model);

}  // namespace tamsi::scenes
