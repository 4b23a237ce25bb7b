// TAMSI_DEBUG_ASSERT: the checked tier (kernels/debug_assert.h), enabled here whatever the build.
#ifndef TAMSI_DEBUG_ASSERTS
#define TAMSI_DEBUG_ASSERTS 1
#endif
#include <gtest/gtest.h>
#include <tamsi/kernels/debug_assert.h>

namespace tamsi::kernels {
namespace {

TEST(DebugAssert, AViolatedInvariantAbortsNamingItsConditionAndPlace) {
  const int index = 3, size = 3;
  TAMSI_DEBUG_ASSERT(index == size);  // one that holds does nothing
  EXPECT_DEATH(TAMSI_DEBUG_ASSERT(index < size),
               "^tamsi: internal invariant violated: index < size \\(.*debug_assert_test\\.cc:[0-9]+\\)");
}

}  // namespace
}  // namespace tamsi::kernels
