#pragma once
/// @file
/// The subcommands of the `tamsi` command line. Each Add*Command registers one subcommand on the app; its callback
/// throws CLI::RuntimeError(message, exit_code) on failure (exit code 2 for bad input, 1 for a failed run).

#include <tamsi/tamsi_solver.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <optional>
#include <string>

namespace tamsi::cli {

/// `tamsi solve PROBLEM.json`: replays a dumped problem.
void AddSolveCommand(CLI::App& app);

/// `tamsi quasistatic list|run EXAMPLE [--epsilon E] [--output CSV]|sweep [--output-dir DIR]`: the quasi-static
/// finite-feedback examples (quasistatic/README.md).
void AddQuasistaticCommand(CLI::App& app);

/// `tamsi run [SCENE|model.xml] [...]`: simulates a built-in scene or an MJCF model (DESIGN.md, "The command line").
void AddRunCommand(CLI::App& app);

/// `tamsi render SCENE TRAJECTORY.csv [--video FILE] [--html FILE] [...]`: draws a saved run (view_options.h).
void AddRenderCommand(CLI::App& app);

/// `tamsi sweep SPEC.json [--scheduler ADDRESS] [--workers N] [--output DIR]`: runs the Python package's sweep
/// (python/tamsi/sweep.py) with Debian's Python, every argument passed on.
void AddSweepCommand(CLI::App& app);

/// `tamsi study fig4|fig5|fig7|fig8|all --output DIR [--quick]`: the paper's integrator study (study.h).
void AddStudyCommand(CLI::App& app);

/// `tamsi list`: the built-in scenes with one-line descriptions.
void AddListCommand(CLI::App& app);
/// `tamsi pile --bodies N [--seed S] [--settle-time T] --output FILE`: a settled pile as MJCF (pile_command.cc).
void AddPileCommand(CLI::App& app);
/// `tamsi compile MODEL --output FILE.mjb`: a model compiled once and saved as MuJoCo's binary model, which loads
/// without MuJoCo's compiler (compile_command.cc).
void AddCompileCommand(CLI::App& app);

/// Closes a file a command wrote and throws CLI::RuntimeError (exit status 1) naming it, as "cannot write <what>
/// '<path>'", when any write to it failed (a full disk, /dev/full, a folder removed under the run): no output is lost
/// silently. The check alone, without closing: CheckOutput.
void CloseOutput(std::ofstream& out, const std::string& what, const std::string& path);
void CheckOutput(const std::ofstream& out, const std::string& what, const std::string& path);

/// Creates the folder `dir` (and its parents) that `flag` names; throws CLI::RuntimeError (exit status 2), as
/// "<flag>: cannot create directory '<dir>'" and the system's reason, when it cannot be made or is not a folder.
void CreateOutputDirectory(const std::string& flag, const std::string& dir);

/// Whether two paths name the same file, existing or not (after resolving links, `.` and `..`); false when either
/// is empty.
bool SamePath(const std::string& a, const std::string& b);

/// An exclusive advisory lock (flock) on a regular output file, held while the object lives, so that a second run
/// writing the same file is refused instead of interleaving its rows with the first's. Taken before the file is
/// truncated; throws CLI::RuntimeError (exit status 2), naming `what` and `path`, when another process holds it.
/// Devices and pipes (/dev/null, /dev/stdout) are not locked; a path that cannot be opened is left to the writer to
/// report.
class OutputLock {
 public:
  OutputLock(const std::string& path, const std::string& what);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  int fd_{-1};
};

/// An advisory lock on PATH.lock (an OutputLock), held while the object lives and the file removed with it, for an
/// output that is replaced or filled rather than written in place (a checkpoint renamed over, a folder of problem
/// files): a second run on the same path is refused (exit status 2) naming "the <what> lock file 'PATH.lock'".
class LockFile {
 public:
  LockFile(const std::string& path, const std::string& what);
  ~LockFile();
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;

 private:
  std::string lock_path_;
  OutputLock lock_;
};

/// Flag validators whose errors fit one line and quote the value as given ("--dt: must be finite and > 0, got -1");
/// CLI11's own PositiveNumber prints its 309-digit upper bound.
CLI::Validator Positive();
CLI::Validator NonNegative();
CLI::Validator AtMost(double bound);

/// The solver flags of every command that solves (`solve`, `run`), declared once: one flag per setting named as its
/// Options field in kebab-case, enums by their ToString names (FromString; kebab-case and older spellings accepted as
/// aliases): --coupling (alias --oneway), --regularization (alias --smooth-friction), --line-search (aliases --no-tals,
/// --plain-tals), --linear-solver, --newton-solve, --friction-newton, --relative-tolerance, --max-iterations,
/// --threads, --krylov-tolerance, --schwarz-threshold, --cholesky-flops-per-velocity, --schwarz-part-bodies,
/// --no-secant-safeguard, --no-phase-times (time_phases); and --stiction-tolerance into *stiction_tolerance (unset:
/// the command's default v_s).
void AddSolverOptions(CLI::App* cmd, Options* options, std::optional<double>* stiction_tolerance);

}  // namespace tamsi::cli
