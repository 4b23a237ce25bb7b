// `tamsi pile`: a settled pile of clutter_bin's bodies as an MJCF file (scenes::SettledPileXml), the benchmarks'
// inputs.
#include <tamsi/scenes/scene_library.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "commands.h"

namespace tamsi::cli {
namespace {

struct PileArgs {
  int bodies{500};
  unsigned seed{1};
  double settle_time{2.0};
  std::string output;
};

void MakePile(const PileArgs& args) {
  scenes::SceneOptions options;
  options.clutter_bodies = args.bodies;
  options.clutter_seed = args.seed;
  double mean_speed = 0.0, max_speed = 0.0;
  std::string xml;
  try {
    xml = scenes::SettledPileXml(options, args.settle_time, &mean_speed, &max_speed);
  } catch (const std::invalid_argument& e) {
    throw CLI::RuntimeError(e.what(), 2);
  }
  std::ofstream file(args.output, std::ios::binary);
  file << xml;
  CloseOutput(file, "pile", args.output);
  std::cout << args.bodies << " bodies (seed " << args.seed << ") after " << args.settle_time
            << " s under MuJoCo's CG: mean speed " << mean_speed << " m/s, largest " << max_speed << " m/s; wrote "
            << args.output << "\n";
}

}  // namespace

void AddPileCommand(CLI::App& app) {
  auto args = std::make_shared<PileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "pile", "Drop clutter_bin's bodies, let them settle under MuJoCo's CG solver and write the pile as MJCF");
  cmd->add_option("--bodies", args->bodies, "Number of bodies (default 500)")->check(CLI::Range(1, 100000));
  cmd->add_option("--seed", args->seed, "Random seed of the bodies' shapes and drop poses (default 1)");
  cmd->add_option("--settle-time", args->settle_time, "Simulated seconds of settling (default 2)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--output", args->output, "MJCF file to write, e.g. settled_pile_N500.xml")->required();
  cmd->callback([args] { MakePile(*args); });
}

}  // namespace tamsi::cli
