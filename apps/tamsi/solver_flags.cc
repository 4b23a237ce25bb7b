#include <tamsi/tamsi_solver.h>

#include <map>
#include <string>

#include "commands.h"

namespace tamsi::cli {

CLI::Option* AddNewtonSolveOption(CLI::App* cmd, NewtonSolve* newton_solve) {
  static const std::map<std::string, NewtonSolve> kChoices{{"exact", NewtonSolve::kExact},
                                                           {"reuse", NewtonSolve::kReuseFactorization},
                                                           {"symmetric", NewtonSolve::kSymmetricPreconditioner}};
  return cmd
      ->add_option("--newton-solve", *newton_solve,
                   "exact (a factorization per iteration), reuse (GMRES on kept factorizations) or symmetric (GMRES "
                   "preconditioned by a Cholesky of M + h(W_nn + W_tt)); default exact")
      ->transform(CLI::CheckedTransformer(kChoices, CLI::ignore_case));
}

}  // namespace tamsi::cli
