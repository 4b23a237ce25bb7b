#pragma once
/// @file
/// Problem dump and replay: the JSON problem format of DESIGN.md ("format": "tamsi-contact-problem", version 1).

#include <tamsi/contact_problem.h>
#include <tamsi/tamsi_solver.h>

#include <stdexcept>
#include <string>

namespace tamsi {

/// Thrown for a malformed problem file; what() names the field, e.g. "problem.Jt.triplets[3]: column 14 out of range".
class ProblemFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The largest nv, nc or nb a problem file may declare (2^28): ProblemFromJson rejects more, naming the field.
inline constexpr int kMaxProblemSize = 1 << 28;

/// Writes `problem` as one JSON document (doubles printed round-trip exactly). Bilateral constraints, when there are
/// any, are the optional fields "nb", "Jb", "g0", "constraint_stiffness" and "constraint_damping" (a version-1 file
/// without them has none).
std::string ProblemToJson(const ContactProblem& problem);
/// Parses a JSON document; throws ProblemFormatError naming the bad field, and for text that is not JSON (numbers
/// beyond a double included); never another exception type for bad input. Declared sizes are checked against the
/// arrays the document holds before matrices of those sizes are allocated. The result passes Validate().
ContactProblem ProblemFromJson(const std::string& json);

/// File versions; throw ProblemFormatError also when the file cannot be opened or written.
void WriteProblem(const ContactProblem& problem, const std::string& path);
ContactProblem ReadProblem(const std::string& path);

/// The solution document of `tamsi solve`: {"status", "v", "fn", "ft", "vn", "vt", "iterations", "summary"}, and
/// "constraint_forces" when the problem has bilateral constraints.
std::string ResultToJson(const Result& result);

}  // namespace tamsi
