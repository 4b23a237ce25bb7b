#include "plot_script.h"

#include <spawn.h>
#include <sys/wait.h>

#include <CLI/CLI.hpp>
#include <fstream>

extern char** environ;

namespace tamsi::cli {

void RunPlotScript(const std::string& what, const std::string& script_text, const std::string& script_name,
                   const std::filesystem::path& dir) {
  const std::filesystem::path script = dir / script_name;
  {
    std::ofstream out(script);
    out << script_text;
    if (!out) throw CLI::RuntimeError(what + ": cannot write '" + script.string() + "'", 1);
  }
  std::string python = TAMSI_PYTHON, script_path = script.string(), dir_path = dir.string();
  char* argv[] = {python.data(), script_path.data(), dir_path.data(), nullptr};
  pid_t pid = -1;
  int status = 0;
  if (posix_spawn(&pid, python.c_str(), nullptr, nullptr, argv, environ) != 0 || waitpid(pid, &status, 0) < 0 ||
      !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw CLI::RuntimeError(what + ": " + python + " " + script_path +
                                " failed (matplotlib is Debian's python3-matplotlib; see the message above)",
                            1);
  }
}

}  // namespace tamsi::cli
