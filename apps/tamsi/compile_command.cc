// `tamsi compile`: an MJCF model compiled once and saved as MuJoCo's binary model (.mjb), which `tamsi run` and every
// other loader of a model file then read without MuJoCo's compiler (scenes::LoadModelFromFile).
#include <tamsi/scenes/mujoco_model.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"

namespace tamsi::cli {
namespace {

struct CompileArgs {
  std::string model;
  std::string output;
};

void Compile(const CompileArgs& args) {
  if (!scenes::IsBinaryModelPath(args.output)) {
    throw CLI::RuntimeError(
        "--output: must end in .mjb (a binary model is read by its extension), got '" + args.output + "'", 2);
  }
  if (SamePath(args.model, args.output)) {
    throw CLI::RuntimeError("--output: '" + args.output + "' is the model itself", 2);
  }
  const auto start = std::chrono::steady_clock::now();
  scenes::ModelPtr model;
  try {
    model = scenes::LoadModelFromFile(args.model);
  } catch (const std::exception& e) {  // missing, malformed or unusable model
    throw CLI::RuntimeError(e.what(), 2);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::vector<char> bytes = scenes::ModelBinary(*model);
  std::ofstream file(args.output, std::ios::binary);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  CloseOutput(file, "binary model", args.output);
  std::cout << args.model << ": " << model->nbody - 1 << " bodies, nv = " << model->nv << ", loaded in " << seconds
            << " s; wrote " << args.output << " (" << bytes.size() << " bytes, MuJoCo " << mj_versionString() << ")\n";
}

}  // namespace

void AddCompileCommand(CLI::App& app) {
  auto args = std::make_shared<CompileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compile",
      "Compile an MJCF model once and save MuJoCo's binary model (.mjb), which tamsi run loads without compiling "
      "(MuJoCo's compiler takes about 20 s for a 10,000-body pile)");
  cmd->add_option("model", args->model, "MJCF file (or a .mjb, saved again)")->required();
  cmd->add_option("--output", args->output, "Binary model to write, ending in .mjb")->required();
  cmd->callback([args] { Compile(*args); });
}

}  // namespace tamsi::cli
