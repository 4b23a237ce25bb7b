#pragma once
/// @file
/// TAMSI: the transition-aware modified semi-implicit solver of Castro, Qu et al. 2020 (RA-L), sparse and parallel.

#include <tamsi/contact_problem.h>
#include <tamsi/kernels/friction_regularization.h>

#include <Eigen/Core>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tamsi {

/// How normal forces enter the Newton iteration.
enum class Coupling {
  /// TAMSI (Sec. V-C): π(vn) of the first-order penetration δ ≈ δ0 − h vn (eq. 19) is implicit; the Newton
  /// matrix is M + h(W_nn + W_tt + W_tn) (eq. 23), nonsymmetric.
  kTwoWay,
  /// Semi-implicit Euler (Sec. V-A): normal forces frozen at the start of the step; the Newton matrix
  /// M + h W_tt (eq. 17) is SPD.
  kOneWay,
};

/// How each island's Newton system (eq. 23 two-way, eq. 17 one-way) is solved for Δv. Islands that use the dense
/// backend are always factored exactly.
enum class NewtonSolve {
  /// A fresh factorization (UMFPACK LU two-way) every iteration: exact Newton, the oracle.
  kExact,
  /// GMRES preconditioned by the island's last numeric factorization, kept across iterations and across solves
  /// while the pattern holds; refactor when GMRES misses krylov_tolerance within max_krylov_iterations or needed
  /// more than half of them.
  kReuseFactorization,
  /// Two-way: GMRES preconditioned by the Newton matrix's symmetric part S = M + h(W_nn + W_tt), i.e. eq. 23
  /// without W_tn (NewtonSystem::Assemble). W_tn is small against S, so GMRES needs a few iterations. Islands below
  /// schwarz_threshold velocities factor S afresh every iteration with tamsi's block Cholesky (supernodes of whole
  /// bodies, BLAS updates, no allocation; 1.5–1.7 ms per iteration on the N = 500 pile's 2,988-velocity island against
  /// CHOLMOD's 2.6–2.7 ms, whose OpenMP regions cost a system call each, and the LU of eq. 23's 12 ms); larger ones
  /// approximate S⁻¹ by one-level overlapping Schwarz (subdomains of about schwarz_part_bodies bodies, each factored
  /// by a block Cholesky, in parallel), whose cost grows like the island instead of like its Cholesky factor, with
  /// GMRES to schwarz_krylov_tolerance. An iteration whose S is not positive definite, or whose GMRES misses
  /// krylov_tolerance within its budget, is solved by the exact factorization instead.
  /// One-way: as kExact (eq. 17 is symmetric already). The default: half the time of kExact per pile step or sliding
  /// tower (bench/README.md), and no allocation in tamsi's code at steady state (its GMRES workspace is kept).
  kSymmetricPreconditioner,
};

/// How the Newton iteration treats the friction of sliding contacts.
enum class FrictionNewton {
  /// The paper's iteration: the Newton matrix of eq. 16/23 (eq. 17 one-way), the step limited by
  /// Options::line_search, with the secant safeguard where Options::secant_safeguard is on.
  kTangent,
  /// Primal–dual (beyond the paper; Chan, Golub & Mulet 1999): every contact carries a dual w ∈ R², ‖w‖ ≤ 1, with
  /// ft = −μ̃π w and w = vt/max(v_s, ‖vt‖) at the solution. Linearizing (v, w) together and eliminating Δw changes
  /// only the sliding contacts' blocks (kernels::SlidingBlock::kPrimalDual): where a slip is about to reverse they
  /// keep stiffness along the slip direction, which eq. 16's tangent lacks, so Newton steps stop overshooting across
  /// the stiction disk. The right-hand side is the true residual (eq. 21), the convergence test the usual one, and at
  /// the solution w = v̂, so the converged v and the final quadratic rate are Newton's. After each solve for Δv, every
  /// contact's w is updated from the full step (kernels::UpdatePrimalDual); with LineSearch::kExact the step length is
  /// the exact line search alone over (0, primal_dual_max_alpha], TALS where Δv is not a descent direction (kTals and
  /// kNone act as for kTangent); no secant phase. An island still iterating after primal_dual_stall_iterations, or
  /// cycling (primal_dual_max_non_descent), falls back to kTangent from its current iterate
  /// (Summary::primal_dual_fallbacks). Settled piles: about half the paper's
  /// iterations.
  kPrimalDual,
};

/// Step length of the Newton iteration v ← v + α Δv.
enum class LineSearch {
  /// α = 1: plain Newton, for comparison (cycles through stick–slip transitions, paper Fig. 2).
  kNone,
  /// The paper's Transition-Aware Line Search (Sec. III-A): α = α_T = minᵢ αᵢ.
  kTals,
  /// TALS and an exact line search (a globalization beyond the paper): α = max(α_T, α*), where α* ∈ (0, 1]
  /// minimizes along Δv the potential ℓ(v) = ½ vᵀMv − p*ᵀv + h Σᵢ [Pᵢ(vnᵢ) + πᵢᵏ μ Φ(‖vtᵢ‖)], whose gradient is the
  /// residual (eq. 12, 21) with the friction's normal force held at the current iterate's πᵏ (exact for one-way,
  /// where π is frozen). ℓ is convex along the line (π decreases in vn, μ̃' ≥ 0), so its slope ℓ'(α) = Δvᵀ r(v + αΔv)
  /// is monotone and its root is found by safeguarded regula falsi on per-contact sums, without matrix products, to
  /// |ℓ'| ≤ 1e-6 |ℓ'(0)| or to the rounding of ℓ''s sums where that is larger (near convergence).
  /// Under plain TALS one transitioning contact limits every other one, so islands with many simultaneous
  /// transitions crawl; α* resolves all of them along the line at once. Where ℓ's lagged normal force makes α*
  /// short while TALS sees no transition, TALS's longer step is kept. Without a descent direction (ℓ'(0) ≥ 0,
  /// possible under two-way coupling), under NewtonSolve::kSymmetricPreconditioner the island takes the direction
  /// Δv = −P⁻¹ r instead, P the symmetric part S = M + h(W_nn + W_tt) (its block Cholesky, possibly kept from an
  /// earlier iteration, or its Schwarz approximation; a dense island's S factored densely), SPD, so that
  /// ℓ'(0) = −rᵀP⁻¹r < 0, and searches along it (SolveCounters::symmetric_directions); otherwise, or where S is not
  /// positive definite, α = α_T. Alone, TALS on the non-descent direction could step back to the previous iterate: a
  /// 2-cycle to the iteration cap, seen on settled piles' steps and on the small islands of a thrown bin.
  kExact,
};

/// Linear solver for the Newton system.
enum class LinearSolverType {
  /// Dense for nv ≤ Options::dense_threshold, else UMFPACK (two-way) or CHOLMOD (one-way).
  kAuto,
  /// SuiteSparse UMFPACK sparse LU (any coupling).
  kUmfpack,
  /// SuiteSparse KLU sparse LU (any coupling): refactors with the previous pivot sequence while it stays well
  /// conditioned, so repeated factorizations of one pattern allocate nothing.
  kKlu,
  /// SuiteSparse CHOLMOD sparse Cholesky (one-way only: requires the SPD matrix of eq. 17).
  kCholmod,
  /// Dense Eigen LU (two-way) or LDLᵀ (one-way): the reference oracle, O(nv³).
  kDense,
};

/// Outcome of a solve. Anything other than kSuccess leaves the caller's state untouched; the Result then holds the
/// last iterate for diagnosis only.
enum class Status {
  kSuccess,
  /// Newton did not meet the tolerance within Options::max_iterations.
  kMaxIterationsReached,
  /// The Newton matrix could not be factored (singular or numerically not positive definite) or the solve failed.
  kLinearSolverFailed,
  /// A NaN or infinity appeared in the residual or the Newton update.
  kNonFiniteValues,
};

/// Each value's one name, snake_case: "success", "max_iterations_reached", "linear_solver_failed",
/// "non_finite_values"; "umfpack", "two_way", "symmetric_preconditioner", "primal_dual", …
const char* ToString(Status status);
const char* ToString(LinearSolverType type);
const char* ToString(Coupling coupling);
const char* ToString(FrictionRegularization regularization);
const char* ToString(LineSearch line_search);
const char* ToString(NewtonSolve newton_solve);
const char* ToString(FrictionNewton friction_newton);

/// Every value of an enum above in declaration order; the argument picks the enum, e.g. AllValues(NewtonSolve{}).
std::vector<Status> AllValues(Status);
std::vector<LinearSolverType> AllValues(LinearSolverType);
std::vector<Coupling> AllValues(Coupling);
std::vector<FrictionRegularization> AllValues(FrictionRegularization);
std::vector<LineSearch> AllValues(LineSearch);
std::vector<NewtonSolve> AllValues(NewtonSolve);
std::vector<FrictionNewton> AllValues(FrictionNewton);

/// The names of Enum's values (ToString) as "a, b or c", for help texts and errors.
template <typename Enum>
std::string Spellings() {
  const std::vector<Enum> values = AllValues(Enum{});
  std::string out;
  for (size_t i = 0; i < values.size(); ++i)
    out += (i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + std::string(ToString(values[i]));
  return out;
}

/// The value of a setting's enum (LinearSolverType, Coupling, FrictionRegularization, LineSearch, NewtonSolve,
/// FrictionNewton) whose ToString is `name`: the one spelling that the command line, the Python bindings and the files
/// they read share. Throws std::invalid_argument naming the bad value and the accepted ones, e.g. "unknown value 'lu'
/// (expected exact, reuse_factorization or symmetric_preconditioner)"; callers add the setting's name.
template <typename Enum>
Enum FromString(const std::string& name) {
  for (Enum value : AllValues(Enum{}))
    if (name == ToString(value)) return value;
  throw std::invalid_argument("unknown value '" + name + "' (expected " + Spellings<Enum>() + ")");
}

/// Solver options; defaults follow the paper (Sec. VI: v_s = 1e-4 m/s, Sec. III-A: θ_max = π/3).
struct Options {
  Coupling coupling{Coupling::kTwoWay};
  FrictionRegularization regularization{FrictionRegularization::kLinear};
  /// Stiction tolerance v_s (m/s), > 0: the regularization velocity of eq. 7.
  double stiction_tolerance{1e-4};
  /// Converged when every contact's Newton update ‖Δvt,i‖ and |Δvn,i| is below relative_tolerance · v_s (m/s).
  /// In (0, 1).
  double relative_tolerance{1e-2};
  /// Newton iteration cap, ≥ 1.
  int max_iterations{100};
  LineSearch line_search{LineSearch::kExact};
  /// TALS angular limit θ_max (rad), in (0, π).
  double max_angle{1.0471975511965976};
  /// Secant safeguard (a globalization beyond the paper, for islands with many simultaneous stick–slip
  /// transitions, where one transitioning contact cuts every step and Newton crawls). An island whose step was cut
  /// to α < secant_entry_alpha while max ‖Δvt,i‖ > secant_exit_factor · v_s enters a secant phase: its sliding
  /// contacts get the secant friction stiffness (π μ̃/‖vt‖) I in place of the tangent of eq. 16, whose missing
  /// stiffness along the slip makes Newton steps overshoot across the stiction disk (kernels::CalcContactForces).
  /// The phase ends, for the rest of the solve, once max ‖Δvt,i‖ ≤ secant_exit_factor · v_s; the island then
  /// finishes with the Newton matrix of eq. 23 (eq. 17), so the converged v and the final convergence rate are
  /// Newton's. Solves whose steps are not cut never enter it. Off: the paper's iteration.
  bool secant_safeguard{true};
  /// α below which the secant phase starts, in (0, 1].
  double secant_entry_alpha{0.5};
  /// ‖Δvt‖ (in units of v_s) above which the secant phase starts and below which it ends, ≥ 1.
  double secant_exit_factor{30.0};
  FrictionNewton friction_newton{FrictionNewton::kPrimalDual};
  /// Primal–dual: the exact line search's bracket may grow to this α, ≥ 1. Above 1 the step may go past Newton's
  /// own: 4 took 3–9 % more iterations than 1 on the settled piles' first steps and 7 % more on the 1,000-body
  /// thrown bin's impacts (bench/README, "Dropped and thrown bins").
  double primal_dual_max_alpha{1.0};
  /// Primal–dual: iterations after which an island that has not converged falls back to kTangent, ≥ 1.
  int primal_dual_stall_iterations{40};
  /// Primal–dual: Newton directions that are not descent directions of the step's slope (Δvᵀr(v) ≥ 0, so that TALS
  /// set α) after which an island falls back to kTangent from its current iterate, ≥ 1. Such a direction marks a
  /// cycle: on the settled N = 500 pile's eighth step the primal–dual iteration repeated a 7-iteration orbit (six
  /// full steps whose ‖Δvt‖ grows from 1.3 v_s to 42 v_s, then one non-descent direction cut by TALS) until the
  /// stall limit, 62 iterations in all; falling back at the second such direction takes 26 (bench/README, "A
  /// primal–dual cycle").
  int primal_dual_max_non_descent{2};
  /// Solve each island (connected component of the Newton matrix's graph: velocities coupled through M or a shared
  /// contact) with its own factorization, TALS α and convergence test, islands in parallel. Off: one Newton
  /// iteration over the whole system with a global α (the paper's formulation). Both meet the same tolerance.
  bool use_islands{true};
  LinearSolverType linear_solver{LinearSolverType::kAuto};
  NewtonSolve newton_solve{NewtonSolve::kSymmetricPreconditioner};
  /// GMRES (kReuseFactorization, kSymmetricPreconditioner): relative residual ‖b − AΔv‖/‖b‖ to reach, in (0, 1),
  /// and iteration budget per Newton iteration, ≥ 1. Newton's own test is on the step (relative_tolerance · v_s),
  /// which an error of 1e-2 of the step does not move. On the settled N = 500 pile's first steps, 1e-2 takes 21 GMRES
  /// iterations per step where 1e-3 took 32, for the same 11.3 Newton iterations; 1e-6 took 7 per Newton iteration,
  /// for one Newton iteration fewer in 80. The dropped bins' runs were 2–12 % faster than at 1e-3, with up to 4 % more
  /// Newton iterations (bench/README.md, "GMRES to 1e-2").
  double krylov_tolerance{1e-2};
  int max_krylov_iterations{20};
  /// kSymmetricPreconditioner with the block Cholesky of S (islands below schwarz_threshold): an island whose last
  /// Newton update (max ‖Δvt,i‖, |Δvn,i|) was at most this many v_s first runs GMRES preconditioned by its last
  /// factorization of S, within 5 iterations, and factors this iteration's S only when that falls short; ≥ 0 (0:
  /// a factorization in every iteration). Once every contact moves by less than v_s per iteration its stick/slip
  /// state and S change little. Each solve's Newton systems still meet krylov_tolerance, so the iterates barely move:
  /// on 50 steps of the settled N = 500 pile, 590 Newton iterations with 719 factorizations and 1,120 GMRES
  /// iterations, against 585, 783 and 1,069 with 0 (3 v_s: 605, 701 and 1,283; 10 v_s: 585, 665 and 1,511; the 0.4 s
  /// run 3–4 % slower at 3 and 10 v_s; bench/README.md).
  double keep_preconditioner_update{1.0};
  /// kSymmetricPreconditioner, two-way: islands of at least this many velocities are preconditioned by one-level
  /// overlapping Schwarz on S instead of a Cholesky of S, ≥ 1, unless their Cholesky is cheap
  /// (cholesky_flops_per_velocity): of the settled piles' islands, N = 500 (2,988 velocities) is below it, N = 1,000
  /// (5,946) above it but cheap, N = 3,000 and up on Schwarz. Not chosen by the thread count, so that results stay
  /// bitwise identical for any num_threads (CHOLMOD-era figures: bench/README.md, "Big islands").
  int schwarz_threshold{5000};
  /// kSymmetricPreconditioner, two-way: an island of at least schwarz_threshold velocities keeps the Cholesky of S
  /// when AMD's estimate of its flops (per velocity, at the island's first Newton iteration) is at most this, ≥ 0;
  /// 0: every such island on Schwarz. The settled piles: N = 500 ~9,200, N = 1,000 ~22,500, N = 3,000 ~100,000; one
  /// tower of spheres ~36 at any height, factored 1.4–1.5× faster than Schwarz preconditions it on one thread (6,000
  /// to 60,000 velocities); the 1,000-body dropped bin's islands of 5,000–5,900 velocities 900–10,000. The Cholesky's
  /// factorization runs on the thread budget (subtrees, then row chunks of the supernodes above them). Steps of the
  /// settled piles on a 2-core machine, Cholesky against Schwarz: N = 1,000 62 against 111 ms on one thread, 45
  /// against 69 ms on two; N = 3,000 572 against 418 ms, 341 against 227 ms. Interpolated per velocity, the two
  /// cost the same at ~61,000 (one thread) and ~55,000 (two); 40,000 leaves the rest to Schwarz, whose work splits
  /// over more threads (bench/README.md, "A parallel block Cholesky").
  double cholesky_flops_per_velocity{40000.0};
  /// Schwarz: bodies (velocities joined through M or touched by the same contacts) per subdomain before one layer of
  /// overlap is added, ≥ 1: an island gets as many parts as halving its bodies until each holds at most this many
  /// gives, and METIS's k-way partition of its body graph balances them to within 3 %; an island of fewer than 16 ×
  /// this many bodies is cut by ⌈bodies / 16⌉ instead, so that 16 cores have work. 256: the fastest on the N = 10,000
  /// pile (64 subdomains, 233 GMRES iterations per step against 334 with 32 bodies per part, under the partition
  /// before METIS's).
  int schwarz_part_bodies{256};
  /// Schwarz: GMRES's relative residual, in (0, 1), and iteration budget per Newton iteration, ≥ 1. A looser
  /// forcing term than krylov_tolerance: each Schwarz-preconditioned GMRES iteration costs more than a few Newton
  /// iterations saved (on dumped N = 3,000 pile steps: 1e-3 → 38, 1e-2 → 22, 3e-2 → 16 GMRES iterations per Newton
  /// iteration, and 17, 18, 21 Newton iterations; 1e-2 is the fastest; early iterates need up to ~60).
  double schwarz_krylov_tolerance{1e-2};
  int max_schwarz_krylov_iterations{80};
  /// Schwarz: a subdomain's block S_d is factored again only when some entry changed by more than this fraction of
  /// √(S_ii S_jj) since its last factorization, ≥ 0 (0: whenever any entry changed). The block is only the
  /// preconditioner, so the Newton systems are solved to the same forcing term either way. On the dumped N = 10,000
  /// pile step, 0.05 keeps 28 % of the subdomain factorizations, mostly in the last iterations, with the same GMRES
  /// and Newton iterations (233, 17); 0.2 keeps 36 % for 11 % more GMRES iterations; 1 makes GMRES fall short.
  double schwarz_refactor_tolerance{0.05};
  /// kAuto uses the dense backend for systems (islands) of up to this many velocities.
  int dense_threshold{32};
  /// Thread budget for the parallel kernels, in [0, kernels::MaxThreads()] (max(64, 8 × hardware threads)); 0 means
  /// all hardware threads. Results are bitwise identical for any value.
  int num_threads{1};
  /// Read the clock around each phase of a solve to fill SolveCounters' phase times (time_*), a few reads per Newton
  /// iteration: about 3 % of a step of the gripper's 16 contacts, nothing on large islands. false: no clock is read
  /// and every phase time is 0 s. Results are bitwise identical either way.
  bool time_phases{true};

  /// True when every field is in range; otherwise false with *error naming the field.
  bool IsValid(std::string* error) const;
};

/// What a solve counted and where its time went: every field adds up over islands, over solves and over the steps of
/// a run (scenes::RunStatistics). Declared here and named in ForEachCounter, once each: the full report, the solution
/// JSON, a run's totals and the Python bindings are generated from them, so adding a counter is its line here, its
/// line in ForEachCounter, and the place that counts it.
struct SolveCounters {
  /// Newton iterations in which any island's Newton matrix had secant friction blocks (0: the paper's Newton
  /// iteration throughout).
  long long secant_iterations{0};
  /// Islands whose primal–dual iteration stalled or cycled and fell back to the paper's (FrictionNewton::kPrimalDual).
  long long primal_dual_fallbacks{0};
  /// Island iterations whose Newton direction was not a descent direction of the exact line search's lagged potential
  /// and that stepped along the symmetric preconditioner's direction instead (LineSearch::kExact).
  long long symmetric_directions{0};
  /// Symbolic analyses done, summed over islands: 0 when the Newton matrix had the pattern of the previous solve, even
  /// with other contacts (the same pairs of bodies touching), whose islands and analyses are kept.
  long long symbolic_factorizations{0};
  long long numeric_factorizations{0};
  /// Island Newton systems solved (one per island per iteration it takes part in); of those, the ones GMRES solved
  /// to krylov_tolerance (Options::newton_solve; the rest were factored exactly), so krylov_solves / newton_systems
  /// is the reuse rate of kReuseFactorization; and all GMRES iterations, those of attempts that fell short included.
  long long newton_systems{0};
  long long krylov_solves{0};
  long long krylov_iterations{0};
  /// Islands preconditioned by overlapping Schwarz (Options::schwarz_threshold), and their subdomains; the subdomain
  /// blocks factored over all iterations (the others kept their last factorization,
  /// Options::schwarz_refactor_tolerance).
  long long schwarz_islands{0};
  long long schwarz_subdomains{0};
  long long schwarz_factorizations{0};
  /// Seconds spent (the phase times, each named time_<phase>): evaluating contact forces and the residual; assembling
  /// the Newton matrix (and validating the problem, finding islands); symbolic analysis; numeric factorization;
  /// triangular solves (and GMRES); the line search (contact velocity changes, TALS, the exact search); and in total
  /// (wall clock). The per-island phases (symbolic, numeric, solve, line search) are summed over islands: CPU seconds
  /// when islands run in parallel. All 0 when Options::time_phases is false.
  double time_residual{0}, time_assembly{0}, time_symbolic{0}, time_numeric{0}, time_solve{0}, time_line_search{0},
      time_total{0};

  /// Adds every field of `other`.
  SolveCounters& operator+=(const SolveCounters& other);
};

/// Calls visit(name, member) for each field of SolveCounters in declaration order, with its name and a pointer to it
/// (e.g. "krylov_iterations", &SolveCounters::krylov_iterations): the one list of the counters.
template <typename Visitor>
constexpr void ForEachCounter(Visitor&& visit) {
  visit("secant_iterations", &SolveCounters::secant_iterations);
  visit("primal_dual_fallbacks", &SolveCounters::primal_dual_fallbacks);
  visit("symmetric_directions", &SolveCounters::symmetric_directions);
  visit("symbolic_factorizations", &SolveCounters::symbolic_factorizations);
  visit("numeric_factorizations", &SolveCounters::numeric_factorizations);
  visit("newton_systems", &SolveCounters::newton_systems);
  visit("krylov_solves", &SolveCounters::krylov_solves);
  visit("krylov_iterations", &SolveCounters::krylov_iterations);
  visit("schwarz_islands", &SolveCounters::schwarz_islands);
  visit("schwarz_subdomains", &SolveCounters::schwarz_subdomains);
  visit("schwarz_factorizations", &SolveCounters::schwarz_factorizations);
  visit("time_residual", &SolveCounters::time_residual);
  visit("time_assembly", &SolveCounters::time_assembly);
  visit("time_symbolic", &SolveCounters::time_symbolic);
  visit("time_numeric", &SolveCounters::time_numeric);
  visit("time_solve", &SolveCounters::time_solve);
  visit("time_line_search", &SolveCounters::time_line_search);
  visit("time_total", &SolveCounters::time_total);
}

/// Calls visit(name, field) for each field of `counters` (a SolveCounters, const or not) in declaration order: counts
/// are long long, phase times double seconds.
template <typename Counters, typename Visitor>
void ForEachField(Counters& counters, Visitor&& visit) {
  ForEachCounter([&](const char* name, auto member) { visit(name, counters.*member); });
}

/// The phase that a phase time's field name (ForEachCounter's "time_<phase>") names: "time_residual" → "residual".
inline const char* PhaseName(const char* time_field) { return time_field + sizeof("time_") - 1; }

/// Statistics of one solve (Ceres-style: what was asked and what was used).
struct Summary {
  Status status{Status::kSuccess};
  int iterations{0};
  /// Per iteration (over the islands still iterating): max over contacts of the full Newton update ‖Δvt,i‖ (m/s) and
  /// |Δvn,i| (m/s), the TALS α applied (v ← v + α Δv; the smallest over islands), and how many contacts had αᵢ < 1.
  std::vector<double> vt_residual;
  std::vector<double> vn_residual;
  std::vector<double> alpha;
  std::vector<int> tals_limited_contacts;
  /// Per iteration (LineSearch::kExact): slope evaluations of the line search summed over islands, and islands where
  /// Δv was not a descent direction of the potential, so TALS alone set α.
  std::vector<int> line_search_evaluations;
  std::vector<int> tals_fallbacks;
  /// Per iteration: islands whose Newton matrix had secant friction blocks (Options::secant_safeguard).
  std::vector<int> secant_islands;
  /// Islands solved, and the velocities of the largest.
  int num_islands{0};
  int largest_island{0};
  /// Contacts whose stick/slip state (‖vt‖ < v_s) differs between the first and the last iterate.
  int stick_slip_transitions{0};
  int num_velocities{0};
  int num_contacts{0};
  /// Bilateral constraint rows (ContactProblem::Jb), and the largest |g| = |g0 + h Jb v| over them at the solution
  /// (each row in its own unit, m or rad; 0 without constraints).
  int num_constraints{0};
  double max_constraint_violation{0};
  /// True when M, Jn and Jt had the sparsity patterns of the previous solve, so the structure (contact blocks, Newton
  /// matrix pattern, islands) and the symbolic analyses were reused.
  bool structure_reused{false};
  /// Nonzeros of the Newton matrix (full pattern).
  long long newton_matrix_nnz{0};
  /// What the solve counted and where its time went.
  SolveCounters counters;
  int num_threads_given{1}, num_threads_used{1};
  LinearSolverType linear_solver_given{LinearSolverType::kAuto};
  /// The backend of the largest island's Newton matrix. With NewtonSolve::kSymmetricPreconditioner it factors only
  /// the systems GMRES did not solve (newton_systems − krylov_solves); S is factored by tamsi's block Cholesky, or by
  /// Schwarz's subdomains in the counters' schwarz_islands.
  LinearSolverType linear_solver_used{LinearSolverType::kDense};
  Coupling coupling{Coupling::kTwoWay};
  LineSearch line_search{LineSearch::kExact};
  NewtonSolve newton_solve{NewtonSolve::kSymmetricPreconditioner};
  FrictionNewton friction_newton{FrictionNewton::kPrimalDual};
  /// Set when status is kLinearSolverFailed: the backend's own words.
  std::string message;

  /// One line: status, iterations, final residuals, time.
  std::string BriefReport() const;
  /// A table of everything above, with the per-iteration history.
  std::string FullReport() const;
};

/// The solution of one step.
struct Result {
  /// Generalized velocities v (nv, m/s or rad/s).
  Eigen::VectorXd v;
  /// Normal forces π (nc, N, ≥ 0) at v (eq. 5 with eq. 19 for two-way; frozen for one-way).
  Eigen::VectorXd fn;
  /// Friction forces ft (2nc, N) at v (eq. 6).
  Eigen::VectorXd ft;
  /// Separation velocities vn = Jn v (nc, m/s) and tangential velocities vt = Jt v (2nc, m/s).
  Eigen::VectorXd vn, vt;
  /// Bilateral constraint forces λ = −k (g0 + h Jb v) − c Jb v (nb, N or N·m; ContactProblem::Jb).
  Eigen::VectorXd constraint_forces;
  Summary summary;
  bool ok() const { return summary.status == Status::kSuccess; }
};

/// Solves ContactProblems with Newton–Raphson on v and TALS (paper Sec. III-A, V).
///
/// Two-way residual (eq. 21): r(v) = M v − p* − h Jnᵀ π(vn) − h Jtᵀ ft(vt, vn); one-way residual (eq. 12) freezes π.
/// Each iteration assembles the Newton matrix from per-contact blocks in parallel (the sliding contacts' blocks as
/// Options::friction_newton asks), solves for Δv on every island (Options::newton_solve; symbolic analyses kept
/// across iterations and across solves while the sparsity pattern holds), and limits the step by a line search
/// (Options::line_search; TALS α = minᵢ αᵢ in the paper's iteration).
///
/// A solver object holds workspaces and the symbolic factorization; reuse one across time steps. Not thread-safe:
/// use one object per thread.
class TamsiSolver {
 public:
  /// Throws std::invalid_argument if options are invalid (the message names the field).
  explicit TamsiSolver(const Options& options = Options());
  ~TamsiSolver();
  TamsiSolver(TamsiSolver&&) noexcept;
  TamsiSolver& operator=(TamsiSolver&&) noexcept;

  const Options& options() const { return options_; }
  /// Throws std::invalid_argument if options are invalid.
  void set_options(const Options& options);

  /// Solves one step. Throws std::invalid_argument for an invalid problem (ContactProblem::Validate, and an M that
  /// its Cholesky factorization finds not positive definite: "ContactProblem.M: must be positive definite (...)");
  /// numerical trouble is reported in result->summary.status, never thrown.
  Status Solve(const ContactProblem& problem, Result* result);

 private:
  struct Impl;
  Options options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tamsi
