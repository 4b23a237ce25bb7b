#include <tamsi/scenes/scene_library.h>

#include <cstdio>
#include <iostream>

#include "commands.h"

namespace tamsi::cli {

void AddListCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("list", "List the built-in scenes with one-line descriptions");
  cmd->callback([] {
    for (const auto& scene : scenes::BuiltinScenes()) {
      char line[256];
      std::snprintf(line, sizeof(line), "%-20s %s%s", scene.name.c_str(), scene.description.c_str(),
                    scene.name == scenes::DefaultSceneName() ? " [default]" : "");
      std::cout << line << "\n";
    }
    std::cout << "(any MJCF file path is accepted as a scene too)\n";
  });
}

}  // namespace tamsi::cli
