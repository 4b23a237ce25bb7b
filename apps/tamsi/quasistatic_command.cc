// `tamsi quasistatic`: the quasi-static finite-feedback examples (spec quasistatic.md §7) and the ε-sweep.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.h"
#include "tamsi/quasistatic_examples/examples.h"

namespace tamsi::cli {
namespace {

namespace qs = tamsi::quasistatic;
namespace scenes = tamsi::quasistatic::scenes;

struct RunArgs {
  std::string example;
  double epsilon = -1.0;  // < 0: the example's default
  std::string output;
  bool full = false;
};

struct SweepArgs {
  std::string output_dir = ".";
  int n_last = 70;
};

void RunExample(const RunArgs& args) {
  std::unique_ptr<scenes::Example> example;
  try {
    example = std::make_unique<scenes::Example>(args.epsilon < 0.0 ? scenes::MakeExample(args.example)
                                                                   : scenes::MakeExample(args.example, args.epsilon));
  } catch (const std::invalid_argument& e) {
    throw CLI::RuntimeError(e.what(), 2);
  }
  const scenes::Example& ex = *example;
  const qs::SimulationResult r = ex.Run();
  const Eigen::Vector3d& q = r.trajectory.object.back();
  std::cout << ex.info.name << " (epsilon = " << ex.parameters.epsilon << "): " << r.summary.BriefReport() << "\n"
            << "final object pose (x, y, theta) = (" << q(0) << ", " << q(1) << ", " << q(2) << ")\n";
  if (args.full) std::cout << r.summary.FullReport();
  if (!args.output.empty()) {
    std::ofstream out(args.output);
    if (!out) throw CLI::RuntimeError("cannot write " + args.output, 2);
    scenes::WriteTrajectoryCsv(ex, r.trajectory, out);
    CloseOutput(out, "--output", args.output);
    std::cout << "wrote " << args.output << "\n";
    const std::filesystem::path stem = std::filesystem::path(args.output).replace_extension();
    std::string note;
    scenes::PlotTrajectory(ex, args.output, stem.string() + ".gp", stem.string() + ".png", &note);
    std::cout << note << "\n";
  }
}

void RunSweep(const SweepArgs& args) {
  CreateOutputDirectory("--output-dir", args.output_dir);
  const std::vector<double> epsilons = scenes::SweepEpsilons(2, args.n_last);
  std::vector<scenes::EpsilonSweep> sweeps;
  for (const char* name : {"even_push", "lopsided_push", "semicircle_push"}) {
    sweeps.push_back(scenes::RunEpsilonSweep(name, epsilons));
    const auto& s = sweeps.back();
    std::cout << name << ": reference q_o(T) at epsilon = 0: (" << s.reference(0) << ", " << s.reference(1) << ", "
              << s.reference(2) << "), log-log slope over [2^-30, 2^-10]: "
              << scenes::LogLogSlope(s, std::ldexp(1.0, -30), std::ldexp(1.0, -10)) << "\n";
  }
  const std::filesystem::path dir(args.output_dir);
  const std::string csv = (dir / "eps_sweep.csv").string();
  {
    std::ofstream out(csv);
    if (!out) throw CLI::RuntimeError("cannot write " + csv, 2);
    scenes::WriteSweepCsv(sweeps, out);
    CloseOutput(out, "the sweep", csv);
  }
  std::cout << "wrote " << csv << "\n";
  std::string note;
  scenes::PlotSweep(sweeps, csv, (dir / "eps_sweep.gp").string(), (dir / "eps_sweep.png").string(), &note);
  std::cout << note << "\n";
}

}  // namespace

void AddQuasistaticCommand(CLI::App& app) {
  CLI::App* qs_app = app.add_subcommand(
      "quasistatic", "quasi-static planar manipulation with finite feedback (Halm & Posa 2018): examples and sweep");
  qs_app->require_subcommand(1);

  qs_app->add_subcommand("list", "list the built-in examples")->callback([]() {
    for (const auto& info : scenes::ListExamples()) {
      std::cout << info.name << "  (default epsilon " << info.default_epsilon << ")\n    " << info.description << "\n";
    }
  });

  auto run_args = std::make_shared<RunArgs>();
  CLI::App* run = qs_app->add_subcommand("run", "simulate one example and optionally write its trajectory CSV");
  run->add_option("example", run_args->example, "example name (see `tamsi quasistatic list`)")->required();
  run->add_option("--epsilon", run_args->epsilon, "feedback scaling epsilon >= 0 (default: the example's)")
      ->check(NonNegative());
  run->add_option("--output", run_args->output, "trajectory CSV path (a .gp script and .png plot go beside it)");
  run->add_flag("--full-report", run_args->full, "print the full run summary");
  run->callback([run_args]() { RunExample(*run_args); });

  auto sweep_args = std::make_shared<SweepArgs>();
  CLI::App* sweep = qs_app->add_subcommand(
      "sweep",
      "final-pose error against epsilon = 2^(4-n), n = 2..70, for the three disk pushes (CSV and log-log PNG)");
  sweep->add_option("--output-dir", sweep_args->output_dir, "directory for eps_sweep.csv/.gp/.png");
  sweep
      ->add_option(
          "--n-last", sweep_args->n_last,
          "last n of the sweep, whose epsilons are 2^(4 - n) for n = 2 ... n-last (default 70; at least 15, so "
          "that the log-log slope over [2^-30, 2^-10] has two points)")
      ->check(CLI::Range(15, 1000));
  sweep->callback([sweep_args]() { RunSweep(*sweep_args); });
}

}  // namespace tamsi::cli
