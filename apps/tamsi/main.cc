#include <mujoco/mujoco.h>
#include <tamsi/blas_runtime.h>

#include <exception>
#include <iostream>
#include <string>

#include "commands.h"

namespace {

/// `tamsi --version`: this build and what it runs on (MuJoCo's version, the OpenBLAS kernels this CPU got).
std::string VersionText() {
  return std::string("tamsi ") + TAMSI_VERSION + "\nMuJoCo " + mj_versionString() + "\nBLAS " + tamsi::BlasKernels();
}

}  // namespace

int main(int argc, char** argv) {
  tamsi::RestartWithOpenBlasSettings(argv);
  CLI::App app{"tamsi: compliant contact with regularized friction, sparse and parallel (Castro, Qu et al. 2020)"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", VersionText, "Print tamsi's version, MuJoCo's, and the BLAS kernels in use");
  // A bad flag or argument is one line, CLI11's message alone (its default adds "Run with --help ...").
  app.failure_message([](const CLI::App*, const CLI::Error& e) { return std::string(e.what()) + "\n"; });
  tamsi::cli::AddSolveCommand(app);
  tamsi::cli::AddRunCommand(app);
  tamsi::cli::AddRenderCommand(app);
  tamsi::cli::AddListCommand(app);
  tamsi::cli::AddPileCommand(app);
  tamsi::cli::AddCompileCommand(app);
  tamsi::cli::AddQuasistaticCommand(app);
  tamsi::cli::AddStudyCommand(app);
  tamsi::cli::AddSweepCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {  // a subcommand failed: its message, its exit code
    std::cerr << "tamsi: " << e.what() << "\n";
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {  // bad flags or arguments: CLI11's message, exit status 2
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::cerr << "tamsi: " << e.what() << "\n";
    return 1;
  }
  if (app.get_subcommands().empty()) {
    std::cout << app.help();
  }
  return 0;
}
