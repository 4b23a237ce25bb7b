#pragma once
/// @file
/// Time stepping of an MJCF model with TAMSI (or, for comparison, with MuJoCo's own solver): one front-end pass per
/// step at q0, one TAMSI solve, positions advanced with mj_integratePos. Failed solves are retried with substeps and
/// counted; nothing is silent.

#include <mujoco/mujoco.h>
#include <tamsi/contact_problem.h>
#include <tamsi/scenes/friction_duals.h>
#include <tamsi/scenes/mujoco_frontend.h>
#include <tamsi/scenes/mujoco_model.h>
#include <tamsi/tamsi_solver.h>

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>

namespace tamsi::scenes {

/// Who computes the velocity update.
enum class Engine {
  /// tamsi::TamsiSolver (two-way or one-way per SimulatorOptions::solver.coupling).
  kTamsi,
  /// MuJoCo's own mj_step with its soft-constraint solver (Newton, CG or PGS), for side-by-side comparison. Contact
  /// stiffness/dissipation of the front end do not apply; MuJoCo's solref/solimp do.
  kMujoco,
};

/// Sets the inputs of the step that starts at data->time: ctrl, qfrc_applied and/or xfrc_applied. Must not change
/// qpos or qvel.
using Controller = std::function<void(const mjModel& model, mjData* data)>;

struct SimulatorOptions {
  Engine engine{Engine::kTamsi};
  /// Time step h (s); ≤ 0 takes the model's opt.timestep.
  double time_step{0.0};
  /// TAMSI's options (stiction tolerance v_s, coupling, threads, linear solver). Its time_phases applies to both
  /// engines: false leaves StepInfo's and RunStatistics' front-end and solve times at 0 s (each step's wall time is
  /// still measured), with no clock read of the simulator's inside a step, as in an application that does not
  /// profile. MuJoCo's engine takes its solve time from MuJoCo's timers: each of its steps sets MuJoCo's global timer
  /// callback (mjcb_time) to the simulator's clock when timed, to none when not, and puts the caller's back after (a
  /// process-wide setting: step timed MuJoCo-engine simulators from one thread at a time). TAMSI's steps leave it
  /// alone; a callback the caller set times MuJoCo's stages inside TAMSI's front end too.
  tamsi::Options solver;
  /// Per-geom stiffness and dissipation where MJCF `user` data gives none.
  ContactDefaults contact;
  /// A failed TAMSI solve is retried with 2, 4, …, 2^max_halvings substeps, ≥ 0.
  int max_halvings{4};
  /// Divergence guard (TAMSI): a solve whose generalized velocities exceed this (m/s or rad/s) in magnitude fails
  /// like a non-converged one (retried with substeps, then named in StepFailedError); > 0. No manipulation scene
  /// comes near 1e3; an explicit scheme past its stability limit (one-way on stiff dissipative contacts) passes it
  /// within a few steps.
  double max_speed{1e3};
  /// For Engine::kMujoco: mjSOL_PGS, mjSOL_CG or mjSOL_NEWTON; -1 keeps the model's choice.
  int mujoco_solver{-1};
  /// For Engine::kTamsi: the front end's narrow phase of sphere–cylinder and plane–mesh pairs. MuJoCo's engine keeps
  /// its own.
  NarrowPhase narrow_phase{NarrowPhase::kAnalytic};
  /// For Engine::kTamsi with FrictionNewton::kPrimalDual: start each step's friction duals from the previous step's
  /// solution on the contacts that persist (FrictionDualCarry; ContactProblem::w_guess), else from the first iterate.
  /// The solution is the same either way, to the solver's tolerance.
  bool carry_friction_duals{true};
  /// For Engine::kTamsi: start each step's Newton iteration at v0 + Δv₁, Δv₁ the last step's velocity change (the
  /// constant-acceleration extrapolation, as MuJoCo starts its solver at the last step's accelerations), when the last
  /// two changes agree, ‖Δv₁ − Δv₂‖ ≤ ½‖Δv₁‖ (a driven or falling motion, not a resting pile's jitter), else at v0
  /// (ContactProblem::v_guess). The solution is the same either way, to the solver's tolerance.
  bool extrapolate_velocities{true};
};

/// What one step did.
struct StepInfo {
  /// Substeps of the successful attempt (1 when the first solve succeeded).
  int substeps{1};
  /// Newton iterations of the successful attempt, summed over its substeps (MuJoCo: its solver iterations).
  int iterations{0};
  /// Geom contacts (TAMSI: rows of Jn from collisions; MuJoCo: its contacts).
  int contacts{0};
  /// TAMSI: the model's constraints in the step (ContactProblemBuilder::constraint_counts): joint and tendon limit
  /// rows (frictionless contacts after the geom contacts) and equality rows (ContactProblem::Jb), and the largest
  /// violation at the start of the step among them (m or rad, each row in its unit; 0 when none is violated).
  int limit_rows{0}, equality_rows{0};
  double max_limit_violation{0}, max_equality_violation{0};
  /// Solves that failed before the successful attempt.
  int failed_solves{0};
  /// TAMSI solves of the step, and how many of them kept the previous solve's structure and symbolic analyses
  /// (Summary::structure_reused).
  int solves{0};
  int structure_reuses{0};
  /// Seconds in the front end (MuJoCo kinematics, collision, forces, assembly of M, Jn, Jt) and in the solver; 0
  /// when SimulatorOptions::solver.time_phases is false.
  double time_frontend{0.0}, time_solve{0.0};
  /// The step's wall time (s), measured whatever SimulatorOptions::solver.time_phases says (RunStatistics::wall_time
  /// sums it).
  double wall_time{0.0};
  /// TAMSI only: the solver's counters and phase times (Summary::counters) summed over the step's solves, failed
  /// attempts included.
  SolveCounters counters;
  /// Free bodies that travelled farther in the step than the half-thickness of their own thinnest collision geom:
  /// a contact the step should have met may have been passed through (tunnelling; a smaller h helps). The largest
  /// travel over half-thickness ratio among them, and that body.
  int fast_bodies{0};
  double max_travel_ratio{0.0};
  int fastest_body{-1};
};

/// Totals over the steps taken so far.
struct RunStatistics {
  long long steps{0};
  /// Simulated seconds and wall-clock seconds spent in Step().
  double sim_time{0.0}, wall_time{0.0};
  double time_frontend{0.0}, time_solve{0.0};
  long long iterations_total{0};
  int iterations_max{0};
  /// Steps that needed substeps, and solves that failed (each retry counts one).
  long long retried_steps{0}, failed_solves{0};
  long long contacts_total{0};
  /// TAMSI solves, and those that reused the previous structure and symbolic analyses (the hit rate).
  long long solves{0}, structure_reuses{0};
  int contacts_max{0};
  /// The most limit and equality rows in a step, and the largest violations at a step's start (StepInfo).
  int limit_rows_max{0}, equality_rows_max{0};
  double limit_violation_max{0}, equality_violation_max{0};
  /// TAMSI's counters and phase times summed over the steps (StepInfo::counters).
  SolveCounters counters;
  /// Steps with a tunnelling risk (StepInfo::fast_bodies), and the first of them in words (body, travel, size, time).
  long long tunnelling_steps{0};
  std::string first_tunnelling;

  double iterations_mean() const { return steps ? static_cast<double>(iterations_total) / steps : 0.0; }
  double contacts_mean() const { return steps ? static_cast<double>(contacts_total) / steps : 0.0; }
  /// Simulated seconds per wall-clock second.
  double real_time_rate() const { return wall_time > 0 ? sim_time / wall_time : 0.0; }
  /// Adds another run's statistics (counts and times summed, maxima taken), e.g. to total several runs.
  RunStatistics& operator+=(const RunStatistics& other);
  /// The end-of-run summary: steps, sim time, wall time, real-time rate, iterations mean/max, retried and failed,
  /// contacts mean/max, front-end and solve time. Several lines, each ending in '\n'.
  std::string Report() const;
};

/// Thrown by Simulator::Step when a step fails even with the most substeps; the state is that before the step.
class StepFailedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Index of keyframe `name` in the model; "" gives the first keyframe, or -1 when the model has none. Throws
/// std::invalid_argument for an unknown name.
int FindKeyframe(const mjModel& model, const std::string& name);

/// One contact of a step: where and between what (ContactInfo), penetration δ0 (m, > 0 overlapping), normal force fn
/// (N, ≥ 0, pushing the geoms apart) and friction forces ft1, ft2 (N) along the contact's tangents.
struct ContactRecord {
  ContactInfo info;
  double penetration{0}, fn{0}, ft1{0}, ft2{0};
};

/// Steps one MJCF model. Owns the model and its mjData; reuses one TamsiSolver and one ContactProblem across steps.
class Simulator {
 public:
  /// Starts from keyframe `keyframe` (-1: the model's qpos0 at rest). Throws std::invalid_argument for invalid
  /// options (the message names the field) and when MuJoCo cannot hold the scene (Engine::kMujoco only).
  Simulator(ModelPtr model, const SimulatorOptions& options, int keyframe = -1, Controller controller = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  /// Advances the state by one time step h. Throws StepFailedError (state unchanged) when every retry failed.
  StepInfo Step();
  /// Advances `data` instead of the simulator's own data by one time step h, in place, as Step() would (bitwise the
  /// same state; the warm starts follow `data` as they follow data() when its state is the last step's result).
  /// `data` must have been made from model() or from the model it was copied from: the same sizes (the caller's
  /// guarantee). Like mj_step, it is left with what the front end computed at the step's start state: kinematics,
  /// contacts, actuator and passive forces (not sensors, not MuJoCo's constraint arrays). Where its arena cannot hold
  /// the step, it is taken as StepState(data) takes it (data's other fields are then those of the attempt: call
  /// mj_forward). data() is left as it was, except by that fallback. Throws StepFailedError (data's state unchanged)
  /// as Step() does.
  StepInfo Step(mjData* data);
  /// Advances the state of `data` by one time step h through the simulator's own data: data's state and inputs
  /// (MuJoCo's mjSTATE_TIME, QPOS, QVEL, ACT, PLUGIN and USER: ctrl, applied forces, mocap, userdata, eq_active)
  /// copied into data(), one Step(), then its qpos, qvel, act and time copied back; nothing else of `data` is
  /// written. For data of a model whose state has the same sizes as model()'s. Throws StepFailedError (data's state
  /// unchanged) as Step() does.
  StepInfo StepState(mjData* data);

  const mjModel& model() const { return *model_; }
  /// The state: qpos, qvel, time. Callers may edit qpos/qvel between steps.
  mjData& data() { return *data_; }
  const mjData& data() const { return *data_; }
  double time() const { return data_->time; }
  double time_step() const { return time_step_; }
  const SimulatorOptions& options() const { return options_; }
  const RunStatistics& statistics() const { return stats_; }
  /// Starts the statistics afresh (e.g. after settling a scene).
  void ResetStatistics() { stats_ = RunStatistics(); }
  /// Puts the simulator back as it was made from keyframe `keyframe` (-1: the model's qpos0 at rest): all of mjData
  /// reset as MuJoCo's mj_resetData / mj_resetDataKeyframe do (time 0; ctrl, applied forces and activations from the
  /// keyframe or zero), the last problem and result cleared and the statistics started afresh. The next step equals
  /// a new simulator's first, bitwise. Throws std::invalid_argument for a keyframe out of range or a keyframe with a
  /// non-finite entry.
  void Reset(int keyframe);

  /// The friction duals that the next TAMSI step would carry over (FrictionDualCarry::Save; empty when it would carry
  /// none: before the first step, after a reset, or when the state was changed since the last step). For
  /// checkpoints, so that a resumed run takes bitwise the steps of the uninterrupted one.
  std::vector<double> SaveFrictionDuals() const;
  /// Restores SaveFrictionDuals' record as the duals of the current state (put back first; what was carried for
  /// another state is forgotten). Throws std::invalid_argument when its size is not a whole number of contacts
  /// (FrictionDualCarry::Load).
  void RestoreFrictionDuals(const std::vector<double>& record);
  /// The last steps' velocity changes v − v0 that the next TAMSI step extrapolates from (nv values per step, newest
  /// first, at most two; empty before the first step, after a reset, or when the state was changed since the last
  /// step). For checkpoints, as SaveFrictionDuals.
  std::vector<double> SaveVelocityChanges() const;
  /// Restores SaveVelocityChanges' record for the current state (put back first; what was carried for another state
  /// is forgotten). Throws std::invalid_argument when its size is not 0, nv or 2 nv.
  void RestoreVelocityChanges(const std::vector<double>& record);
  /// Throws RestoreVelocityChanges' std::invalid_argument for a record that does not fit `nv` velocities (for a check
  /// before anything is restored).
  static void CheckVelocityChanges(const std::vector<double>& record, int nv);

  /// Called at the end of every Step() with the simulator (its state, and the step's contacts and forces).
  using StepObserver = std::function<void(const Simulator&)>;
  void set_step_observer(StepObserver observer) { observer_ = std::move(observer); }
  /// The normal force (N) of the last step summed over the contacts between a geom of body `a` and one of body
  /// `b`: TAMSI's fn for Engine::kTamsi, MuJoCo's contact force for Engine::kMujoco.
  double NormalForceBetween(int a, int b) const;

  /// Receives every problem handed to TAMSI, before it is solved: (problem, step index from 0, substep index, number
  /// of substeps). Used for --dump-problems.
  using ProblemSink = std::function<void(const ContactProblem&, long long step, int substep, int substeps)>;
  void set_problem_sink(ProblemSink sink) { sink_ = std::move(sink); }
  /// Receives every problem whose TAMSI solve failed (before the step is retried with more substeps), with the same
  /// arguments. Used for --dump-failures.
  void set_failure_sink(ProblemSink sink) { failure_sink_ = std::move(sink); }

  /// The last problem built (at the start of the last step) and the last successful TAMSI result (Engine::kTamsi).
  const ContactProblem& last_problem() const { return problem_; }
  const Result& last_result() const { return result_; }
  /// The front end (per-geom contact parameters, contacts of the last step).
  const ContactProblemBuilder& builder() const { return builder_; }
  /// The contacts of the last step, at the positions it started from, with their forces, from either engine: TAMSI's
  /// rows (geom contacts, then joint and tendon limits; its fn and ft), or MuJoCo's geom contacts (mjData.contact;
  /// forces from mj_contactForce, MuJoCo's soft-constraint force in the contact frame: normal first, then along
  /// frame rows 1 and 2; its limits are constraint rows, not contacts).
  std::vector<ContactRecord> LastContacts() const;

  /// Recomputes kinematics and body velocities (xpos, xquat, cvel) at the current state, for output.
  void UpdateKinematics();
  /// MuJoCo's sensor readings at the current state and inputs (nsensordata values, laid out by the model's sensor
  /// tables sensor_adr and sensor_dim), as mj_forward computes them: on a scratch copy of the data
  /// (mj_copyState, mjSTATE_INTEGRATION), so that the state and the last step's contacts and forces stay as they were;
  /// its arena grows (GrowArena) until MuJoCo's contacts and constraint rows fit. Sensors of forces and accelerations
  /// read MuJoCo's own constraint solution at that state, not TAMSI's. Throws MujocoError when the arena cannot grow.
  const mjtNum* Sensors();

 private:
  /// A TAMSI step begun at `start` (its front end's time runs from there; its solves' from the solver's Summary).
  StepInfo StepTamsi(std::chrono::steady_clock::time_point start);
  /// The StepInfo of the MuJoCo step just taken: its solve time from MuJoCo's timers, less `constraint_before`.
  StepInfo MujocoStepInfo(double constraint_before, double total) const;
  StepInfo StepMujoco();
  void BuildProblem();
  /// Whether steps carry friction duals (SimulatorOptions::carry_friction_duals with FrictionNewton::kPrimalDual).
  bool CarriesFrictionDuals() const;
  /// The step's first friction duals (w_start_), carried from the last step where it left the current state.
  void CalcFirstDuals();
  /// Forgets the carried duals and velocity changes when mjData no longer holds the state they were left at.
  void ForgetIfStateChanged();
  /// Whether this step starts its Newton iteration at v0 + Δv₁ (SimulatorOptions::extrapolate_velocities).
  bool ExtrapolatesVelocities() const;
  /// After a successful step: its velocity change becomes Δv₁, the former Δv₁ Δv₂.
  void RecordVelocityChange();
  /// The state that a step starts from (time, qpos, qvel, act), into `state`; and whether mjData holds `state`.
  void GatherState(Eigen::VectorXd* state) const;
  bool AtState(const Eigen::VectorXd& state) const;
  bool SolveWithSubsteps(int substeps, StepInfo* info);
  /// Actuator activations (filter, integrator, muscle dynamics): act += h act_dot, explicit Euler over the step as
  /// MuJoCo's own integrators take it, with act_dot from the step's start (the front end's mj_fwdActuation);
  /// limited activations clamped to their range.
  void IntegrateActivations();
  /// Fills free_bodies_ and sizes travel_start_.
  void FindFreeBodies();
  /// StepInfo::fast_bodies from the free bodies' positions before the step (travel_start_) and after it.
  void CheckTravel(StepInfo* info);
  /// Doubles the own data's arena (GrowArena); during Step(mjData*) on the caller's data, hands the step to the own
  /// data instead.
  void GrowOwnArena();

  ModelPtr model_;
  DataPtr own_data_;       // data() (mj_makeData of model_, grown by GrowArena)
  mjData* data_{nullptr};  // the data being stepped: own_data_, or Step(mjData*)'s during that step
  DataPtr sensor_data_;    // Sensors()'s scratch copy, made at its first call
  SimulatorOptions options_;
  Controller controller_;
  double time_step_{0.0};
  ContactProblemBuilder builder_;
  TamsiSolver solver_;
  ContactProblem problem_;
  Result result_;
  // What the last TAMSI step leaves for the next, valid at warm_state_ (the state it left): its contacts and friction,
  // and its velocity change and the one before (the first known_velocity_changes_ of them).
  FrictionDualCarry duals_;
  Eigen::VectorXd velocity_change_, previous_velocity_change_;
  int known_velocity_changes_{0};
  Eigen::VectorXd warm_state_;
  Eigen::VectorXd w_start_, vt_guess_;  // the step's first duals; Jt v0 for the contacts without a carried dual
  Eigen::VectorXd v0_, delta_start_, g_start_, v_work_, q_work_, g_rate_;  // g_rate_: Jb v of a substep
  std::string substep_failure_;  // why SolveWithSubsteps last returned false, when not the solver's status
  RunStatistics stats_;
  ProblemSink sink_, failure_sink_;
  StepObserver observer_;
  /// Free bodies with collision geoms: the body, its free joint's qpos address, its thinnest collision geom's
  /// half-thickness (m); and their positions at the start of the step.
  struct FreeBody {
    int body, qpos;
    double half_thickness;
  };
  std::vector<FreeBody> free_bodies_;
  std::vector<double> travel_start_;
};

}  // namespace tamsi::scenes
