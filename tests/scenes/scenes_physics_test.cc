// Scene-level physics of the MuJoCo front end + TAMSI stepping, checked against closed forms and fine ODE solutions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <tamsi/problem_io.h>
#include <tamsi/scenes/scene_library.h>
#include <tamsi/scenes/simulator.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "../solver/newton_check.h"
#include "third_party_models.h"

namespace tamsi::scenes {
namespace {

constexpr double kPi = 3.14159265358979323846;

std::unique_ptr<Simulator> MakeSimulator(Scene scene, double dt = 0.0, const Options& solver = Options(),
                                         Engine engine = Engine::kTamsi) {
  SimulatorOptions options;
  options.engine = engine;
  options.solver = solver;
  options.time_step = dt;
  options.contact = scene.contact;
  options.solver.stiction_tolerance = scene.stiction_tolerance;
  const int keyframe = FindKeyframe(*scene.model, "");
  return std::make_unique<Simulator>(std::move(scene.model), options, keyframe, scene.controller);
}

// Fine solution of the paper's 1-D box, m v̇ = f(t) − μ̃(|v|/v_s) m g sgn(v): implicit Euler with 1e-5 s steps, each
// step's scalar monotone equation solved by bisection.
std::vector<double> BoxReferenceVelocity(double duration, double sample_dt, double v_s) {
  using P = BoxStickSlipParameters;
  const double dt = 1e-5, W = P::kMass * P::kGravity;
  auto friction = [&](double v) { return P::kFriction * W * std::clamp(v / v_s, -1.0, 1.0); };
  std::vector<double> samples{0.0};
  double v = 0.0;
  const int per_sample = static_cast<int>(std::lround(sample_dt / dt));
  const int steps = static_cast<int>(std::lround(duration / dt));
  for (int n = 1; n <= steps; ++n) {
    const double t = n * dt;
    // g(x) = m (x − v)/dt − f(t) + F(x) is increasing in x.
    double lo = v - 10.0, hi = v + 10.0;
    for (int it = 0; it < 100; ++it) {
      const double mid = 0.5 * (lo + hi);
      (P::kMass * (mid - v) / dt - P::Force(t) + friction(mid) > 0 ? hi : lo) = mid;
    }
    v = 0.5 * (lo + hi);
    if (n % per_sample == 0) samples.push_back(v);
  }
  return samples;
}

TEST(BoxStickSlip, BreaksAwayOnlyAboveMuMgAndFollowsTheOneDimensionalOde) {
  using P = BoxStickSlipParameters;
  const double h = 1e-3, duration = 1.2, v_s = 1e-4;
  auto sim = MakeSimulator(LoadScene("box_stick_slip"), h);
  // Start at the static penetration m g / (4 corners × 1e4 N/m) so the normal force is m g from the first step.
  sim->data().qpos[1] = -P::kMass * P::kGravity / 4e4;
  const std::vector<double> reference = BoxReferenceVelocity(duration, h, v_s);
  const double mu_mg = P::kFriction * P::kMass * P::kGravity;
  const double t_break = std::asin(mu_mg / P::kForceAmplitude) / (2 * kPi);  // 0.1497 s
  double max_error = 0.0, max_speed = 0.0;
  const int steps = static_cast<int>(std::lround(duration / h));
  for (int n = 1; n <= steps; ++n) {
    sim->Step();
    const double t = n * h, v = sim->data().qvel[0];
    if (t < t_break - 2 * h) {
      EXPECT_LT(std::abs(v), 1.1 * v_s) << "still stuck at t = " << t;
    }
    max_error = std::max(max_error, std::abs(v - reference[n]));
    max_speed = std::max(max_speed, std::abs(v));
  }
  EXPECT_GT(max_speed, 0.1) << "the box slides after |f| > mu m g";
  EXPECT_LT(max_error, 0.02 * max_speed);
  EXPECT_EQ(sim->statistics().failed_solves, 0);
}

TEST(RestingContact, SphereOnGroundSettlesAtTheStaticPenetration) {
  constexpr char kXml[] = R"(
  <mujoco><option timestep="0.002"/><size nuser_geom="2"/>
    <worldbody><geom type="plane" size="1 1 0.1" user="10000 5"/>
      <body pos="0 0 0.05"><freejoint/><geom type="sphere" size="0.05" mass="0.5" user="10000 5"/></body>
      <body pos="0.3 0 0.0499"><freejoint/><geom type="box" size="0.05 0.05 0.05" mass="2" user="10000 5"/></body>
    </worldbody></mujoco>)";
  Scene scene;
  scene.model = LoadModelFromString(kXml, "resting");
  auto sim = MakeSimulator(std::move(scene));
  for (int n = 0; n < 1000; ++n) sim->Step();
  const double g = 9.81, k = 5000.0;                                            // two geoms of 1e4 N/m in series
  EXPECT_NEAR(-(sim->data().qpos[2] - 0.05), 0.5 * g / k, 1e-3 * 0.5 * g / k);  // sphere: one contact
  EXPECT_NEAR(-(sim->data().qpos[9] - 0.05), 2.0 * g / (4 * k), 1e-2 * 2.0 * g / (4 * k));  // box: four corners
  for (int i = 0; i < sim->model().nv; ++i) EXPECT_LT(std::abs(sim->data().qvel[i]), 1e-6);
}

TEST(GripperMugShake, MugSticksBelowTwoMuGAndSlipsAgainstTheAccelerationNearPeaks) {
  using P = GripperMugParameters;
  auto sim = MakeSimulator(LoadScene("gripper_mug_shake"));
  const double h = sim->time_step(), omega = P::Omega(), v_s = 1e-4;
  const int grip_dof = 0, mug_vz = 4;  // translate_joint; the mug's free joint linear z
  double previous_vg = sim->data().qvel[grip_dof];
  int stick_samples = 0, slip_windows_checked = 0;
  double slip_extreme = 0.0;
  const int steps = static_cast<int>(std::lround(1.5 / h));
  for (int n = 1; n <= steps; ++n) {
    sim->Step();
    const double t = sim->time(), s = std::sin(omega * t);
    const double vg = sim->data().qvel[grip_dof], v_rel = sim->data().qvel[mug_vz] - vg;
    const double inertial_load = P::kMugMass * std::abs(vg - previous_vg) / h;
    previous_vg = vg;
    if (t > 0.05 && std::abs(s) < 0.3) {  // after the pads closed; well inside the stick phase
      EXPECT_LT(inertial_load, 2 * P::kFriction * P::kGripForce);
      EXPECT_LT(std::abs(v_rel), 10 * v_s) << "t = " << t;
      ++stick_samples;
    }
    if (std::abs(s) > 0.97) {
      // Past the peak of the gripper's acceleration the mug lags: it slides against the acceleration.
      EXPECT_LT(v_rel * s, 0.0) << "t = " << t;
      slip_extreme = std::max(slip_extreme, std::abs(v_rel));
      ++slip_windows_checked;
    }
  }
  EXPECT_GT(stick_samples, 50);
  EXPECT_GT(slip_windows_checked, 10);
  EXPECT_GT(slip_extreme, 100 * v_s);
  // The pads' contacts persist, so nearly every solve keeps the previous structure and symbolic analyses.
  const RunStatistics& stats = sim->statistics();
  EXPECT_EQ(stats.solves, stats.steps);
  EXPECT_GT(stats.structure_reuses, 0.95 * stats.solves);
  EXPECT_LT(stats.structure_reuses, stats.solves);  // the first solve builds it
}

// Why TAMSI's gripper reports 16 contacts a step where MuJoCo's own run reports ~8.3: the states differ, not the
// collision. Both engines see the same 16 pad–mug pairs (margins 0). At any state, the front end's contacts are those
// of MuJoCo's own position stage (mj_forward, its libccd MPR) to MPR's tolerance; under TAMSI's compliant pads (10 N
// over k ≈ 970 N/m contacts) every pad sphere sinks into the mug, under MuJoCo's stiffer soft constraints about half.
TEST(GripperMugShake, FrontEndFindsMujocosOwnContactsAtTheSameStateAndAllPadsPenetrateUnderTamsi) {
  Scene mujoco_scene = LoadScene("gripper_mug_shake");
  SimulatorOptions mujoco_options;
  mujoco_options.engine = Engine::kMujoco;
  mujoco_options.mujoco_solver = mjSOL_NEWTON;
  Simulator mujoco(std::move(mujoco_scene.model), mujoco_options, 0, mujoco_scene.controller);
  auto tamsi = MakeSimulator(LoadScene("gripper_mug_shake"));
  // A stock MuJoCo model and data that only evaluate states.
  DataPtr probe(mj_makeData(&mujoco.model()));
  auto compare = [&](const mjData& state, const char* run, int step) {
    std::memcpy(probe->qpos, state.qpos, sizeof(double) * mujoco.model().nq);
    std::memcpy(probe->qvel, state.qvel, sizeof(double) * mujoco.model().nv);
    mj_forward(&mujoco.model(), probe.get());
    const std::vector<mjContact> own(probe->contact, probe->contact + probe->ncon);
    mj_kinematics(&mujoco.model(), probe.get());
    Collide(mujoco.model(), probe.get(), NarrowPhase::kAnalytic);
    int matched = 0;
    for (int i = 0; i < probe->ncon; ++i) {
      const mjContact& ours = probe->contact[i];
      auto same = std::find_if(own.begin(), own.end(),
                               [&](const mjContact& c) { return c.geom1 == ours.geom1 && c.geom2 == ours.geom2; });
      if (same == own.end()) {  // MPR misses exactly touching surfaces only
        EXPECT_GT(ours.dist, -1e-6) << run << " step " << step;
        continue;
      }
      ++matched;
      EXPECT_NEAR(same->dist, ours.dist, 1e-6) << run << " step " << step;
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(same->frame[k], ours.frame[k], 5e-3) << run << " step " << step;
    }
    EXPECT_EQ(matched, static_cast<int>(own.size())) << run << " step " << step;
    return static_cast<int>(own.size());
  };
  double tamsi_contacts = 0, mujoco_contacts = 0;
  int samples = 0;
  for (int n = 1; n <= 500; ++n) {
    tamsi->Step();
    mujoco.Step();
    if (n % 10 != 0) continue;
    ++samples;
    tamsi_contacts += compare(tamsi->data(), "tamsi", n);
    mujoco_contacts += compare(mujoco.data(), "mujoco", n);
    // The problem TAMSI solved at the start of this step: 16 pad contacts, every one penetrating (δ0 > 0), so each
    // carries force and none could be dropped.
    const ContactProblem& problem = tamsi->last_problem();
    ASSERT_EQ(problem.num_contacts(), 16) << "step " << n;
    EXPECT_GT(problem.delta0.minCoeff(), 1e-4) << "step " << n;
  }
  EXPECT_EQ(tamsi_contacts / samples, 16.0);
  EXPECT_LT(mujoco_contacts / samples, 12.0);
  EXPECT_GT(mujoco_contacts / samples, 4.0);
}

int caller_timer_reads = 0;
mjtNum CallerTimer() { return ++caller_timer_reads; }

// SimulatorOptions::solver.time_phases = false: no front-end, solve or phase time (all exactly 0 s), MuJoCo's timers
// off while it steps, and the same steps bitwise, under both engines (the two runs interleaved). Steps leave MuJoCo's
// global timer callback as they found it; MuJoCo's engine, timed or not, does not call the caller's. Each step's own
// wall time is measured either way, and the run's wall time is their sum.
TEST(GripperMugShake, UntimedStepsReportZeroTimesAndTakeTheSameStepsBitwise) {
  mjcb_time = &CallerTimer;
  for (const Engine engine : {Engine::kTamsi, Engine::kMujoco}) {
    std::unique_ptr<Simulator> runs[2];
    for (const bool timed : {true, false}) {
      Options solver;
      solver.time_phases = timed;
      runs[timed ? 0 : 1] = MakeSimulator(LoadScene("gripper_mug_shake"), 0.0, solver, engine);
    }
    const int nq = runs[0]->model().nq, nv = runs[0]->model().nv;
    double timed_solve = 0.0, untimed_wall = 0.0;
    caller_timer_reads = 0;  // steps only
    for (int n = 1; n <= 50; ++n) {
      timed_solve += runs[0]->Step().time_solve;
      const StepInfo untimed = runs[1]->Step();
      EXPECT_EQ(mjcb_time, &CallerTimer);
      if (engine == Engine::kMujoco) {
        EXPECT_EQ(caller_timer_reads, 0) << "step " << n;
      }
      EXPECT_EQ(untimed.time_frontend, 0.0) << "step " << n;
      EXPECT_EQ(untimed.time_solve, 0.0) << "step " << n;
      EXPECT_EQ(untimed.counters.time_total, 0.0) << "step " << n;
      EXPECT_GT(untimed.wall_time, 0.0) << "step " << n;
      untimed_wall += untimed.wall_time;
      ASSERT_TRUE(std::equal(runs[0]->data().qpos, runs[0]->data().qpos + nq, runs[1]->data().qpos)) << "step " << n;
      ASSERT_TRUE(std::equal(runs[0]->data().qvel, runs[0]->data().qvel + nv, runs[1]->data().qvel)) << "step " << n;
    }
    EXPECT_GT(timed_solve, 0.0);
    EXPECT_EQ(runs[1]->statistics().time_solve + runs[1]->statistics().time_frontend, 0.0);
    EXPECT_EQ(runs[1]->statistics().wall_time, untimed_wall);
  }
  mjcb_time = nullptr;
}

TEST(PassiveScene, TotalEnergyNeverGrows) {
  // Spheres, a capsule and a box dropped on the ground and onto each other, no actuation. Energy counts kinetic,
  // gravity and the contacts' elastic ½ k δ². A 1 cm contact margin lets the implicit normal force act within the
  // step in which a contact closes (without it, collision detection finds a contact only after it has penetrated).
  constexpr char kXml[] = R"(
  <mujoco><option timestep="0.002"/>
    <default><geom margin="0.01" friction="0.5 0.005 0.0001"/></default>
    <worldbody><geom type="plane" size="1 1 0.1"/>
      <body pos="0 0 0.06"><freejoint/><geom type="sphere" size="0.05" mass="0.2"/></body>
      <body pos="0.01 0.02 0.2"><freejoint/><geom type="sphere" size="0.04" mass="0.1"/></body>
      <body pos="0.2 0 0.1" euler="0.3 0.2 0"><freejoint/><geom type="capsule" size="0.02 0.04" mass="0.15"/></body>
      <body pos="-0.2 0 0.08"><freejoint/><geom type="sphere" size="0.03" mass="0.3"/></body>
    </worldbody></mujoco>)";
  Scene scene;
  scene.model = LoadModelFromString(kXml, "passive");
  auto sim = MakeSimulator(std::move(scene));
  sim->data().qvel[0] = 0.3;  // the first sphere also slides sideways
  ContactProblemBuilder builder(sim->model(), sim->options().contact);
  ContactProblem contacts;
  ASSERT_TRUE(builder.Build(sim->model(), &sim->data(), sim->time_step(), &contacts));
  double previous = MechanicalEnergy(sim->model(), &sim->data(), &contacts);
  const double initial = previous;
  for (int n = 0; n < 500; ++n) {
    sim->Step();
    ASSERT_TRUE(builder.Build(sim->model(), &sim->data(), sim->time_step(), &contacts));
    const double energy = MechanicalEnergy(sim->model(), &sim->data(), &contacts);
    EXPECT_LE(energy, previous + 1e-6 * initial) << "step " << n;
    previous = energy;
  }
  EXPECT_LT(previous, initial);
  EXPECT_GE(sim->statistics().contacts_max, 4);
}

TEST(ProblemDump, DumpedProblemsReplayToTheSameVelocities) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tamsi_scenes_dump_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto sim = MakeSimulator(LoadScene("gripper_mug_shake"));
  std::vector<std::string> files;
  sim->set_problem_sink([&](const ContactProblem& problem, long long step, int substep, int substeps) {
    files.push_back(
        (dir / ("p" + std::to_string(step) + "_" + std::to_string(substep) + "_" + std::to_string(substeps) + ".json"))
            .string());
    WriteProblem(problem, files.back());
  });
  std::vector<Eigen::VectorXd> velocities;
  for (int n = 0; n < 40; ++n) {
    sim->Step();
    velocities.emplace_back(Eigen::Map<const Eigen::VectorXd>(sim->data().qvel, sim->model().nv));
  }
  ASSERT_EQ(files.size(), velocities.size()) << "no step of this window needs substeps";
  TamsiSolver solver(sim->options().solver);
  for (size_t n = 0; n < files.size(); ++n) {
    const ContactProblem problem = ReadProblem(files[n]);
    ASSERT_TRUE(problem.v0.has_value());
    Result result;
    ASSERT_EQ(solver.Solve(problem, &result), Status::kSuccess);
    EXPECT_LT((result.v - velocities[n]).cwiseAbs().maxCoeff(), 1e-12) << files[n];
  }
  std::filesystem::remove_all(dir);
}

TEST(Simulator, FailedStepsAreRetriedWithSubstepsAndFinallyReported) {
  auto sim_scene = LoadScene("gripper_mug_shake");
  SimulatorOptions options;
  options.solver.max_iterations = 1;  // too few for the transitions of this scene
  options.max_halvings = 2;
  Simulator sim(std::move(sim_scene.model), options, 0, sim_scene.controller);
  // Every failed solve reaches the failure sink (--dump-failures), and its problem fails again when replayed.
  std::vector<ContactProblem> failures;
  sim.set_failure_sink([&](const ContactProblem& problem, long long, int, int) { failures.push_back(problem); });
  bool failed = false;
  for (int n = 0; n < 300 && !failed; ++n) {
    const double t = sim.time();
    const Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(sim.data().qpos, sim.model().nq);
    try {
      sim.Step();
    } catch (const StepFailedError& e) {
      failed = true;
      EXPECT_NE(std::string(e.what()).find("substeps"), std::string::npos) << e.what();
      EXPECT_EQ(sim.time(), t);
      EXPECT_EQ(Eigen::Map<const Eigen::VectorXd>(sim.data().qpos, sim.model().nq), q) << "state left intact";
    }
  }
  EXPECT_TRUE(failed);
  EXPECT_GT(sim.statistics().failed_solves, 0);
  ASSERT_EQ(static_cast<long long>(failures.size()), sim.statistics().failed_solves);
  Result replay;
  EXPECT_EQ(TamsiSolver(options.solver).Solve(failures.back(), &replay), Status::kMaxIterationsReached);
}

// 400 bodies dropped into the bin at once: the first contacts bring hundreds of simultaneous stick–slip transitions.
// Under the primal–dual iteration (the default), and under the paper's iteration with the secant safeguard, every
// solve converges at the scene's step; the paper's iteration alone needs substep retries here (30 of 100 steps,
// measured).
// SettledPileXml (`tamsi pile`) writes the pile it settled: the file's own configuration is at rest, so MuJoCo's
// solver keeps it nearly still, where the same bodies dropped from clutter_bin's start fall.
TEST(ClutterBin, SettledPileFileStartsAtRest) {
  SceneOptions options;
  options.clutter_bodies = 30;
  const std::string xml = SettledPileXml(options, 1.0);
  EXPECT_NE(xml.find("<mujoco model=\"settled_pile_N30\">"), std::string::npos);
  auto mean_speed_after = [](ModelPtr model, double duration) {
    SimulatorOptions cg;
    cg.engine = Engine::kMujoco;
    cg.mujoco_solver = mjSOL_CG;
    Simulator sim(std::move(model), cg);
    while (sim.time() < duration) sim.Step();
    double sum = 0.0;
    for (int b = 0; b < 30; ++b) sum += Eigen::Map<const Eigen::Vector3d>(sim.data().qvel + 6 * b).norm();
    return sum / 30;
  };
  EXPECT_LT(mean_speed_after(LoadModelFromString(xml, "pile"), 0.1), 0.01);
  EXPECT_GT(mean_speed_after(LoadModelFromString(ClutterBinXml(30, 1), "drop"), 0.1), 0.3);
  options.clutter_drop_speed = 1.0;
  EXPECT_THROW(SettledPileXml(options, 1.0), std::invalid_argument);
  options.clutter_drop_speed = 0.0;
  EXPECT_THROW(SettledPileXml(options, 0.0), std::invalid_argument);
}

TEST(ClutterBin, DroppedPileConvergesWithoutRetries) {
  SceneOptions scene_options;
  scene_options.clutter_bodies = 400;
  for (FrictionNewton friction_newton : {FrictionNewton::kPrimalDual, FrictionNewton::kTangent}) {
    SCOPED_TRACE(ToString(friction_newton));
    Options solver;
    solver.friction_newton = friction_newton;
    auto sim = MakeSimulator(LoadScene("clutter_bin", scene_options), 0.0, solver);
    for (int n = 0; n < 100; ++n) sim->Step();
    const RunStatistics& stats = sim->statistics();
    EXPECT_GT(stats.contacts_max, 300);
    EXPECT_EQ(stats.retried_steps, 0);
    EXPECT_EQ(stats.failed_solves, 0);
    if (friction_newton == FrictionNewton::kTangent) {
      EXPECT_GT(stats.counters.secant_iterations, 0);
    }
  }
}

// The 200-body bin thrown at 3 m/s under the paper's iteration: on its thirtieth step a solve reached the iteration
// cap, small islands cycling where their Newton directions were not descent directions of the line search's lagged
// potential. Such a dense island now steps along −S⁻¹r (the symmetric part, factored densely), and the step converges
// in 35 iterations; without it the step failed and was retried in substeps (measured). The run is bitwise the same on
// 1 and 2 threads.
TEST(ClutterBin, ThrownBinConvergesUnderThePapersIteration) {
  SceneOptions scene_options;
  scene_options.clutter_bodies = 200;
  scene_options.clutter_drop_speed = 3.0;
  std::vector<std::vector<double>> qvel;
  for (int threads : {1, 2}) {
    Options solver;
    solver.friction_newton = FrictionNewton::kTangent;
    solver.num_threads = threads;
    auto sim = MakeSimulator(LoadScene("clutter_bin", scene_options), 0.0, solver);
    for (int n = 0; n < 40; ++n) sim->Step();
    const RunStatistics& stats = sim->statistics();
    EXPECT_EQ(stats.failed_solves, 0) << threads;
    EXPECT_EQ(stats.retried_steps, 0) << threads;
    EXPECT_GT(stats.counters.symmetric_directions, 0) << threads;
    qvel.emplace_back(sim->data().qvel, sim->data().qvel + sim->model().nv);
  }
  EXPECT_EQ(std::memcmp(qvel[0].data(), qvel[1].data(), sizeof(double) * qvel[0].size()), 0);
}

// The settled 500-body pile of the piles folder (TAMSI_PILES_DIR; README, "Settled piles"). On some of its steps the
// paper's iteration (FrictionNewton::kTangent), and the primal–dual one after it falls back to it, reached the
// iteration cap in a 2-cycle: at one iterate the Newton direction is not a descent direction of the line search's
// lagged potential, and TALS alone steps back to the other iterate, about v_s away. Such an iteration now steps along
// the symmetric preconditioner's direction (SolveCounters::symmetric_directions). Whether a run meets a fallback
// depends on its last bits, so fallbacks are forced here: steps 6–9 are solved by the paper's iteration from v0 and
// with the primal–dual phase cut after 1 to 6 iterations (primal_dual_stall_iterations). Without the symmetric
// direction, step 6 reaches the cap from v0 and after 1–3 primal–dual iterations, step 7 from v0 (measured).
TEST(ClutterBin, SettledPileStepsConvergeFromAnyPrimalDualIterate) {
  const char* piles = std::getenv("TAMSI_PILES_DIR");
  if (piles == nullptr || *piles == '\0') GTEST_SKIP() << "needs TAMSI_PILES_DIR (README, \"Settled piles\")";
  auto sim = MakeSimulator(LoadScene(std::string(piles) + "/settled_pile_N500.xml"));
  std::vector<ContactProblem> problems;
  sim->set_problem_sink([&](const ContactProblem& problem, long long step, int, int) {
    if (step >= 6) problems.push_back(problem);
  });
  for (int n = 0; n < 10; ++n) sim->Step();
  const RunStatistics& stats = sim->statistics();
  EXPECT_GT(stats.contacts_max, 1800);
  EXPECT_EQ(stats.failed_solves, 0);
  EXPECT_EQ(stats.retried_steps, 0);
  ASSERT_EQ(problems.size(), 4u);
  for (size_t k = 0; k < problems.size(); ++k) {
    for (int stall : {0, 1, 2, 3, 4, 6}) {  // 0: the paper's iteration from v0
      Options options = sim->options().solver;
      options.num_threads = 1;
      if (stall == 0)
        options.friction_newton = FrictionNewton::kTangent;
      else
        options.primal_dual_stall_iterations = stall;
      Result result;
      EXPECT_EQ(TamsiSolver(options).Solve(problems[k], &result), Status::kSuccess)
          << "step " << 6 + k << ", primal-dual iterations " << stall;
      if (stall > 0) {
        EXPECT_GE(result.summary.counters.primal_dual_fallbacks, 1) << "step " << 6 + k;
      }
    }
  }
}

// Steps of a forming pile (hundreds of contacts in one island): GMRES with either preconditioner meets the exact
// Newton solution to the convergence tolerance.
TEST(ClutterBin, KrylovNewtonSolvesAgreeWithExactNewtonOnPileSteps) {
  SceneOptions scene_options;
  scene_options.clutter_bodies = 400;
  auto sim = MakeSimulator(LoadScene("clutter_bin", scene_options));
  std::vector<ContactProblem> problems;
  sim->set_problem_sink([&](const ContactProblem& problem, long long step, int, int) {
    if (step == 90 || step == 99) problems.push_back(problem);
  });
  for (int n = 0; n < 100; ++n) sim->Step();
  ASSERT_EQ(problems.size(), 2u);
  Options options = sim->options().solver;
  options.relative_tolerance = 1e-4;  // 1e-8 m/s
  options.newton_solve = NewtonSolve::kExact;
  // Newton's test bounds the contact velocities' updates: they agree to the tolerance. v itself agrees relative to
  // its size: a direction no contact sees (a body's spin about its contact normals, with a tiny inertia) is left
  // by an inexact solve at a residual below every tolerance (measured: 1.7e-7 rad/s of a 12 rad/s spin, once).
  auto expect_agreement = [](const Result& result, const Result& exact, const std::string& what) {
    EXPECT_LT((result.vn - exact.vn).lpNorm<Eigen::Infinity>(), 1e-8) << what;
    EXPECT_LT((result.vt - exact.vt).lpNorm<Eigen::Infinity>(), 1e-8) << what;
    EXPECT_LT((result.v - exact.v).lpNorm<Eigen::Infinity>(), 1e-8 * exact.v.lpNorm<Eigen::Infinity>()) << what;
  };
  for (const ContactProblem& problem : problems) {
    ASSERT_GT(problem.num_contacts(), 250);
    Result exact;
    ASSERT_EQ(TamsiSolver(options).Solve(problem, &exact), Status::kSuccess);
    EXPECT_GT(exact.summary.largest_island, 100);
    for (NewtonSolve mode : {NewtonSolve::kReuseFactorization, NewtonSolve::kSymmetricPreconditioner}) {
      Options krylov = options;
      krylov.newton_solve = mode;
      Result result;
      ASSERT_EQ(TamsiSolver(krylov).Solve(problem, &result), Status::kSuccess) << ToString(mode);
      EXPECT_GT(result.summary.counters.krylov_solves, 0) << ToString(mode);
      expect_agreement(result, exact, ToString(mode));
    }
    // The symmetric preconditioner's last factorization kept once the updates fall below v_s (the default) against
    // a factorization in every iteration: fewer factorizations, the same solution.
    Options fresh = options;
    fresh.newton_solve = NewtonSolve::kSymmetricPreconditioner;
    fresh.keep_preconditioner_update = 0.0;
    Options kept = fresh;
    kept.keep_preconditioner_update = Options{}.keep_preconditioner_update;
    Result fresh_result, kept_result;
    ASSERT_EQ(TamsiSolver(fresh).Solve(problem, &fresh_result), Status::kSuccess);
    ASSERT_EQ(TamsiSolver(kept).Solve(problem, &kept_result), Status::kSuccess);
    EXPECT_LT(kept_result.summary.counters.numeric_factorizations,
              fresh_result.summary.counters.numeric_factorizations);
    expect_agreement(kept_result, exact, "kept factorization");
    // Overlapping Schwarz in place of the Cholesky of the symmetric part on every island (no dense ones; subdomains
    // of 16 bodies): the same solution, GMRES solving every Newton system, bitwise equal on 1 and 2 threads.
    Options schwarz = options;
    schwarz.newton_solve = NewtonSolve::kSymmetricPreconditioner;
    schwarz.dense_threshold = 0;
    schwarz.schwarz_threshold = 1;
    schwarz.cholesky_flops_per_velocity = 0.0;
    schwarz.schwarz_part_bodies = 16;
    Result one_thread;
    ASSERT_EQ(TamsiSolver(schwarz).Solve(problem, &one_thread), Status::kSuccess);
    EXPECT_EQ(one_thread.summary.counters.schwarz_islands, one_thread.summary.num_islands);
    EXPECT_GT(one_thread.summary.counters.schwarz_subdomains,
              one_thread.summary.num_islands);  // the big island is split
    EXPECT_EQ(one_thread.summary.counters.krylov_solves, one_thread.summary.counters.newton_systems);
    expect_agreement(one_thread, exact, "schwarz");
    schwarz.num_threads = 2;
    Result two_threads;
    ASSERT_EQ(TamsiSolver(schwarz).Solve(problem, &two_threads), Status::kSuccess);
    EXPECT_EQ(two_threads.v, one_thread.v);
  }
}

// Steps dumped from a 400-body drop (bodies landing, then a forming pile) and from the gripper shaking its mug: the
// primal–dual iteration (the default) and the paper's iteration (eq. 16 tangent, exact LU) both converge, one exact
// Newton update of eq. 23 at either final v moves no contact velocity by more than the tolerance, and the two v agree.
TEST(Scenes, PrimalDualAgreesWithThePapersIterationOnDropPileAndGripperSteps) {
  struct Case {
    const char* scene;
    std::vector<long long> steps;
  };
  SceneOptions scene_options;
  scene_options.clutter_bodies = 400;
  for (const Case& c : {Case{"clutter_bin", {40, 60, 99}}, Case{"gripper_mug_shake", {100, 700, 1400}}}) {
    SCOPED_TRACE(c.scene);
    auto sim = MakeSimulator(LoadScene(c.scene, scene_options));
    std::vector<ContactProblem> problems;
    sim->set_problem_sink([&](const ContactProblem& problem, long long step, int, int) {
      if (std::find(c.steps.begin(), c.steps.end(), step) != c.steps.end()) problems.push_back(problem);
    });
    while (sim->statistics().steps <= c.steps.back()) sim->Step();
    ASSERT_EQ(problems.size(), c.steps.size());
    Options primal_dual = sim->options().solver;
    primal_dual.relative_tolerance = 1e-3;
    Options paper = primal_dual;
    paper.friction_newton = FrictionNewton::kTangent;
    paper.newton_solve = NewtonSolve::kExact;
    const double tolerance = primal_dual.relative_tolerance * primal_dual.stiction_tolerance;
    for (const ContactProblem& problem : problems) {
      ASSERT_GT(problem.num_contacts(), 0);
      Result a, b;
      ASSERT_EQ(TamsiSolver(primal_dual).Solve(problem, &a), Status::kSuccess);
      ASSERT_EQ(TamsiSolver(paper).Solve(problem, &b), Status::kSuccess);
      EXPECT_EQ(a.summary.counters.primal_dual_fallbacks, 0);
      EXPECT_LE(testing::NewtonUpdateAt(problem, a.v, primal_dual.stiction_tolerance), tolerance);
      EXPECT_LE(testing::NewtonUpdateAt(problem, b.v, primal_dual.stiction_tolerance), tolerance);
      EXPECT_LT((a.v - b.v).lpNorm<Eigen::Infinity>(), 1e-5);
    }
  }
}

TEST(RunStatistics, TotalsSumCountsAndTakeMaxima) {
  RunStatistics total;
  std::vector<RunStatistics> runs;
  for (double duration : {0.3, 0.6}) {
    auto sim = MakeSimulator(LoadScene("box_stick_slip"));
    while (sim->time() < duration - 1e-9) sim->Step();
    runs.push_back(sim->statistics());
    total += sim->statistics();
  }
  EXPECT_EQ(total.steps, runs[0].steps + runs[1].steps);
  EXPECT_EQ(total.iterations_total, runs[0].iterations_total + runs[1].iterations_total);
  EXPECT_EQ(total.solves, runs[0].solves + runs[1].solves);
  EXPECT_EQ(total.structure_reuses, runs[0].structure_reuses + runs[1].structure_reuses);
  EXPECT_EQ(total.iterations_max, std::max(runs[0].iterations_max, runs[1].iterations_max));
  EXPECT_EQ(total.contacts_max, std::max(runs[0].contacts_max, runs[1].contacts_max));
  EXPECT_DOUBLE_EQ(total.sim_time, runs[0].sim_time + runs[1].sim_time);
  EXPECT_GT(runs[1].steps, runs[0].steps);
  // The solver's phases: exact Newton factors in every iteration of every island and runs no GMRES.
  for (const RunStatistics& run : runs) {
    const SolveCounters& c = run.counters;
    EXPECT_GE(c.numeric_factorizations, run.iterations_total);
    EXPECT_EQ(c.krylov_iterations, 0);
    EXPECT_GT(c.time_numeric, 0.0);
    EXPECT_GT(c.time_assembly, 0.0);
    EXPECT_LE(c.time_residual + c.time_assembly + c.time_symbolic + c.time_numeric + c.time_solve + c.time_line_search,
              run.time_solve);
  }
  EXPECT_EQ(total.counters.numeric_factorizations,
            runs[0].counters.numeric_factorizations + runs[1].counters.numeric_factorizations);
  EXPECT_DOUBLE_EQ(total.counters.time_line_search,
                   runs[0].counters.time_line_search + runs[1].counters.time_line_search);
}

// A thrown bin: 300 bodies start 3 m/s downward (the keyframe the simulator starts from) and hit the bin and each
// other at that speed; at h = 2 ms every solve converges without substeps and without a primal–dual fallback, at
// 16.1 Newton iterations per step over these first 0.2 s (measured; 19.7 with the lagged-potential line search, whose
// stalled islands fell back after 40 iterations).
// Observation never changes the state: a run whose outputs recompute kinematics after every step (trajectory,
// contacts, body poses) is bitwise equal to the same run without them. (MuJoCo 2.2.2's kinematics renormalized the
// free joints' quaternions in qpos in place, and a 60-body bin ran 0.19 m apart after 0.3 s.)
TEST(ClutterBin, ReadingTheStateEveryStepLeavesTheRunBitwiseUnchanged) {
  std::vector<double> final_state[2];
  for (int observed = 0; observed < 2; ++observed) {
    SceneOptions scene_options;
    scene_options.clutter_bodies = 60;
    Scene scene = LoadScene("clutter_bin", scene_options);
    SimulatorOptions options;
    options.contact = scene.contact;
    Simulator sim(std::move(scene.model), options, -1);
    for (int n = 0; n < 100; ++n) {
      sim.Step();
      if (observed) sim.UpdateKinematics();
    }
    const mjModel& m = sim.model();
    final_state[observed].assign(sim.data().qpos, sim.data().qpos + m.nq);
    final_state[observed].insert(final_state[observed].end(), sim.data().qvel, sim.data().qvel + m.nv);
  }
  EXPECT_EQ(final_state[0], final_state[1]);
}

TEST(ClutterBin, ThrownBinStartsAtItsDropSpeedAndConvergesWithoutRetries) {
  SceneOptions scene_options;
  scene_options.clutter_bodies = 300;
  scene_options.clutter_drop_speed = 3.0;
  auto sim = MakeSimulator(LoadScene("clutter_bin", scene_options));
  for (int b = 0; b < 300; ++b) EXPECT_EQ(sim->data().qvel[6 * b + 2], -3.0) << b;
  for (int n = 0; n < 100; ++n) sim->Step();
  const RunStatistics& stats = sim->statistics();
  EXPECT_GT(stats.contacts_max, 300);
  EXPECT_EQ(stats.retried_steps, 0);
  EXPECT_EQ(stats.failed_solves, 0);
  EXPECT_EQ(stats.counters.primal_dual_fallbacks, 0);
  EXPECT_LT(stats.iterations_mean(), 17.0);
  EXPECT_LE(stats.iterations_max, 30);
}

// MuJoCo's own engine on a bin dropped from above, with an arena that holds the first state (no contact) but not the
// landed bodies: it grows when they land, and the step is taken again, so the side-by-side runs of dropped bins
// compare whole runs.
TEST(ClutterBin, MujocosEngineGrowsItsArenaWhenADroppedBinLands) {
  SceneOptions scene_options;
  scene_options.clutter_bodies = 100;
  Scene scene = LoadScene("clutter_bin", scene_options);
  scene.model->narena = 256 << 10;
  SimulatorOptions options;
  options.engine = Engine::kMujoco;
  options.mujoco_solver = mjSOL_CG;
  Simulator sim(std::move(scene.model), options, -1);
  const mjtSize first_arena = sim.model().narena;
  for (int n = 0; n < 150; ++n) sim.Step();
  EXPECT_GT(sim.statistics().contacts_max, 100);
  EXPECT_GT(sim.model().narena, first_arena);
  EXPECT_EQ(sim.statistics().steps, 150);
}

// Six boxes resting on a plane (4 contacts each), their model declaring an arena of `memory` (MJCF <size>).
ModelPtr RestingBoxes(const std::string& memory) {
  std::string xml = "<mujoco><size memory=\"" + memory + "\"/><worldbody><geom type=\"plane\" size=\"1 1 0.1\"/>";
  for (int b = 0; b < 6; ++b) {
    xml += "<body pos=\"" + std::to_string(-0.3 + 0.12 * b) +
           " 0 0.0499\"><freejoint/><geom type=\"box\" size=\"0.05 0.05 0.05\"/></body>";
  }
  return LoadModelFromString(xml + "</worldbody></mujoco>", "boxes");
}

// Simulator::Step(mjData*): a caller's mjData of the model is stepped in place, bitwise as the simulator steps its
// own, which it leaves as it was; like mj_step it leaves the front end's kinematics and contacts of the step's start
// in the caller's data. A caller's arena too small for the step's contacts falls back to the simulator's own data
// (StepState): the same states, bitwise.
TEST(Simulator, StepsACallersDataInPlaceAsItStepsItsOwn) {
  for (const char* memory : {"1M", "8K"}) {
    SCOPED_TRACE(memory);
    ModelPtr callers_model = RestingBoxes(memory);
    Simulator reference(RestingBoxes(memory), SimulatorOptions(), -1);
    Simulator stepper(RestingBoxes(memory), SimulatorOptions(), -1);
    DataPtr data(mj_makeData(callers_model.get()));
    mj_resetData(callers_model.get(), data.get());
    const mjModel& m = reference.model();
    std::vector<double> start_qpos(m.nq);
    for (int n = 0; n < 50; ++n) {
      std::copy_n(data->qpos, m.nq, start_qpos.begin());
      reference.Step();
      stepper.Step(data.get());
      ASSERT_EQ(std::memcmp(reference.data().qpos, data->qpos, sizeof(double) * m.nq), 0) << "step " << n;
      ASSERT_EQ(std::memcmp(reference.data().qvel, data->qvel, sizeof(double) * m.nv), 0) << "step " << n;
      ASSERT_EQ(reference.data().time, data->time);
    }
    EXPECT_EQ(stepper.statistics().steps, 50);
    const bool fits = static_cast<double>(reference.statistics().contacts_max) * sizeof(mjContact) <
                      static_cast<double>(callers_model->narena);
    EXPECT_EQ(fits, std::string(memory) == "1M");  // 8K cannot hold the 24 contacts
    // The fallback stepped through the simulator's own data; in place, that data was left at its start.
    EXPECT_EQ(stepper.data().time, fits ? 0.0 : data->time);
    if (!fits) continue;
    // In place: the caller's data holds the kinematics and the contacts at the last step's start state.
    DataPtr check(mj_makeData(callers_model.get()));
    std::copy_n(start_qpos.begin(), m.nq, check->qpos);
    mj_kinematics(callers_model.get(), check.get());
    EXPECT_EQ(std::memcmp(check->xpos, data->xpos, sizeof(double) * 3 * m.nbody), 0);
    EXPECT_EQ(data->ncon, 24);
  }
}

// A model's own <size> is kept: MuJoCo's engine runs it with the arena it declares.
TEST(Simulator, MujocosEngineKeepsTheModelsOwnSizes) {
  ModelPtr model = LoadModelFromString(R"(
<mujoco>
  <size memory="64M"/>
  <worldbody>
    <geom type="plane" size="1 1 0.1"/>
    <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.05 0.05 0.05"/></body>
  </worldbody>
</mujoco>)",
                                       "sized");
  SimulatorOptions options;
  options.engine = Engine::kMujoco;
  Simulator sim(std::move(model), options, -1);
  EXPECT_EQ(sim.model().narena, mjtSize{64} << 20);
  for (int n = 0; n < 100; ++n) sim.Step();
  EXPECT_GT(sim.statistics().contacts_max, 0);
}

/// The largest speed (m/s; angular speeds times 0.1 m) of any free body of `sim`.
double LargestFreeBodySpeed(const Simulator& sim) {
  const mjModel& m = sim.model();
  double speed = 0.0;
  for (int j = 0; j < m.njnt; ++j) {
    if (m.jnt_type[j] != mjJNT_FREE) continue;
    const double* v = sim.data().qvel + m.jnt_dofadr[j];
    speed = std::max({speed, std::hypot(v[0], v[1], v[2]), 0.1 * std::hypot(v[3], v[4], v[5])});
  }
  return speed;
}

// Ten YCB objects dropped 1 cm onto the ground, two of them convex meshes (mustard bottle, power drill): with the
// front end's plane–mesh contacts (every hull vertex at the plane) all come to rest; with MuJoCo's own convex
// collider, at most four points a pair, the meshes keep rocking (2e-2 m/s after 4 s).
TEST(YcbObjects, MeshObjectsComeToRestOnTheGround) {
  TAMSI_SKIP_WITHOUT_THIRD_PARTY_MODELS();
  const std::string objects = ThirdPartyModel("ycb_sim/ycb_objects.xml", "YcbObjects").string();
  double speed[2];
  for (NarrowPhase narrow_phase : {NarrowPhase::kAnalytic, NarrowPhase::kMujoco}) {
    Scene scene = LoadScene(objects);
    SimulatorOptions options;
    options.contact = scene.contact;
    options.narrow_phase = narrow_phase;
    options.time_step = 2e-3;
    Simulator sim(std::move(scene.model), options, -1);
    while (sim.time() < 4.0) sim.Step();
    speed[narrow_phase == NarrowPhase::kAnalytic ? 0 : 1] = LargestFreeBodySpeed(sim);
  }
  EXPECT_LT(speed[0], 1e-8);
  EXPECT_GT(speed[1], 1e-5);
}

// A keyframe with a NaN is rejected when the simulator starts, naming the keyframe and the entry (it loaded, wrote NaN
// into the first trajectory row, then failed every retry).
TEST(Simulator, NonFiniteKeyframesAreRejectedByName) {
  ModelPtr model = LoadModelFromString(R"(
<mujoco>
  <worldbody><body><freejoint/><geom type="sphere" size="0.1"/></body></worldbody>
  <keyframe><key name="broken" qpos="0 0 nan 1 0 0 0"/></keyframe>
</mujoco>)",
                                       "nan_key");
  try {
    Simulator sim(std::move(model), SimulatorOptions(), 0);
    ADD_FAILURE() << "accepted a NaN keyframe";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "keyframe 'broken': qpos[2] is not finite");
  }
}

// The divergence guard: a falling ball passes a max_speed of 0.5 m/s after about 0.05 s; the step that would pass it
// fails every retry and is named, and the state stays at the last step below it. (A real divergence, one-way coupling
// on a dropped clutter bin, is the CLI test cli_run_oneway_divergence_is_named.)
TEST(Simulator, ADivergingRunIsStoppedAndNamed) {
  ModelPtr model = LoadModelFromString(R"(
<mujoco>
  <option timestep="0.002"/>
  <worldbody><body pos="0 0 1"><freejoint/><geom type="sphere" size="0.01" mass="0.01"/></body></worldbody>
</mujoco>)",
                                       "falling");
  SimulatorOptions options;
  options.max_speed = 0.5;
  options.max_halvings = 1;
  Simulator sim(std::move(model), options, -1);
  try {
    for (int n = 0; n < 100; ++n) sim.Step();
    FAIL() << "no divergence detected; speed " << std::abs(sim.data().qvel[2]);
  } catch (const StepFailedError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("diverged: a generalized speed of"));
    EXPECT_EQ(sim.statistics().steps, 25);  // 9.81 m/s² × 0.052 s > 0.5 m/s
    EXPECT_LE(std::abs(sim.data().qvel[2]), 0.5);
  }
}

// Tunnelling: a 5 cm ball shot at 150 m/s passes a 1 cm plate between two steps at h = 1 ms; every step it travels
// 3 radii, which is flagged and named. The same ball at 10 m/s (0.2 radii a step) is stopped by the plate and is not
// flagged, and neither is a dropped clutter bin.
TEST(Simulator, ABodyTravellingFartherThanItsThicknessInAStepIsFlagged) {
  for (const double speed : {150.0, 10.0}) {
    ModelPtr model = LoadModelFromFile(std::string(TAMSI_SCENE_DATA_DIR) + "/fast_ball.xml");
    model->key_qvel[0] = speed;
    Simulator sim(std::move(model), SimulatorOptions(), 0);
    int flagged = 0;
    for (int n = 0; n < 20; ++n) flagged += sim.Step().fast_bodies;
    const RunStatistics& stats = sim.statistics();
    if (speed > 50) {
      EXPECT_GT(sim.data().qpos[0], 0.6) << "the ball is past the plate";
      EXPECT_EQ(flagged, 20);
      EXPECT_EQ(stats.tunnelling_steps, 20);
      EXPECT_THAT(stats.first_tunnelling, ::testing::HasSubstr("body 'ball' travelled 0.15 m"));
      EXPECT_THAT(stats.Report(), ::testing::HasSubstr("tunnelling risk  20 steps"));
    } else {
      EXPECT_LT(sim.data().qpos[0], 0.5) << "the plate stops the slow ball";
      EXPECT_EQ(stats.tunnelling_steps, 0);
    }
  }
  Scene bin = LoadScene("clutter_bin");
  SimulatorOptions options;
  options.contact = bin.contact;
  const int keyframe = FindKeyframe(*bin.model, "");
  Simulator sim(std::move(bin.model), options, keyframe);
  while (sim.time() < 0.5) sim.Step();
  EXPECT_EQ(sim.statistics().tunnelling_steps, 0);
}

TEST(SceneLibrary, UnknownNamesAndMissingFilesAreRejected) {
  EXPECT_THROW(LoadScene("no_such_scene"), UnknownSceneError);
  EXPECT_THROW(LoadScene("/no/such/model.xml"), ModelLoadError);
  EXPECT_THROW(ClutterBinXml(0, 1), std::invalid_argument);
  SceneOptions negative_speed;
  negative_speed.clutter_drop_speed = -1.0;
  EXPECT_THROW(LoadScene("clutter_bin", negative_speed), std::invalid_argument);
  EXPECT_EQ(BuiltinScenes().front().name, DefaultSceneName());
}

}  // namespace
}  // namespace tamsi::scenes
