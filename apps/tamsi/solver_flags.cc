#include <tamsi/tamsi_solver.h>

#include <map>
#include <string>

#include "commands.h"

namespace tamsi::cli {

void AddIterationOptions(CLI::App* cmd, Options* options) {
  static const std::map<std::string, NewtonSolve> kSolves{{"exact", NewtonSolve::kExact},
                                                          {"reuse", NewtonSolve::kReuseFactorization},
                                                          {"symmetric", NewtonSolve::kSymmetricPreconditioner}};
  cmd->add_option("--newton-solve", options->newton_solve,
                  "exact (a factorization per iteration), reuse (GMRES on kept factorizations) or symmetric (GMRES "
                  "preconditioned by a Cholesky of M + h(W_nn + W_tt)); default " +
                      std::string(ToString(options->newton_solve)))
      ->transform(CLI::CheckedTransformer(kSolves, CLI::ignore_case));
  static const std::map<std::string, FrictionNewton> kFrictions{{"primal-dual", FrictionNewton::kPrimalDual},
                                                                {"tangent", FrictionNewton::kTangent}};
  cmd->add_option("--friction-newton", options->friction_newton,
                  "primal-dual (a dual friction direction per contact) or tangent (the paper's eq. 16 iteration); "
                  "default " +
                      std::string(ToString(options->friction_newton)))
      ->transform(CLI::CheckedTransformer(kFrictions, CLI::ignore_case));
  cmd->add_option("--krylov-tolerance", options->krylov_tolerance,
                  "GMRES's relative residual for the symmetric and reuse Newton solves (default 1e-3)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--schwarz-threshold", options->schwarz_threshold,
                  "symmetric: islands of at least this many velocities are preconditioned by overlapping Schwarz "
                  "instead of a Cholesky (default " +
                      std::to_string(options->schwarz_threshold) + ")")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--schwarz-part-bodies", options->schwarz_part_bodies,
                  "Schwarz: bodies per subdomain before its layer of overlap (default " +
                      std::to_string(options->schwarz_part_bodies) + ")")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--no-secant-safeguard{false}", options->secant_safeguard,
                "Tangent iteration: the paper's Newton matrix in every iteration (no secant phase after cut steps)");
}

}  // namespace tamsi::cli
