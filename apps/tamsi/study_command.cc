#include <tamsi/scenes/scene_library.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "commands.h"
#include "plot_script.h"
#include "plot_study_script.h"
#include "study.h"

namespace tamsi::cli {
namespace {

void DrawFigures(const StudySettings& settings) {
  RunPlotScript("study", kPlotStudyScript, "plot_study.py", settings.output);
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
    CreateOutputDirectory("--output", *output);
    const bool all = *figure == "all";
    if (all || *figure == "fig4") StudyFigure4(*settings);
    if (all || *figure == "fig5") StudyFigure5(*settings);
    if (all || *figure == "fig7") StudyFigure7(*settings);
    if (all || *figure == "fig8") StudyFigure8(*settings);
    if (all || *figure == "allegro") {
      // allegro_mug's hand comes from the models folder (README, "Models"): without it `all` draws the rest.
      try {
        StudyAllegro(*settings);
      } catch (const scenes::ThirdPartyModelError& e) {
        if (!all) throw CLI::RuntimeError(e.what(), 2);
        std::cerr << "study: allegro skipped: " << e.what() << "\n";
      }
    }
    DrawFigures(*settings);
    std::cout << "wrote " << settings->output.string() << "\n";
  });
}

}  // namespace tamsi::cli
