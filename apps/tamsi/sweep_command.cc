#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "commands.h"

namespace tamsi::cli {
namespace {

namespace fs = std::filesystem;

/// The folder holding the Python package tamsi: the installed one beside this executable (PREFIX/bin/tamsi and
/// PREFIX/TAMSI_PYTHON_INSTALL_PACKAGE/tamsi), else the build tree's; "" when neither has it.
std::string PackageRoot() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path installed = exe.parent_path().parent_path() / TAMSI_PYTHON_INSTALL_PACKAGE;
  for (const fs::path& root : {installed, fs::path(TAMSI_PYTHON_BUILD_PACKAGE)}) {
    if (!ec && fs::exists(root / "tamsi" / "sweep.py")) return root.string();
  }
  return "";
}

void RunSweep(const std::vector<std::string>& arguments) {
  const std::string root = PackageRoot();
  if (root.empty())
    throw CLI::RuntimeError("tamsi sweep needs the Python package tamsi (configure with -DTAMSI_BUILD_PYTHON=ON)", 2);
  const char* previous = std::getenv("PYTHONPATH");
  const std::string path = root + (previous && *previous ? std::string(":") + previous : "");
  setenv("PYTHONPATH", path.c_str(), 1);
  std::vector<std::string> words{TAMSI_PYTHON, "-m", "tamsi.sweep"};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  execv(TAMSI_PYTHON, argv.data());
  throw CLI::RuntimeError(std::string("cannot run ") + TAMSI_PYTHON + ": " + std::strerror(errno), 1);
}

}  // namespace

void AddSweepCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Run a parameter sweep SPEC.json on a Dask cluster (python3 -m tamsi.sweep; tamsi sweep --help for its flags)");
  cmd->prefix_command();
  cmd->set_help_flag();  // --help goes to the Python module, which documents the flags
  cmd->callback([cmd] { RunSweep(cmd->remaining()); });
}

}  // namespace tamsi::cli
