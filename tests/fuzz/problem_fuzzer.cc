// libFuzzer target: the problem reader, then a bounded solve. Bad input must end in the documented errors
// (ProblemFormatError from the reader, std::invalid_argument from Solve); anything else (another exception, a signal,
// a sanitizer report, a hang) is a defect.
#include <tamsi/problem_io.h>
#include <tamsi/tamsi_solver.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tamsi::ContactProblem problem;
  try {
    problem = tamsi::ProblemFromJson(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const tamsi::ProblemFormatError&) {
    return 0;
  }
  tamsi::Options options;
  options.max_iterations = 10;
  tamsi::TamsiSolver solver(options);
  tamsi::Result result;
  try {
    solver.Solve(problem, &result);
    problem.v_guess.reset();  // again from the free motion, on the kept structure
    solver.Solve(problem, &result);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
