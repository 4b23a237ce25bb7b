// Today's MuJoCo Menagerie, unmodified, under TAMSI: models read from the models folder (TAMSI_MODELS_DIR, the
// folder that holds menagerie_current/; README "Models"). Without it the tests are skipped, saying so.
#include <gtest/gtest.h>
#include <tamsi/scenes/scene_library.h>
#include <tamsi/scenes/simulator.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "third_party_models.h"

namespace tamsi::scenes {
namespace {

// The Franka Panda holding its `home` keyframe at its own time step (2 ms). Its servos have force ranges (±87 N·m):
// with their velocity gains left explicit, joint velocities flipped sign every step and grew 5× a step until the
// forces flipped ±87 N·m. With the gains implicit while the force is inside its range it settles (|v| about 1.5e-6
// rad/s at 1 s, 7e-9 at 1.5 s, decaying tenfold every 0.2 s).
TEST(ModelZoo, PandaSettlesAtItsHomeKeyframe) {
  TAMSI_SKIP_WITHOUT_THIRD_PARTY_MODELS();
  ModelPtr model =
      LoadModelFromFile(ThirdPartyModel("menagerie_current/franka_emika_panda/scene.xml", "ModelZoo").string());
  const int home = mj_name2id(model.get(), mjOBJ_KEY, "home");
  ASSERT_GE(home, 0);
  Simulator sim(std::move(model), SimulatorOptions(), home);
  double previous = 0.0;
  int sign_flips = 0;
  while (sim.time() < 1.5) {
    sim.Step();
    const double v = sim.data().qvel[3];  // joint4, the slowest to settle
    if (previous * v < 0 && std::abs(v) > 1e-4) ++sign_flips;
    previous = v;
  }
  const double* v = sim.data().qvel;
  EXPECT_LT(
      std::abs(*std::max_element(v, v + sim.model().nv, [](double a, double b) { return std::abs(a) < std::abs(b); })),
      1e-7);
  EXPECT_LE(sign_flips, 5);  // the unstable cycle flipped every step
}

}  // namespace
}  // namespace tamsi::scenes
