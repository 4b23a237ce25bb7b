#pragma once
/// @file
/// TAMSI_DEBUG_ASSERT(condition): an internal invariant of tamsi's own sources (an index in range, a map entry that
/// must have been found), checked in builds configured with TAMSI_DEBUG_ASSERTS=ON (CI's sanitizer and fuzz builds,
/// CMakePresets.json) and compiled out otherwise, so hot loops pay nothing. A failed check prints the condition, file
/// and line and aborts: it is a bug in tamsi, never bad input, which the API boundary refuses with exceptions.

#include <cstdio>
#include <cstdlib>

#ifdef TAMSI_DEBUG_ASSERTS
#define TAMSI_DEBUG_ASSERT(condition) \
  ((condition) ? static_cast<void>(0) : ::tamsi::kernels::DebugAssertFailed(#condition, __FILE__, __LINE__))
#else
#define TAMSI_DEBUG_ASSERT(condition) static_cast<void>(0)
#endif

namespace tamsi::kernels {

[[noreturn]] inline void DebugAssertFailed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "tamsi: internal invariant violated: %s (%s:%d)\n", condition, file, line);
  std::abort();
}

}  // namespace tamsi::kernels
