// Whole-step benchmarks of the MuJoCo front end + TAMSI, side by side with MuJoCo's (4.0) own Newton and CG solvers
// on the same models: the paper's gripper_mug_shake (5 s runs) and settled clutter piles (one step from rest).
//
// Engines (second argument): 0 = TAMSI's defaults (two-way, primal–dual friction Newton, GMRES on a Cholesky of the
// symmetric part M + h(W_nn + W_tt), support plane–mesh narrow phase), 1 = MuJoCo Newton, 2 = MuJoCo CG,
// 3 = TAMSI two-way with factorization reuse (GMRES on kept factorizations), 4 = TAMSI one-way (CHOLMOD), 5 = TAMSI
// primal–dual with an exact LU per iteration, 6 = the paper's iteration (eq. 16 tangent, TALS + exact line search,
// secant safeguard) with an exact LU per iteration (the solver's defaults before the primal–dual iteration), 7 = TAMSI
// with MuJoCo's own plane–mesh collider (NarrowPhase::kMujoco), 8 = TAMSI's defaults with a Cholesky
// of the symmetric part for every island (no Schwarz), 9 = TAMSI's defaults with overlapping Schwarz for every sparse
// island (Options::schwarz_threshold; engine 0 picks between the two by island size). Counters split each step
// into the front end (MuJoCo kinematics, collision, forces, assembly; for MuJoCo's engine: everything but its
// constraint solver) and the solve, and TAMSI's solve into its phases. The whole runs (gripper and robot scenes) also
// run untimed (argument timed:0, SimulatorOptions::solver.time_phases false: no phase clocks in TAMSI's step, MuJoCo's
// timers off), the engines as an application that does not profile runs them: the fair comparison of their speed.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <tamsi/scenes/run.h>
#include <tamsi/scenes/scene_library.h>
#include <tamsi/scenes/simulator.h>

#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "thread_counts.h"

namespace tamsi::scenes {
namespace {

SimulatorOptions OptionsFor(int engine, const Scene& scene, int threads = 1) {
  SimulatorOptions options;
  options.solver.num_threads = threads;
  options.engine = engine == 1 || engine == 2 ? Engine::kMujoco : Engine::kTamsi;
  if (engine == 3) options.solver.newton_solve = NewtonSolve::kReuseFactorization;
  if (engine == 5 || engine == 6) options.solver.newton_solve = NewtonSolve::kExact;
  if (engine == 6) options.solver.friction_newton = FrictionNewton::kTangent;
  if (engine == 4) options.solver.coupling = Coupling::kOneWay;
  if (engine == 7) options.narrow_phase = NarrowPhase::kMujoco;
  if (engine == 8) options.solver.schwarz_threshold = std::numeric_limits<int>::max();
  if (engine == 9) {
    options.solver.schwarz_threshold = 1;
    options.solver.cholesky_flops_per_velocity = 0.0;
  }
  options.mujoco_solver = engine == 1 ? mjSOL_NEWTON : engine == 2 ? mjSOL_CG : -1;
  options.contact = scene.contact;
  options.solver.stiction_tolerance = scene.stiction_tolerance;
  return options;
}

const char* EngineName(int engine) {
  static const char* const kNames[] = {"tamsi",       "mujoco_newton", "mujoco_cg", "tamsi_reuse",    "tamsi_oneway",
                                       "tamsi_exact", "tamsi_tangent", "tamsi_mpr", "tamsi_cholesky", "tamsi_schwarz"};
  return kNames[engine];
}

double PeakResidentMib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;  // Linux: KiB
}

void ReportStatistics(benchmark::State& state, const RunStatistics& stats, int engine, bool timed = true) {
  state.SetLabel(EngineName(engine));
  const double steps = static_cast<double>(std::max(1LL, stats.steps));
  state.counters["contacts"] = stats.contacts_mean();
  state.counters["iterations"] = stats.iterations_mean();
  state.counters["retried"] = static_cast<double>(stats.retried_steps);
  if (!timed) return;
  state.counters["frontend_ms"] = 1e3 * stats.time_frontend / steps;
  state.counters["solve_ms"] = 1e3 * stats.time_solve / steps;
  if (engine == 1 || engine == 2) return;
  const SolveCounters& p = stats.counters;
  state.counters["assembly_ms"] = 1e3 * (p.time_residual + p.time_assembly) / steps;
  state.counters["factor_ms"] = 1e3 * (p.time_symbolic + p.time_numeric) / steps;
  state.counters["linsolve_ms"] = 1e3 * p.time_solve / steps;
  state.counters["linesearch_ms"] = 1e3 * p.time_line_search / steps;
  state.counters["factorizations"] = static_cast<double>(p.numeric_factorizations) / steps;
  state.counters["krylov_its"] = static_cast<double>(p.krylov_iterations) / steps;
}

// The paper's Sec. VI-A run: 5 s of gripper_mug_shake at h = 3 ms (1667 steps) per iteration.
void BM_GripperMugShakeRun(benchmark::State& state) {
  const int engine = static_cast<int>(state.range(0));
  const bool timed = state.range(1) != 0;
  RunStatistics total;
  for (auto _ : state) {
    state.PauseTiming();
    Scene scene = LoadScene("gripper_mug_shake");
    SimulatorOptions options = OptionsFor(engine, scene);
    options.solver.time_phases = timed;
    Run run(std::move(scene), options, RunRequest{});
    state.ResumeTiming();
    while (run.time() < 5.0 - 1e-9) run.Step();
    total += run.simulator().statistics();
  }
  ReportStatistics(state, total, engine, timed);
  state.counters["real_time_rate"] = total.real_time_rate();
}
BENCHMARK(BM_GripperMugShakeRun)
    ->ArgNames({"engine", "timed"})
    ->Args({0, 1})
    ->Args({6, 1})
    ->Args({7, 1})
    ->Args({1, 1})
    ->Args({2, 1})
    ->Args({0, 0})
    ->Args({1, 0})
    ->Unit(benchmark::kMillisecond);

// The robot scenes, whole runs wired as `tamsi run` wires them (scenes::Run: controller, sensor, checks;
// robotiq_grasp 2 s, allegro_mug 15 s, iiwa_pick_shake_place 10 s) per iteration: TAMSI's defaults (engine 0) against
// MuJoCo's Newton solver (engine 1) on the same model. Their robots come from the models folder (TAMSI_MODELS_DIR,
// README "Models"): without it each is skipped with the scene's error.
// Scene index 0: robotiq_grasp, 1: allegro_mug, 2: iiwa_pick_shake_place.
void BM_RobotSceneRun(benchmark::State& state) {
  const char* names[] = {"robotiq_grasp", "allegro_mug", "iiwa_pick_shake_place"};
  const char* name = names[state.range(0)];
  const int engine = static_cast<int>(state.range(1));
  const bool timed = state.range(2) != 0;
  try {
    LoadScene(name);
  } catch (const ThirdPartyModelError& e) {
    state.SkipWithError(e.what());
    return;
  }
  RunStatistics total;
  for (auto _ : state) {
    state.PauseTiming();
    Scene scene = LoadScene(name);
    SimulatorOptions options = OptionsFor(engine, scene);
    options.solver.time_phases = timed;
    Run run(std::move(scene), options, RunRequest{});
    state.ResumeTiming();
    while (run.time() < run.duration() - 1e-9) run.Step();
    total += run.simulator().statistics();
  }
  ReportStatistics(state, total, engine, timed);
  state.counters["real_time_rate"] = total.real_time_rate();
  state.SetLabel(name);
}
BENCHMARK(BM_RobotSceneRun)
    ->ArgNames({"scene", "engine", "timed"})
    ->ArgsProduct({{0, 1, 2}, {0, 1}, {1, 0}})
    ->Unit(benchmark::kMillisecond);

// A settled pile of N bodies: N = 100 is clutter_bin settled by TAMSI here (seed 1); larger N are the files
// $TAMSI_PILES_DIR/settled_pile_N<N>.xml (`tamsi pile --bodies N --output …`, or any settled pile), so every engine
// starts from the same pile.
Scene PileScene(int n) {
  if (n <= 100) {
    SceneOptions options;
    options.clutter_bodies = n;
    return LoadScene("clutter_bin", options);
  }
  const char* folder = std::getenv("TAMSI_PILES_DIR");
  const std::string file = "settled_pile_N" + std::to_string(n) + ".xml";
  if (folder == nullptr || *folder == '\0') {
    throw std::runtime_error("needs " + file + " in TAMSI_PILES_DIR (unset): make it with `tamsi pile --bodies " +
                             std::to_string(n) + " --output DIR/" + file + "` and set TAMSI_PILES_DIR=DIR");
  }
  return LoadScene(std::string(folder) + "/" + file);
}

std::unique_ptr<Simulator>& CachedPile(int n, int engine, int threads) {
  static std::map<std::tuple<int, int, int>, std::unique_ptr<Simulator>> cache;
  auto& sim = cache[{n, engine, threads}];
  if (!sim) {
    Scene scene = PileScene(n);
    if (n <= 100) {
      // Settle with TAMSI, then hand the resting state to the engine under test.
      Simulator settler(LoadScene("clutter_bin", SceneOptions{n, 1}).model, OptionsFor(0, scene), -1);
      Settle(&settler, 1e-2, 3.0);
      for (int k = 0; k < scene.model->nq; ++k) scene.model->qpos0[k] = settler.data().qpos[k];
    }
    sim = std::make_unique<Simulator>(std::move(scene.model), OptionsFor(engine, scene, threads), -1);
  }
  return sim;
}

/// Arguments: N, engine (see the top), and the TAMSI thread budget (1 for MuJoCo, which is serial).
void BM_ClutterBinStep(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const int engine = static_cast<int>(state.range(1));
  const int threads = static_cast<int>(state.range(2));
  std::unique_ptr<Simulator>* sim = nullptr;
  try {
    sim = &CachedPile(n, engine, threads);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  (*sim)->ResetStatistics();
  for (auto _ : state) {
    try {
      (*sim)->Step();
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      break;
    }
  }
  ReportStatistics(state, (*sim)->statistics(), engine);
  state.counters["nv"] = (*sim)->model().nv;
  // The process's peak so far: run one N per process (--benchmark_filter) for the peak of that pile alone.
  state.counters["peak_rss_mib"] = PeakResidentMib();
}
void PilesAndEngines(benchmark::internal::Benchmark* b) {
  b->ArgNames({"N", "engine", "threads"})->Unit(benchmark::kMillisecond);
  for (int n : {100, 500, 1000, 3000, 10000}) {
    for (int engine : {0, 3, 4, 5, 6, 8, 9}) b->Args({n, engine, 1});
    // MuJoCo's own solvers: CG at every N, Newton up to N = 3,000.
    for (int engine : {1, 2})
      if (engine == 2 || n <= 3000) b->Args({n, engine, 1});
    // TAMSI's thread scaling on the piles: 2, 4, … up to the hardware threads.
    for (int threads : bench::ThreadCounts())
      if (threads > 1 && n >= 500)
        for (int engine : {0, 5, 8, 9}) b->Args({n, engine, threads});
  }
}
BENCHMARK(BM_ClutterBinStep)->Apply(PilesAndEngines);

}  // namespace
}  // namespace tamsi::scenes
