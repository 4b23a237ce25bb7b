#pragma once
/// @file
/// The outputs of `tamsi run`, each a scenes::RunObserver in its own file, made from the command's flags. An output
/// is one new file holding its observer and its Make* function, declared here and listed in kRunObservers.

#include <tamsi/scenes/run.h>

#include <memory>

#include "view_options.h"

namespace tamsi::cli {

/// The flags of `tamsi run`: the request they fill, and what only the command line has.
struct RunArgs {
  scenes::RunRequest request;
  /// --video, --html, --plots and the flags that shape them.
  ViewOptions views;
  /// --strict: exit with status 2 when the TAMSI step would leave out part of the model.
  bool strict{false};
  /// --quiet: no header and no progress lines.
  bool quiet{false};
};

/// Makes an output for a run that has resumed or settled and takes no step yet (it may write the initial state, or
/// set the simulator's problem sinks); null when the flags do not ask for it. Throws CLI::RuntimeError (exit status 2)
/// for a file or folder it cannot write, or a request it cannot serve.
using RunObserverFactory = std::unique_ptr<scenes::RunObserver> (*)(const RunArgs& args, scenes::Run* run);

/// The first time a step risks tunnelling: a warning on stderr (StepInfo::fast_bodies), --quiet or not.
std::unique_ptr<scenes::RunObserver> MakeTunnellingWarning(const RunArgs& args, scenes::Run* run);
/// --contacts: every contact of every step (ContactWriter).
std::unique_ptr<scenes::RunObserver> MakeContactsOutput(const RunArgs& args, scenes::Run* run);
/// --output: the initial state (unless resuming) and the state after every step (TrajectoryWriter).
std::unique_ptr<scenes::RunObserver> MakeTrajectoryOutput(const RunArgs& args, scenes::Run* run);
/// The end-of-run summary (RunStatistics::Report) on stdout, at the end or when a step failed.
std::unique_ptr<scenes::RunObserver> MakeRunSummary(const RunArgs& args, scenes::Run* run);
/// --dump-problems DIR, --dump-failures DIR: the problems of every step, or of every failed solve, as JSON files.
std::unique_ptr<scenes::RunObserver> MakeProblemDumps(const RunArgs& args, scenes::Run* run);
/// --video: the run drawn by MuJoCo's renderer (VideoRecorder).
std::unique_ptr<scenes::RunObserver> MakeVideoOutput(const RunArgs& args, scenes::Run* run);
/// --html: the browser replay (HtmlReplay).
std::unique_ptr<scenes::RunObserver> MakeHtmlOutput(const RunArgs& args, scenes::Run* run);
/// --plots DIR: per-step figures, the time split and the checked quantities as CSVs and PNGs.
std::unique_ptr<scenes::RunObserver> MakeRunPlots(const RunArgs& args, scenes::Run* run);
/// --checkpoint FILE: the run's full state every --checkpoint-every steps, with every output's SaveTo.
std::unique_ptr<scenes::RunObserver> MakeCheckpointer(const RunArgs& args, scenes::Run* run);
/// Unless --quiet: a progress line on stderr at most once a second (sim time, real-time rate, contacts).
std::unique_ptr<scenes::RunObserver> MakeProgressLine(const RunArgs& args, scenes::Run* run);
/// The scene's checks at the end: one line each; exit status 1 when one failed.
std::unique_ptr<scenes::RunObserver> MakeCheckReport(const RunArgs& args, scenes::Run* run);

/// Every output of `tamsi run`, in the order they see each step and the end of the run (the summary after the CSVs
/// are closed, the checks last).
inline constexpr RunObserverFactory kRunObservers[] = {MakeTunnellingWarning, MakeContactsOutput, MakeTrajectoryOutput,
                                                       MakeRunSummary,        MakeProblemDumps,   MakeVideoOutput,
                                                       MakeHtmlOutput,        MakeRunPlots,       MakeCheckpointer,
                                                       MakeProgressLine,      MakeCheckReport};

}  // namespace tamsi::cli
