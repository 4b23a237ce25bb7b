#pragma once
/// @file
/// Internal: bounds on what an MJCF text asks MuJoCo to allocate, checked on the text before MuJoCo reads it. MuJoCo's
/// parser allocates a height field's samples and copies replicated bodies as it reads, and an allocation that fails
/// there ends the process (the exception cannot cross MuJoCo's C API): a 200-byte file asking for a 100,000 ×
/// 100,000 height field would take the process down or exhaust the machine's memory.

#include <filesystem>
#include <string>

namespace tamsi::scenes::internal {

/// Height samples (nrow × ncol) of one <hfield>: 2²⁶, 256 MB of MuJoCo's single-precision samples.
inline constexpr long long kMaxHfieldSamples = 1LL << 26;
/// Copies of one body made by nested <replicate count> elements (the product of their counts), and the points of one
/// <flexcomp count> (the product of its three counts).
inline constexpr long long kMaxReplicas = 100000;
inline constexpr long long kMaxFlexcompPoints = 1000000;
/// <include> nesting followed (an include that includes itself is refused at this depth).
inline constexpr int kMaxIncludeDepth = 16;

/// Throws ModelLoadError, naming `name`, the element and the bound, when `xml` or a file it includes (resolved
/// against `directory`, as MuJoCo does) asks for more than one of the bounds above. Text that is not well-formed XML,
/// and includes that cannot be read, are left for MuJoCo to report.
void CheckMjcfSizes(const std::string& xml, const std::filesystem::path& directory, const std::string& name);

}  // namespace tamsi::scenes::internal
