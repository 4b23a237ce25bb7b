#include <spawn.h>
#include <sys/wait.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "commands.h"
#include "plot_study_script.h"
#include "study.h"

extern char** environ;

namespace tamsi::cli {
namespace {

void DrawFigures(const StudySettings& settings) {
  const std::filesystem::path script = settings.output / "plot_study.py";
  {
    std::ofstream out(script);
    out << kPlotStudyScript;
    if (!out) throw CLI::RuntimeError("study: cannot write '" + script.string() + "'", 1);
  }
  std::string python = TAMSI_PYTHON, script_path = script.string(), dir = settings.output.string();
  char* argv[] = {python.data(), script_path.data(), dir.data(), nullptr};
  pid_t pid = -1;
  int status = 0;
  if (posix_spawn(&pid, python.c_str(), nullptr, nullptr, argv, environ) != 0 || waitpid(pid, &status, 0) < 0 ||
      !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw CLI::RuntimeError("study: " + python + " " + script_path +
                                " failed (matplotlib is Debian's python3-matplotlib; see the message above)",
                            1);
  }
}

}  // namespace

std::ofstream OpenStudyCsv(const StudySettings& settings, const std::string& name) {
  const std::filesystem::path path = settings.output / name;
  std::ofstream out(path);
  if (!out) throw CLI::RuntimeError("study: cannot write '" + path.string() + "'", 1);
  out.precision(10);
  return out;
}

void AddStudyCommand(CLI::App& app) {
  auto figure = std::make_shared<std::string>("all");
  auto settings = std::make_shared<StudySettings>();
  auto output = std::make_shared<std::string>("paper_study");
  CLI::App* cmd = app.add_subcommand(
      "study", "The paper's integrator study: implicit Euler with/without TALS against TAMSI (docs/paper_study.md)");
  cmd->add_option("figure", *figure, "fig4, fig5, fig7, fig8, allegro or all")
      ->check(CLI::IsMember({"fig4", "fig5", "fig7", "fig8", "allegro", "all"}));
  cmd->add_option("--output", *output, "Directory for the CSVs and PNGs (created)");
  cmd->add_flag("--quick", settings->quick, "Coarse sweeps, references and spans (seconds; for CI)");
  cmd->callback([figure, settings, output] {
    settings->output = *output;
    std::error_code ec;
    std::filesystem::create_directories(settings->output, ec);
    if (ec || !std::filesystem::is_directory(settings->output))
      throw CLI::RuntimeError("--output: cannot create directory '" + *output + "'", 2);
    const bool all = *figure == "all";
    if (all || *figure == "fig4") StudyFigure4(*settings);
    if (all || *figure == "fig5") StudyFigure5(*settings);
    if (all || *figure == "fig7") StudyFigure7(*settings);
    if (all || *figure == "fig8") StudyFigure8(*settings);
    if (all || *figure == "allegro") StudyAllegro(*settings);
    DrawFigures(*settings);
    std::cout << "wrote " << settings->output.string() << "\n";
  });
}

}  // namespace tamsi::cli
