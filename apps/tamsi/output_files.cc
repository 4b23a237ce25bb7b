#include "commands.h"

namespace tamsi::cli {

void CheckOutput(const std::ofstream& out, const std::string& what, const std::string& path) {
  if (!out) throw CLI::RuntimeError("cannot write " + what + " '" + path + "' (disk full, or not writable)", 1);
}

void CloseOutput(std::ofstream& out, const std::string& what, const std::string& path) {
  if (out.is_open()) out.close();
  CheckOutput(out, what, path);
}

}  // namespace tamsi::cli
