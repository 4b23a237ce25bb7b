#include <tamsi/tamsi_solver.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <stdexcept>
#include <string>

#include "commands.h"

namespace tamsi::cli {
namespace {

/// `--flag NAME` for an enum setting, read with FromString: its canonical name (ToString), the same name in kebab-case
/// or any case, or one of `aliases` (older spellings, each mapped to a canonical name).
template <typename Enum>
CLI::Option* AddEnumOption(CLI::App* cmd, const std::string& flag, Enum* value, const std::string& help,
                           const std::map<std::string, std::string>& aliases = {}) {
  std::string alias_help;
  for (const auto& [alias, name] : aliases) alias_help += alias + " for " + name + ", ";
  const CLI::Validator parse(
      [aliases](std::string& input) -> std::string {
        std::string name = input;
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
        const auto alias = aliases.find(name);
        if (alias != aliases.end()) name = alias->second;
        std::replace(name.begin(), name.end(), '-', '_');
        try {
          input = std::to_string(static_cast<int>(FromString<Enum>(name)));
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
        return "";
      },
      Spellings<Enum>());
  return cmd
      ->add_option(flag, *value,
                   help + " (default " + ToString(*value) + "; aliases: " + alias_help + "each name in kebab-case)")
      ->transform(parse);
}

}  // namespace

void AddSolverOptions(CLI::App* cmd, Options* options, std::optional<double>* stiction_tolerance) {
  CLI::Option* coupling = AddEnumOption(cmd, "--coupling", &options->coupling,
                                        "two_way (TAMSI, eq. 23) or one_way (normal forces frozen, SPD Newton matrix, "
                                        "eq. 17)");
  cmd->add_flag_callback(
         "--oneway", [options] { options->coupling = Coupling::kOneWay; }, "Alias of --coupling one_way")
      ->excludes(coupling);
  CLI::Option* regularization = AddEnumOption(cmd, "--regularization", &options->regularization,
                                              "Friction regularization: linear (eq. 7) or smooth (C1)");
  cmd->add_flag_callback(
         "--smooth-friction", [options] { options->regularization = FrictionRegularization::kSmooth; },
         "Alias of --regularization smooth")
      ->excludes(regularization);
  CLI::Option* line_search =
      AddEnumOption(cmd, "--line-search", &options->line_search,
                    "Step length: none (plain Newton), tals (the paper's TALS) or exact (TALS and an exact line "
                    "search)");
  CLI::Option* no_tals =
      cmd->add_flag_callback(
             "--no-tals", [options] { options->line_search = LineSearch::kNone; }, "Alias of --line-search none")
          ->excludes(line_search);
  cmd->add_flag_callback(
         "--plain-tals", [options] { options->line_search = LineSearch::kTals; }, "Alias of --line-search tals")
      ->excludes(line_search)
      ->excludes(no_tals);
  AddEnumOption(cmd, "--linear-solver", &options->linear_solver, "Backend of the Newton system");
  AddEnumOption(cmd, "--newton-solve", &options->newton_solve,
                "exact (a factorization per iteration), reuse_factorization (GMRES on kept factorizations) or "
                "symmetric_preconditioner (GMRES preconditioned by a Cholesky of M + h(W_nn + W_tt))",
                {{"reuse", "reuse_factorization"}, {"symmetric", "symmetric_preconditioner"}});
  AddEnumOption(cmd, "--friction-newton", &options->friction_newton,
                "primal_dual (a dual friction direction per contact) or tangent (the paper's eq. 16 iteration)");
  cmd->add_option("--primal-dual-stall-iterations", options->primal_dual_stall_iterations,
                  "primal_dual: iterations after which an island that has not converged falls back to tangent "
                  "(default " +
                      std::to_string(options->primal_dual_stall_iterations) + ")")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--primal-dual-max-non-descent", options->primal_dual_max_non_descent,
                  "primal_dual: non-descent Newton directions after which an island falls back to tangent (default " +
                      std::to_string(options->primal_dual_max_non_descent) + ")")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--stiction-tolerance", *stiction_tolerance,
                  "Stiction tolerance v_s (m/s); default: the scene's (run), 1e-4 (solve)")
      ->check(Positive());
  cmd->add_option("--relative-tolerance", options->relative_tolerance,
                  "Convergence tolerance relative to v_s (default 1e-2)");
  cmd->add_option("--max-iterations", options->max_iterations, "Newton iteration cap per solve (default 100)")
      ->check(Positive());
  cmd->add_option("--threads", options->num_threads, "Solver threads (0: all hardware threads)")->check(NonNegative());
  cmd->add_option("--krylov-tolerance", options->krylov_tolerance,
                  "GMRES's relative residual for the symmetric and reuse Newton solves (default 1e-2)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--keep-preconditioner-update", options->keep_preconditioner_update,
                  "symmetric: an island whose last Newton update was at most this many v_s first tries GMRES on its "
                  "last Cholesky of S (0: a factorization every iteration; default 1)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--schwarz-threshold", options->schwarz_threshold,
                  "symmetric: islands of at least this many velocities are preconditioned by overlapping Schwarz "
                  "instead of a Cholesky (default " +
                      std::to_string(options->schwarz_threshold) + ")")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--cholesky-flops-per-velocity", options->cholesky_flops_per_velocity,
                  "symmetric: an island of at least --schwarz-threshold velocities keeps the Cholesky when AMD's "
                  "estimate of its flops per velocity is at most this (0: every such island on Schwarz; default 40000)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--schwarz-part-bodies", options->schwarz_part_bodies,
                  "Schwarz: bodies per subdomain before its layer of overlap (default " +
                      std::to_string(options->schwarz_part_bodies) + ")")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--schwarz-refactor-tolerance", options->schwarz_refactor_tolerance,
                  "Schwarz: refactor a subdomain only when an entry of its block changed by more than this fraction "
                  "of sqrt(S_ii S_jj) since its last factorization (0: whenever one changed; default 0.05)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--no-secant-safeguard{false}", options->secant_safeguard,
                "Tangent iteration: the paper's Newton matrix in every iteration (no secant phase after cut steps)");
  cmd->add_flag("--no-phase-times{false}", options->time_phases,
                "Read no clock inside a step: the phase times and the front end / solve split are reported as 0 "
                "(a run's wall time is still measured; --solver mujoco: MuJoCo's timers off too)");
}

}  // namespace tamsi::cli
