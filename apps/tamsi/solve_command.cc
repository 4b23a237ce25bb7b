#include <tamsi/problem_io.h>
#include <tamsi/tamsi_solver.h>

#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "commands.h"

namespace tamsi::cli {
namespace {

struct SolveArgs {
  std::string problem_path;
  std::string output_path;
  bool one_way{false};
  bool no_tals{false};
  bool plain_tals{false};
  bool smooth_friction{false};
  bool full_report{false};
  Options options;
};

void RunSolve(const SolveArgs& args) {
  ContactProblem problem;
  try {
    problem = ReadProblem(args.problem_path);
  } catch (const ProblemFormatError& e) {
    throw CLI::RuntimeError(args.problem_path + ": " + e.what(), 2);
  }
  Options options = args.options;
  options.coupling = args.one_way ? Coupling::kOneWay : Coupling::kTwoWay;
  if (args.no_tals) options.line_search = LineSearch::kNone;
  if (args.plain_tals) options.line_search = LineSearch::kTals;
  options.regularization = args.smooth_friction ? FrictionRegularization::kSmooth : FrictionRegularization::kLinear;
  std::string error;
  if (!options.IsValid(&error)) throw CLI::RuntimeError(error, 2);
  TamsiSolver solver(options);
  Result result;
  try {
    solver.Solve(problem, &result);
  } catch (const std::invalid_argument& e) {  // a problem its checks could not see, e.g. an indefinite M
    throw CLI::RuntimeError(args.problem_path + ": " + e.what(), 2);
  }
  std::cout << (args.full_report ? result.summary.FullReport() : result.summary.BriefReport() + "\n");
  if (!args.output_path.empty()) {
    std::ofstream out(args.output_path);
    if (!out) throw CLI::RuntimeError("cannot write --output '" + args.output_path + "'", 2);
    out << ResultToJson(result) << "\n";
    CloseOutput(out, "--output", args.output_path);
  }
  if (!result.ok()) throw CLI::RuntimeError(std::string("solve failed: ") + ToString(result.summary.status), 1);
}

}  // namespace

void AddSolveCommand(CLI::App& app) {
  auto args = std::make_shared<SolveArgs>();
  CLI::App* cmd = app.add_subcommand("solve", "Solve one dumped contact problem (JSON, format tamsi-contact-problem)");
  cmd->add_option("problem", args->problem_path, "Problem file (JSON)")->required();
  cmd->add_option("--output", args->output_path, "Write the solution (v, fn, ft, vn, vt, summary) as JSON");
  cmd->add_flag("--oneway", args->one_way, "One-way coupled scheme (normal forces frozen, SPD Newton matrix, eq. 17)");
  cmd->add_flag("--no-tals", args->no_tals, "Plain Newton without the Transition-Aware Line Search");
  cmd->add_flag("--plain-tals", args->plain_tals, "The paper's TALS instead of the exact line search")
      ->excludes("--no-tals");
  cmd->add_flag("--smooth-friction", args->smooth_friction, "C1 friction regularization instead of eq. 7");
  cmd->add_option("--stiction-tolerance", args->options.stiction_tolerance, "Stiction tolerance v_s (m/s)")
      ->check(Positive());
  cmd->add_option("--relative-tolerance", args->options.relative_tolerance, "Convergence tolerance relative to v_s");
  cmd->add_option("--max-iterations", args->options.max_iterations, "Newton iteration cap")->check(Positive());
  cmd->add_option("--threads", args->options.num_threads, "Threads (0: all hardware threads)");
  const std::map<std::string, LinearSolverType> backends{{"auto", LinearSolverType::kAuto},
                                                         {"umfpack", LinearSolverType::kUmfpack},
                                                         {"cholmod", LinearSolverType::kCholmod},
                                                         {"klu", LinearSolverType::kKlu},
                                                         {"dense", LinearSolverType::kDense}};
  cmd->add_option("--linear-solver", args->options.linear_solver, "auto, umfpack, klu, cholmod or dense")
      ->transform(CLI::CheckedTransformer(backends, CLI::ignore_case));
  AddIterationOptions(cmd, &args->options);
  cmd->add_flag("--full-report", args->full_report, "Print the full summary with the per-iteration history");
  cmd->callback([args] { RunSolve(*args); });
}

}  // namespace tamsi::cli
