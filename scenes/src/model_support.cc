#include <tamsi/scenes/model_support.h>

#include <algorithm>

namespace tamsi::scenes {

std::string UnsupportedFeature::Describe(std::size_t shown) const {
  std::string text = kind + " of " + std::to_string(elements.size()) + " " + element + (elements.size() > 1 ? "s" : "");
  text += " (";
  for (std::size_t i = 0; i < std::min(shown, elements.size()); ++i) text += (i > 0 ? ", " : "") + elements[i];
  text += elements.size() > shown ? ", …)" : ")";
  return note.empty() ? text : text + ": " + note;
}

std::vector<UnsupportedFeature> UnsupportedFeatures(const mjModel& model) {
  std::vector<UnsupportedFeature> features;
  auto add = [&features](const std::string& kind, const char* element, const std::string& name, const char* note) {
    auto it = std::find_if(features.begin(), features.end(),
                           [&](const UnsupportedFeature& f) { return f.kind == kind && f.element == element; });
    if (it == features.end()) it = features.insert(features.end(), UnsupportedFeature{kind, element, {}, note});
    it->elements.push_back(name);
  };
  // An element's name in quotes, or #id for an unnamed one.
  auto name = [&model](mjtObj type, int id) {
    const char* n = mj_id2name(&model, type, id);
    return n ? "'" + std::string(n) + "'" : "#" + std::to_string(id);
  };
  if ((model.opt.disableflags & mjDSBL_FRICTIONLOSS) == 0) {
    for (int j = 0; j < model.njnt; ++j) {
      const int dofs = model.jnt_type[j] == mjJNT_FREE ? 6 : model.jnt_type[j] == mjJNT_BALL ? 3 : 1;
      const double* loss = model.dof_frictionloss + model.jnt_dofadr[j];
      if (std::any_of(loss, loss + dofs, [](double x) { return x > 0; }))
        add("frictionloss", "joint", name(mjOBJ_JOINT, j), "");
    }
    for (int t = 0; t < model.ntendon; ++t)
      if (model.tendon_frictionloss[t] > 0) add("frictionloss", "tendon", name(mjOBJ_TENDON, t), "");
  }
  // MuJoCo's contact softness (its default solref (0.02, 1), solimp (0.9, 0.95, 0.001, 0.5, 2)): TAMSI's contacts take
  // their stiffness and dissipation from geom user data or the penetration-allowance rule instead.
  const double default_solref[mjNREF] = {0.02, 1.0}, default_solimp[mjNIMP] = {0.9, 0.95, 0.001, 0.5, 2.0};
  for (int g = 0; g < model.ngeom; ++g) {
    if (model.geom_contype[g] == 0 && model.geom_conaffinity[g] == 0) continue;
    if (model.geom_condim[g] > 3) {
      add("torsional" + std::string(model.geom_condim[g] == 6 ? " and rolling" : "") + " friction (condim " +
              std::to_string(model.geom_condim[g]) + ")",
          "geom", name(mjOBJ_GEOM, g), "");
    }
    if (!std::equal(default_solref, default_solref + mjNREF, model.geom_solref + mjNREF * g) ||
        !std::equal(default_solimp, default_solimp + mjNIMP, model.geom_solimp + mjNIMP * g)) {
      add(kContactSoftness, "geom", name(mjOBJ_GEOM, g),
          "TAMSI's contacts take k and d from user data or the scene's defaults");
    }
  }
  for (int e = 0; e < model.neq; ++e) {
    const int type = model.eq_type[e];
    if (type != mjEQ_CONNECT && type != mjEQ_WELD && type != mjEQ_JOINT && type != mjEQ_TENDON)
      add("equality type " + std::to_string(type), "equality", name(mjOBJ_EQUALITY, e), "");
  }
  return features;
}

std::string IntegratorDifference(const mjModel& model) {
  const std::string tamsi =
      "TAMSI's first-order step, implicit in contact forces, joint damping and actuator velocity gains";
  switch (model.opt.integrator) {
    case mjINT_EULER:
      return "the model's Euler integrator (implicit in joint damping only) is replaced by " + tamsi;
    case mjINT_RK4:
      return "the model's RK4 integrator (explicit, fourth order) is replaced by " + tamsi;
    case mjINT_IMPLICIT:
      return "the model's implicit integrator is replaced by " + tamsi +
             ", without its Coriolis and centrifugal derivatives (as implicitfast)";
    default:
      return "";
  }
}

}  // namespace tamsi::scenes
