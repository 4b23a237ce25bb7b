#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <iostream>

#include "commands.h"

// OpenBLAS, when it is the BLAS behind SuiteSparse, spawns its own threads inside every factorization: they fight
// TBB for the cores and make factorizations depend on the BLAS thread count. tamsi parallelizes with TBB under
// --threads, so BLAS runs on one thread. Weak: absent with other BLAS implementations.
extern "C" void openblas_set_num_threads(int num_threads) __attribute__((weak));

int main(int argc, char** argv) {
  // The threaded OpenBLAS starts its worker threads when it loads, before main(), and reads OPENBLAS_NUM_THREADS only
  // then; under an address-space limit their buffers fail to allocate and they retry forever, so the process hung at
  // exit. Unless the caller chose a count, the command sets one thread and starts itself again, once (the same binary
  // and arguments). Its serial build would start none, but it is not safe to call from several threads at once.
  if (std::getenv("OPENBLAS_NUM_THREADS") == nullptr && setenv("OPENBLAS_NUM_THREADS", "1", 1) == 0) {
    execv("/proc/self/exe", argv);  // returns only when it fails: go on in this process
  }
  if (openblas_set_num_threads != nullptr) openblas_set_num_threads(1);
  CLI::App app{"tamsi: compliant contact with regularized friction, sparse and parallel (Castro, Qu et al. 2020)"};
  app.require_subcommand(0, 1);
  // A bad flag or argument is one line, CLI11's message alone (its default adds "Run with --help ...").
  app.failure_message([](const CLI::App*, const CLI::Error& e) { return std::string(e.what()) + "\n"; });
  tamsi::cli::AddSolveCommand(app);
  tamsi::cli::AddRunCommand(app);
  tamsi::cli::AddRenderCommand(app);
  tamsi::cli::AddListCommand(app);
  tamsi::cli::AddPileCommand(app);
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
