#include <tamsi/problem_io.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>
#include <vector>

namespace tamsi {
namespace {

using json = nlohmann::json;
constexpr const char* kFormat = "tamsi-contact-problem";
constexpr int kVersion = 1;
/// Longest parser message quoted in an error: nlohmann's quotes the offending token whole (a 10,000-digit number).
constexpr std::size_t kMaxParserMessage = 200;

[[noreturn]] void Fail(const std::string& field, const std::string& what) {
  throw ProblemFormatError("problem." + field + ": " + what);
}

/// The JSON document of `text`. A key given twice in one object is an error naming it (a parser would keep one of the
/// two values silently), and so is malformed text or a number beyond a double (2e310), its message cut to
/// kMaxParserMessage characters.
json ParseRefusingDuplicateKeys(const std::string& text) {
  std::vector<std::vector<std::string>> keys;  // the keys seen in each open object, innermost last
  const json::parser_callback_t refuse_duplicates = [&keys](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end) keys.pop_back();
    if (event == json::parse_event_t::key) {
      const std::string& key = parsed.get_ref<const std::string&>();
      std::vector<std::string>& seen = keys.back();
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) Fail(key, "given twice");
      seen.push_back(key);
    }
    return true;
  };
  try {
    return json::parse(text, refuse_duplicates);
  } catch (const json::exception& e) {
    std::string message = e.what();
    if (message.size() > kMaxParserMessage) message = message.substr(0, kMaxParserMessage) + "…";
    throw ProblemFormatError("problem: not valid JSON: " + message);
  }
}

const json& Field(const json& doc, const std::string& name) {
  const auto it = doc.find(name);
  if (it == doc.end()) Fail(name, "missing");
  return *it;
}

double Number(const json& x, const std::string& field) {
  if (!x.is_number()) Fail(field, "expected a number, got " + std::string(x.type_name()));
  return x.get<double>();
}

int Integer(const json& x, const std::string& field) {
  if (!x.is_number_integer() || x.get<long long>() < 0 || x.get<long long>() > (1LL << 31) - 1)
    Fail(field, "expected a non-negative integer");
  return x.get<int>();
}

/// A declared size (nv, nc, nb): a non-negative integer of at most kMaxProblemSize, so that 2 nc fits an int.
int DeclaredSize(const json& doc, const std::string& name) {
  const int size = Integer(Field(doc, name), name);
  if (size > kMaxProblemSize)
    Fail(name, "at most " + std::to_string(kMaxProblemSize) + ", got " + std::to_string(size));
  return size;
}

json VectorToJson(const Eigen::VectorXd& x) { return json(std::vector<double>(x.data(), x.data() + x.size())); }

Eigen::VectorXd VectorFromJson(const json& doc, const std::string& name, int size) {
  const json& x = Field(doc, name);
  if (!x.is_array()) Fail(name, "expected an array");
  if (static_cast<int>(x.size()) != size)
    Fail(name, "expected " + std::to_string(size) + " entries, got " + std::to_string(x.size()));
  Eigen::VectorXd v(size);
  for (int i = 0; i < size; ++i) v[i] = Number(x[i], name + "[" + std::to_string(i) + "]");
  return v;
}

json MatrixToJson(const SparseMatrix& A) {
  json triplets = json::array();
  for (int j = 0; j < A.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(A, j); it; ++it) triplets.push_back({it.row(), it.col(), it.value()});
  return {{"rows", A.rows()}, {"cols", A.cols()}, {"triplets", triplets}};
}

SparseMatrix MatrixFromJson(const json& doc, const std::string& name, int rows, int cols) {
  const json& m = Field(doc, name);
  if (!m.is_object()) Fail(name, "expected an object with rows, cols, triplets");
  const int r = Integer(Field(m, "rows"), name + ".rows");
  const int c = Integer(Field(m, "cols"), name + ".cols");
  if (r != rows || c != cols) {
    std::ostringstream os;
    os << "expected " << rows << " × " << cols << ", got " << r << " × " << c;
    Fail(name, os.str());
  }
  const json& t = Field(m, "triplets");
  if (!t.is_array()) Fail(name + ".triplets", "expected an array");
  std::vector<Eigen::Triplet<double, int>> triplets;
  triplets.reserve(t.size());
  for (size_t k = 0; k < t.size(); ++k) {
    const std::string field = name + ".triplets[" + std::to_string(k) + "]";
    if (!t[k].is_array() || t[k].size() != 3) Fail(field, "expected [row, col, value]");
    const int i = Integer(t[k][0], field + "[0]");
    const int j = Integer(t[k][1], field + "[1]");
    if (i >= r) Fail(field, "row " + std::to_string(i) + " out of range");
    if (j >= c) Fail(field, "column " + std::to_string(j) + " out of range");
    triplets.emplace_back(i, j, Number(t[k][2], field + "[2]"));
  }
  SparseMatrix A(r, c);
  A.setFromTriplets(triplets.begin(), triplets.end());
  return A;
}

}  // namespace

std::string ProblemToJson(const ContactProblem& p) {
  json doc = {{"format", kFormat},
              {"version", kVersion},
              {"nv", p.num_velocities()},
              {"nc", p.num_contacts()},
              {"time_step", p.time_step},
              {"M", MatrixToJson(p.M)},
              {"Jn", MatrixToJson(p.Jn)},
              {"Jt", MatrixToJson(p.Jt)},
              {"p_star", VectorToJson(p.p_star)},
              {"delta0", VectorToJson(p.delta0)},
              {"stiffness", VectorToJson(p.stiffness)},
              {"dissipation", VectorToJson(p.dissipation)},
              {"friction", VectorToJson(p.friction)}};
  if (p.v0) doc["v0"] = VectorToJson(*p.v0);
  if (p.v_guess) doc["v_guess"] = VectorToJson(*p.v_guess);
  if (p.w_guess) doc["w_guess"] = VectorToJson(*p.w_guess);
  if (p.num_constraints() > 0) {
    doc["nb"] = p.num_constraints();
    doc["Jb"] = MatrixToJson(p.Jb);
    doc["g0"] = VectorToJson(p.g0);
    doc["constraint_stiffness"] = VectorToJson(p.constraint_stiffness);
    doc["constraint_damping"] = VectorToJson(p.constraint_damping);
  }
  return doc.dump();
}

ContactProblem ProblemFromJson(const std::string& text) {
  const json doc = ParseRefusingDuplicateKeys(text);
  if (!doc.is_object()) throw ProblemFormatError("problem: expected a JSON object");
  const json& format = Field(doc, "format");
  if (!format.is_string() || format.get<std::string>() != kFormat)
    Fail("format", std::string("expected \"") + kFormat + "\"");
  if (Integer(Field(doc, "version"), "version") != kVersion) Fail("version", "expected 1");
  const int nv = DeclaredSize(doc, "nv");
  const int nc = DeclaredSize(doc, "nc");
  ContactProblem p;
  p.time_step = Number(Field(doc, "time_step"), "time_step");
  // The vectors first: their lengths are checked against nv and nc before anything of those sizes is allocated, so
  // a small file declaring huge sizes fails at once.
  p.p_star = VectorFromJson(doc, "p_star", nv);
  p.delta0 = VectorFromJson(doc, "delta0", nc);
  p.stiffness = VectorFromJson(doc, "stiffness", nc);
  p.dissipation = VectorFromJson(doc, "dissipation", nc);
  p.friction = VectorFromJson(doc, "friction", nc);
  p.M = MatrixFromJson(doc, "M", nv, nv);
  p.Jn = MatrixFromJson(doc, "Jn", nc, nv);
  p.Jt = MatrixFromJson(doc, "Jt", 2 * nc, nv);  // 2 nc ≤ 2 kMaxProblemSize fits an int
  if (doc.contains("v0")) p.v0 = VectorFromJson(doc, "v0", nv);
  if (doc.contains("v_guess")) p.v_guess = VectorFromJson(doc, "v_guess", nv);
  if (doc.contains("w_guess")) p.w_guess = VectorFromJson(doc, "w_guess", 2 * nc);
  if (doc.contains("nb")) {
    const int nb = DeclaredSize(doc, "nb");
    p.g0 = VectorFromJson(doc, "g0", nb);
    p.Jb = MatrixFromJson(doc, "Jb", nb, nv);
    p.constraint_stiffness = VectorFromJson(doc, "constraint_stiffness", nb);
    p.constraint_damping = VectorFromJson(doc, "constraint_damping", nb);
  }
  try {
    p.Validate();
  } catch (const std::invalid_argument& e) {
    // "ContactProblem.field: ..." → "problem.field: ..."
    const std::string what = e.what();
    throw ProblemFormatError("problem." + what.substr(what.find('.') + 1));
  }
  return p;
}

void WriteProblem(const ContactProblem& problem, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw ProblemFormatError("cannot open " + path + " for writing");
  out << ProblemToJson(problem) << "\n";
  if (!out) throw ProblemFormatError("failed writing " + path);
}

ContactProblem ReadProblem(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ProblemFormatError("cannot open " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ProblemFromJson(buffer.str());
}

std::string ResultToJson(const Result& r) {
  const Summary& s = r.summary;
  json summary = {{"iterations", s.iterations},
                  {"vt_residual", s.vt_residual},
                  {"vn_residual", s.vn_residual},
                  {"alpha", s.alpha},
                  {"tals_limited_contacts", s.tals_limited_contacts},
                  {"line_search_evaluations", s.line_search_evaluations},
                  {"tals_fallbacks", s.tals_fallbacks},
                  {"secant_islands", s.secant_islands},
                  {"friction_newton", ToString(s.friction_newton)},
                  {"line_search", ToString(s.line_search)},
                  {"newton_solve", ToString(s.newton_solve)},
                  {"stick_slip_transitions", s.stick_slip_transitions},
                  {"nv", s.num_velocities},
                  {"nc", s.num_contacts},
                  {"nb", s.num_constraints},
                  {"max_constraint_violation", s.max_constraint_violation},
                  {"newton_matrix_nnz", s.newton_matrix_nnz},
                  {"num_islands", s.num_islands},
                  {"largest_island", s.largest_island},
                  {"structure_reused", s.structure_reused},
                  {"coupling", ToString(s.coupling)},
                  {"linear_solver_given", ToString(s.linear_solver_given)},
                  {"linear_solver_used", ToString(s.linear_solver_used)},
                  {"threads_given", s.num_threads_given},
                  {"threads_used", s.num_threads_used},
                  {"message", s.message}};
  json& times = summary["time_s"];
  ForEachField(s.counters, [&](const char* name, auto value) {
    if constexpr (std::is_floating_point_v<decltype(value)>)
      times[PhaseName(name)] = value;
    else
      summary[name] = value;
  });
  json doc = {{"status", ToString(s.status)}, {"v", VectorToJson(r.v)},   {"fn", VectorToJson(r.fn)},
              {"ft", VectorToJson(r.ft)},     {"vn", VectorToJson(r.vn)}, {"vt", VectorToJson(r.vt)},
              {"iterations", s.iterations},   {"summary", summary}};
  if (r.constraint_forces.size() > 0) doc["constraint_forces"] = VectorToJson(r.constraint_forces);
  return doc.dump(1);
}

}  // namespace tamsi
