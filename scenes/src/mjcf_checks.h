#pragma once
/// @file
/// Internal: checks on an MJCF text before MuJoCo reads it, for what MuJoCo would not survive or would misreport.
/// - Bounds on what it asks MuJoCo to allocate: MuJoCo's parser allocates a height field's samples and copies
///   replicated bodies as it reads, and an allocation that fails there ends the process (the exception cannot cross
///   MuJoCo's C API): a 200-byte file asking for a 100,000 × 100,000 height field would take the process down or
///   exhaust the machine's memory.
/// - Asset files that are folders: MuJoCo reads a folder as an empty file larger than 2 GB, a message that names
///   neither cause.

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

/// Throws ModelLoadError, naming `name` and the element, when `xml` or a file it includes (resolved against
/// `directory`, as MuJoCo does) asks for more than one of the bounds above, or names as the file of a <mesh>,
/// <hfield>, <skin> or <texture> a path that is a folder (resolved as MuJoCo does: against the <compiler>'s meshdir or
/// texturedir, else its assetdir, each relative to `directory` unless absolute). Text that is not well-formed XML,
/// and files that cannot be read, are left for MuJoCo to report.
void CheckMjcfText(const std::string& xml, const std::filesystem::path& directory, const std::string& name);

}  // namespace tamsi::scenes::internal
