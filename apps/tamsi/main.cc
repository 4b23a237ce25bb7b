#include "commands.h"

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"tamsi: compliant contact with regularized friction, sparse and parallel (Castro, Qu et al. 2020)"};
  app.require_subcommand(0, 1);
  tamsi::cli::AddSolveCommand(app);
  tamsi::cli::AddRunCommand(app);
  tamsi::cli::AddListCommand(app);
  tamsi::cli::AddQuasistaticCommand(app);
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
