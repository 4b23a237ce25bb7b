#include <tamsi/problem_io.h>
#include <tamsi/tamsi_solver.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "commands.h"

namespace tamsi::cli {
namespace {

struct SolveArgs {
  std::string problem_path;
  std::string output_path;
  bool full_report{false};
  Options options;
  std::optional<double> stiction_tolerance;
};

void RunSolve(const SolveArgs& args) {
  if (SamePath(args.output_path, args.problem_path))
    throw CLI::RuntimeError("--output: '" + args.output_path + "' is the problem file: choose another path", 2);
  ContactProblem problem;
  try {
    problem = ReadProblem(args.problem_path);
  } catch (const ProblemFormatError& e) {
    throw CLI::RuntimeError(args.problem_path + ": " + e.what(), 2);
  }
  Options options = args.options;
  if (args.stiction_tolerance) options.stiction_tolerance = *args.stiction_tolerance;
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
  if (!result.ok())
    throw CLI::RuntimeError(args.problem_path + ": solve failed: " + ToString(result.summary.status), 1);
}

}  // namespace

void AddSolveCommand(CLI::App& app) {
  auto args = std::make_shared<SolveArgs>();
  CLI::App* cmd = app.add_subcommand("solve", "Solve one dumped contact problem (JSON, format tamsi-contact-problem)");
  cmd->add_option("problem", args->problem_path, "Problem file (JSON)")->required();
  cmd->add_option("--output", args->output_path, "Write the solution (v, fn, ft, vn, vt, summary) as JSON");
  AddSolverOptions(cmd, &args->options, &args->stiction_tolerance);
  cmd->add_flag("--full-report", args->full_report, "Print the full summary with the per-iteration history");
  cmd->callback([args] { RunSolve(*args); });
}

}  // namespace tamsi::cli
