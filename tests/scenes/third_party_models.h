#pragma once
// The tests' one check for third-party models (README, "Models"): tests that read today's MuJoCo Menagerie or the YCB
// objects through scenes::ThirdPartyModel (the robot scenes, the model-zoo and model-constraint tests) are skipped,
// naming the setting, when the models folder TAMSI_MODELS_DIR is unset. A folder that is set but lacks a model is not
// skipped: the test fails with ThirdPartyModel's message, which names the missing path.
#include <gtest/gtest.h>

#include <cstdlib>

namespace tamsi::test_support {

/// Whether the models folder is set (TAMSI_MODELS_DIR, non-empty).
inline bool ThirdPartyModelsDirectorySet() {
  const char* dir = std::getenv("TAMSI_MODELS_DIR");
  return dir != nullptr && *dir != '\0';
}

}  // namespace tamsi::test_support

/// Skips the running test when TAMSI_MODELS_DIR is unset. A statement in the test body (it returns from it).
#define TAMSI_SKIP_WITHOUT_THIRD_PARTY_MODELS()                            \
  if (::tamsi::test_support::ThirdPartyModelsDirectorySet()) {             \
  } else                                                                   \
    GTEST_SKIP() << "needs third-party models: TAMSI_MODELS_DIR is unset " \
                    "(a folder holding menagerie_current/ and ycb_sim/; README, \"Models\")"
