#pragma once
/// @file
/// Internal: the Newton iteration of one island. TamsiSolver::Solve evaluates the residual and assembles the Newton
/// matrix of the whole system once per iteration, then runs IslandNewton::Iterate on every island still iterating, in
/// parallel; each island has its own factorization, step length and convergence test. One function per phase of an
/// iteration (Drake's TamsiSolver splits its Calc* steps the same way).

#include <tamsi/kernels/parallel.h>
#include <tamsi/newton_system.h>
#include <tamsi/tamsi_solver.h>

#include <Eigen/Core>
#include <memory>
#include <string>

#include "block_cholesky.h"
#include "islands.h"
#include "krylov.h"
#include "linear_solver.h"
#include "phase_clock.h"
#include "schwarz.h"

namespace tamsi::internal {

/// What one iteration of every island reads (constant while the islands iterate), and the solve's global vectors,
/// which islands write at disjoint entries: their own velocities and their own contacts.
struct IslandIterationData {
  const Options& options;
  const NewtonSystem& system;
  const IslandPartition& partition;
  const kernels::ThreadBudget& budget;
  /// The phase times' clock (Options::time_phases).
  const PhaseClock& clock;
  /// Each velocity's body (FindBodies; Schwarz subdomains are made of bodies).
  const Components& bodies;
  /// The symmetric part M + h(W_nn + W_tt) on the Newton matrix's pattern (NewtonSystem::Assemble), when
  /// Options::newton_solve is kSymmetricPreconditioner under two-way coupling; empty otherwise.
  const Eigen::VectorXd& symmetric_values;
  /// v (nv, m/s): the iterate, updated in place; Δv (nv), Δvn (nc), Δvt (2nc): the last full Newton step; the
  /// contacts' primal–dual duals w (2nc, FrictionNewton::kPrimalDual), updated in place.
  Eigen::VectorXd& v;
  Eigen::VectorXd& dv;
  Eigen::VectorXd& dvn;
  Eigen::VectorXd& dvt;
  Eigen::VectorXd& dual;
};

/// What one island's last iteration did: Summary's per-iteration entries before they are combined over islands.
struct IslandIterationRecord {
  double vt_residual{0}, vn_residual{0};  // max over the island's contacts of ‖Δvt,i‖, |Δvn,i| (m/s)
  double alpha{1};
  int tals_limited_contacts{0};
  int line_search_evaluations{0};
  bool tals_fallback{false};
  /// The iteration's factorizations, GMRES iterations, its one Newton system (and whether GMRES solved it to its
  /// tolerance) and per-island phase times.
  SolveCounters counters;
};

/// Newton state of island `k` of a partition, kept across solves while the Newton matrix's pattern holds (its
/// backends keep their symbolic analyses).
class IslandNewton {
 public:
  /// The primal–dual iteration (FrictionNewton::kPrimalDual) until it converges or stalls; then, or from the start
  /// under FrictionNewton::kTangent, the paper's iteration with the secant safeguard (Options::secant_safeguard):
  /// Newton until a cut step, secant, then Newton to the end (kFinalNewton); after a primal–dual fallback, a cut step
  /// of that last phase enters the secant phase anew.
  enum class Phase { kPrimalDual, kNewton, kSecant, kFinalNewton };

  /// `type`: the backend of the Newton matrix (not kAuto); `symmetric`: the matrix is SPD (one-way coupling);
  /// `num_threads`: the threads that backend's factorizations may use (MakeLinearSolver), and above one, the block
  /// Cholesky of S factors and solves on the thread budget (an island holding most of the velocities; smaller islands
  /// run in parallel with each other, each on one thread); `schwarz`: the symmetric preconditioner is overlapping
  /// Schwarz rather than a block Cholesky of S (Options::schwarz_threshold), unless the Cholesky is cheap
  /// (Options::cholesky_flops_per_velocity, decided at the first analysis).
  IslandNewton(int k, LinearSolverType type, bool symmetric, int num_threads, bool schwarz);

  /// Starts a new solve: not done, in the primal–dual or the Newton phase (Options::friction_newton).
  void Start(const Options& options);
  /// Moves the phase on from the iterations so far: a stalled or cycling primal–dual iteration falls back to Newton
  /// (Options::primal_dual_stall_iterations, primal_dual_max_non_descent); the secant safeguard
  /// (Options::secant_safeguard) acts on the last iteration's α and ‖Δvt‖. True when the phase changed.
  bool UpdatePhase(const Options& options);
  /// How the island's sliding contacts' blocks are formed in its current phase.
  kernels::SlidingBlock sliding_block() const;
  /// One Newton iteration: the island's system (views of the whole system's), solve for Δv, contact velocity
  /// changes, step length, v ← v + αΔv, convergence test.
  void Iterate(const IslandIterationData& data);

  LinearSolverType type() const { return type_; }
  /// Whether the island's exact solves assemble its block densely (NewtonSystem::AssembleDenseBlock) rather than
  /// read it from the whole system's values: a dense island, unless Options::newton_solve is kReuseFactorization
  /// (whose GMRES reads those values).
  bool AssemblesDensely(const Options& options) const;
  /// Subdomains of the island's Schwarz preconditioner (0 when it has none, or before its first iteration).
  int schwarz_subdomains() const { return schwarz_ ? schwarz_->num_subdomains() : 0; }
  Phase phase() const { return phase_; }
  bool done() const { return done_; }
  Status status() const { return status_; }
  const std::string& message() const { return message_; }
  const IslandIterationRecord& record() const { return record_; }

 private:
  /// Options::newton_solve is kSymmetricPreconditioner (two-way) and the island is not solved densely.
  bool UsesSymmetricPreconditioner(const IslandIterationData& data) const;
  /// The island's block of the Newton matrix and of its symmetric part as views of the whole system's values, and
  /// the right-hand side −r.
  void CalcIslandSystem(const IslandIterationData& data);
  /// The island's block of the Newton matrix with its values gathered into values_, for the backends that factor it.
  CscView GatherValues(const kernels::ThreadBudget& budget);
  /// Δv from the island's Newton system: GMRES where Options::newton_solve asks for it, else (or when GMRES falls
  /// short) an exact factorization. False, with status_ set, when the linear solve fails.
  bool CalcSearchDirection(const IslandIterationData& data);
  bool SolveWithSymmetricPreconditioner(const IslandIterationData& data);
  /// z = S⁻¹ r by the island's block Cholesky of S, on the thread budget where it factors on it (parallel_cholesky_).
  bool SolveCholesky(const kernels::ThreadBudget& budget, const Eigen::VectorXd& r, Eigen::VectorXd* z);
  /// Whether this iteration first tries GMRES on the island's last block Cholesky of S: the island is not on Schwarz,
  /// holds a factorization from this solve, and its last update was at most Options::keep_preconditioner_update · v_s.
  bool KeepsSymmetricFactorization(const Options& options) const;
  /// The symmetric preconditioner of this iteration's S: its block Cholesky factorization, or Schwarz's subdomain
  /// factorizations (analyzed on the island's first iteration, where an island meant for Schwarz keeps the Cholesky
  /// if it is cheap). False when S (or a subdomain block) is not SPD.
  bool FactorSymmetricPart(const IslandIterationData& data);
  /// GMRES on the island's system, right-preconditioned by `precondition`, to `tolerance` within `max_iterations`.
  bool SolveWithGmres(const IslandIterationData& data, const Preconditioner& precondition, double tolerance,
                      int max_iterations);
  bool SolveWithKeptFactorization(const IslandIterationData& data);
  bool SolveExactly(const IslandIterationData& data);
  /// Δvn, Δvt of the island's contacts from Δv, and the residuals max ‖Δvt,i‖, max |Δvn,i|.
  void CalcContactVelocityChanges(const IslandIterationData& data);
  /// α by Options::line_search (TALS, the exact line search with TALS beside it, or 1); in the primal–dual phase the
  /// exact line search is alone, up to Options::primal_dual_max_alpha, with TALS where Δv is not a descent direction.
  void CalcStepLength(const IslandIterationData& data);
  /// Where the Newton direction is not a descent direction of the lagged potential (whose gradient at v is the
  /// residual), the direction −P⁻¹ r of the island's symmetric preconditioner P of S = M + h(W_nn + W_tt), SPD and
  /// so a descent direction (for a dense island, S itself, factored here), with its contact velocity changes, whose
  /// sizes are then the iteration's update for the convergence test. False (Δv unchanged) where the island has no S or
  /// it is not positive definite.
  bool UseSymmetricDirection(const IslandIterationData& data);
  /// symmetric_dv_ = S⁻¹ (−r) by a dense Cholesky of the island's block of S; false if not positive definite.
  bool SolveSymmetricPartDensely();
  /// The primal–dual phase: every contact's dual from the full Newton step (kernels::UpdatePrimalDual).
  void UpdateDuals(const IslandIterationData& data) const;
  /// Ends the island's solve with `status`; returns false.
  bool Fail(Status status);

  /// GMRES's budget on a kept factorization of S (KeepsSymmetricFactorization): past it, S is factored again.
  static constexpr int kKeptFactorizationBudget = 5;

  int k_;
  LinearSolverType type_;
  std::unique_ptr<LinearSolver> linear_solver_;
  DenseSolver* dense_solver_{nullptr};                     // linear_solver_ as the dense backend, when it is
  std::unique_ptr<BlockCholeskySolver> symmetric_solver_;  // block Cholesky of M + h(W_nn + W_tt), the preconditioner
  std::unique_ptr<SchwarzPreconditioner> schwarz_;         // or overlapping Schwarz on it (large islands)
  bool parallel_cholesky_;  // symmetric_solver_ factors and solves on the thread budget (num_threads above one)
  Gmres gmres_;
  bool gmres_analyzed_{false};
  bool analyzed_{false};
  bool symmetric_analyzed_{false};
  bool symmetric_factored_{false};  // symmetric_solver_ holds a factorization of S (every solve first factors one)
  bool factorized_{false};          // holds a numeric factorization (of this or an earlier matrix of the pattern)
  bool refactor_{false};            // the kept factorization no longer preconditions well
  bool done_{false};
  Phase phase_{Phase::kNewton};
  int phase_iterations_{0};  // iterations in the current phase
  double last_update_{0.0};  // the last iteration's max ‖Δvt,i‖, |Δvn,i| (m/s); ∞ before a solve's first
  int non_descent_{0};       // primal–dual directions that were not descent directions (TALS fallbacks)
  Status status_{Status::kMaxIterationsReached};
  std::string message_;
  // The island's view of the Newton system (local indices): the matrix and its symmetric part read in place in the
  // whole system's values, the matrix's values gathered (only for the backends that factor it); the right-hand side
  // and the island's part of the direction.
  CscView system_block_, symmetric_block_;
  Eigen::VectorXd values_, rhs_, dv_;
  Eigen::VectorXd symmetric_dv_;     // UseSymmetricDirection's direction, swapped into dv_ where it is taken
  Eigen::MatrixXd dense_symmetric_;  // a dense island's S, factored in place by SolveSymmetricPartDensely
  Eigen::MatrixXd dense_block_;      // a dense island's Newton matrix, assembled densely (AssemblesDensely)
  IslandIterationRecord record_;
};

}  // namespace tamsi::internal
