// The solver's public headers compile without TBB's (the thread budget's definition, parallel.h, stays inside the
// kernels' and the solver's sources): this file fails to build when one of them includes TBB.
#include <tamsi/contact_problem.h>
#include <tamsi/newton_system.h>
#include <tamsi/problem_io.h>
#include <tamsi/tamsi_solver.h>

#if defined(__TBB_detail__config_H) || defined(TBB_VERSION_MAJOR) || defined(__TBB_tbb_stddef_H)
#error "a public header of the solver includes TBB"
#endif
