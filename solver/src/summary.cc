#include <tamsi/tamsi_solver.h>

#include <cstdarg>
#include <cstdio>
#include <string>
#include <type_traits>

namespace tamsi {
namespace {

std::string Format(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  return buffer;
}

/// The number of fields ForEachCounter names.
constexpr int NumCounters() {
  int n = 0;
  ForEachCounter([&n](const char*, auto) { ++n; });
  return n;
}
// Every field is 8 bytes (long long or double): a field missing from ForEachCounter changes the size.
static_assert(sizeof(SolveCounters) == 8 * NumCounters(), "ForEachCounter must name every field of SolveCounters");

}  // namespace

SolveCounters& SolveCounters::operator+=(const SolveCounters& other) {
  ForEachCounter([&](const char*, auto member) { this->*member += other.*member; });
  return *this;
}

std::string Summary::BriefReport() const {
  const double vt = vt_residual.empty() ? 0.0 : vt_residual.back();
  const double vn = vn_residual.empty() ? 0.0 : vn_residual.back();
  const std::string time = counters.time_total > 0 ? Format("%.3g ms", 1e3 * counters.time_total) : "not timed";
  return Format("TAMSI %s: %s, %d iterations (%lld secant), |dvt| %.2e m/s, |dvn| %.2e m/s, nv %d, nc %d, %s, %s",
                ToString(coupling), ToString(status), iterations, counters.secant_iterations, vt, vn, num_velocities,
                num_contacts, ToString(linear_solver_used), time.c_str());
}

std::string Summary::FullReport() const {
  std::string out = "TAMSI solver summary\n";
  out += Format("  %-28s %s\n", "status", ToString(status));
  if (!message.empty()) out += Format("  %-28s %s\n", "message", message.c_str());
  out += Format("  %-28s %s\n", "coupling", ToString(coupling));
  out += Format("  %-28s %s\n", "line search", ToString(line_search));
  out += Format("  %-28s %s\n", "Newton solve", ToString(newton_solve));
  out += Format("  %-28s %s\n", "friction Newton", ToString(friction_newton));
  out += Format("  %-28s %d\n", "velocities nv", num_velocities);
  out += Format("  %-28s %d\n", "contacts nc", num_contacts);
  out += Format("  %-28s %d (largest violation %.3g)\n", "bilateral constraints nb", num_constraints,
                max_constraint_violation);
  out += Format("  %-28s %lld\n", "Newton matrix nonzeros", newton_matrix_nnz);
  out += Format("  %-28s %s / %s\n", "linear solver given/used", ToString(linear_solver_given),
                ToString(linear_solver_used));
  out += Format("  %-28s %d / %d\n", "threads given/used", num_threads_given, num_threads_used);
  out += Format("  %-28s %d (largest: %d velocities)\n", "islands", num_islands, largest_island);
  out += Format("  %-28s %s\n", "structure reused", structure_reused ? "yes" : "no");
  out += Format("  %-28s %d\n", "iterations", iterations);
  out += Format("  %-28s %d\n", "stick/slip transitions", stick_slip_transitions);
  std::string times = "  time (ms)\n";
  out += "  counters\n";
  ForEachField(counters, [&](const char* name, auto value) {
    if constexpr (std::is_floating_point_v<decltype(value)>)
      times += Format("    %-26s %10.3f\n", PhaseName(name), 1e3 * value);
    else
      out += Format("    %-26s %lld\n", name, value);
  });
  out += counters.time_total > 0 ? times : "  time: not timed (Options::time_phases off)\n";
  out +=
      "  iter   |dvt| (m/s)   |dvn| (m/s)   alpha      TALS-limited  line-search-evals  TALS-fallbacks  "
      "secant-islands\n";
  for (size_t k = 0; k < vt_residual.size(); ++k)
    out += Format("  %4zu   %11.3e   %11.3e   %9.3e  %12d  %17d  %14d  %14d\n", k + 1, vt_residual[k], vn_residual[k],
                  alpha[k], tals_limited_contacts[k], line_search_evaluations[k], tals_fallbacks[k], secant_islands[k]);
  return out;
}

}  // namespace tamsi
