#pragma once
/// @file
/// The matplotlib scripts that `tamsi run --plots` and `tamsi study` embed (plot_run.py, plot_study.py): written
/// beside the CSVs they read, so the figures can be redrawn from the CSVs, and run with Debian's Python.

#include <filesystem>
#include <string>

namespace tamsi::cli {

/// Writes `script_text` to `dir`/`script_name` and runs TAMSI_PYTHON on it with `dir` as its argument. Throws
/// CLI::RuntimeError (exit code 1) starting with `what` when the script cannot be written or the run fails.
void RunPlotScript(const std::string& what, const std::string& script_text, const std::string& script_name,
                   const std::filesystem::path& dir);

}  // namespace tamsi::cli
