// Problem dump and replay: exact round trip, and malformed documents name the bad field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <tamsi/problem_io.h>
#include <tamsi/tamsi_solver.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "random_problem.h"

namespace tamsi {
namespace {

using ::testing::HasSubstr;

bool SameMatrix(const SparseMatrix& a, const SparseMatrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() && Eigen::MatrixXd(a) == Eigen::MatrixXd(b);
}

TEST(ProblemIo, RoundTripIsExactAndReplaysToTheSameSolution) {
  ContactProblem problem = testing::RandomProblem(30, 8, 21);
  problem.v0 = Eigen::VectorXd::LinSpaced(30, -1.0 / 3, 1.0 / 7);
  problem.w_guess = Eigen::VectorXd::LinSpaced(16, -0.7, 1.0 / 3);
  const std::string path = ::testing::TempDir() + "/problem.json";
  WriteProblem(problem, path);
  const ContactProblem replayed = ReadProblem(path);
  std::remove(path.c_str());
  EXPECT_EQ(replayed.time_step, problem.time_step);
  EXPECT_TRUE(SameMatrix(replayed.M, problem.M));
  EXPECT_TRUE(SameMatrix(replayed.Jn, problem.Jn));
  EXPECT_TRUE(SameMatrix(replayed.Jt, problem.Jt));
  EXPECT_EQ(replayed.p_star, problem.p_star);
  EXPECT_EQ(replayed.delta0, problem.delta0);
  EXPECT_EQ(replayed.stiffness, problem.stiffness);
  EXPECT_EQ(replayed.dissipation, problem.dissipation);
  EXPECT_EQ(replayed.friction, problem.friction);
  EXPECT_EQ(*replayed.v0, *problem.v0);
  EXPECT_EQ(*replayed.v_guess, *problem.v_guess);
  EXPECT_EQ(*replayed.w_guess, *problem.w_guess);
  TamsiSolver solver;
  Result a, b;
  ASSERT_EQ(solver.Solve(problem, &a), Status::kSuccess);
  ASSERT_EQ(solver.Solve(replayed, &b), Status::kSuccess);
  EXPECT_EQ(a.v, b.v);
  // The solution document carries the same numbers.
  const auto doc = nlohmann::json::parse(ResultToJson(a));
  EXPECT_EQ(doc["status"], "success");
  EXPECT_EQ(doc["v"].get<std::vector<double>>(), std::vector<double>(a.v.data(), a.v.data() + a.v.size()));
  EXPECT_EQ(doc["iterations"], a.summary.iterations);
  EXPECT_EQ(doc["summary"]["secant_islands"].get<std::vector<int>>(), a.summary.secant_islands);
  EXPECT_EQ(doc["summary"]["secant_iterations"], a.summary.counters.secant_iterations);
}

TEST(ProblemIo, OptionalFieldsMayBeAbsent) {
  ContactProblem problem = testing::RandomProblem(5, 2, 3);
  problem.v_guess.reset();
  const ContactProblem replayed = ProblemFromJson(ProblemToJson(problem));
  EXPECT_FALSE(replayed.v_guess.has_value());
  EXPECT_FALSE(replayed.v0.has_value());
  EXPECT_FALSE(replayed.w_guess.has_value());
}

TEST(ProblemIo, MalformedDocumentsNameTheField) {
  const nlohmann::json good = nlohmann::json::parse(ProblemToJson(testing::RandomProblem(4, 2, 5)));
  auto expect_error = [&](auto mutate, const std::string& expected) {
    nlohmann::json doc = good;
    mutate(doc);
    try {
      ProblemFromJson(doc.dump());
      ADD_FAILURE() << "no error, expected " << expected;
    } catch (const ProblemFormatError& e) {
      EXPECT_THAT(e.what(), HasSubstr(expected));
    }
  };
  expect_error([](auto& d) { d["format"] = "other"; }, "problem.format");
  expect_error([](auto& d) { d["version"] = 2; }, "problem.version");
  expect_error([](auto& d) { d.erase("p_star"); }, "problem.p_star: missing");
  expect_error([](auto& d) { d["p_star"].push_back(1.0); }, "problem.p_star: expected 4 entries");
  expect_error([](auto& d) { d["friction"][1] = "high"; }, "problem.friction[1]");
  expect_error([](auto& d) { d["Jt"]["rows"] = 3; }, "problem.Jt: expected 4 × 4");
  expect_error([](auto& d) { d["Jn"]["triplets"][0] = {0, 9, 1.0}; }, "problem.Jn.triplets[0]: column 9 out of range");
  expect_error([](auto& d) { d["stiffness"][0] = -5.0; }, "problem.stiffness");
  expect_error([](auto& d) { d["time_step"] = -1.0; }, "problem.time_step");
  EXPECT_THROW(ProblemFromJson("{not json"), ProblemFormatError);
  EXPECT_THROW(ReadProblem("/nonexistent/problem.json"), ProblemFormatError);
}

// Hostile files: a number beyond a double, sizes the file does not hold, sizes whose doubling overflows an int. Each
// is one ProblemFormatError naming what is wrong, raised before anything of the declared size is allocated.
TEST(ProblemIo, HostileSizesAndNumbersAreNamedErrors) {
  std::string text = ProblemToJson(testing::RandomProblem(4, 2, 5));
  const std::string step = "\"time_step\":";
  const auto at = text.find(step) + step.size();
  std::string huge = text;
  huge.replace(at, text.find(',', at) - at, "2e310");
  EXPECT_THAT([&] { ProblemFromJson(huge); },
              ::testing::ThrowsMessage<ProblemFormatError>(HasSubstr("not valid JSON")));
  // A 10,000-digit number: the parser's message quotes it whole; the error keeps its first 200 characters.
  huge.replace(at, 5, std::string(10000, '3'));
  try {
    ProblemFromJson(huge);
    ADD_FAILURE() << "a 10,000-digit number was read";
  } catch (const ProblemFormatError& e) {
    EXPECT_THAT(e.what(), HasSubstr("not valid JSON"));
    EXPECT_LT(std::string(e.what()).size(), 300u);
  }
  // A key given twice would leave one of its values unread: refused by name, at any depth.
  std::string twice = text;
  twice.insert(1, "\"stiffness\":[-5.0],");
  EXPECT_THAT([&] { ProblemFromJson(twice); },
              ::testing::ThrowsMessage<ProblemFormatError>(HasSubstr("problem.stiffness: given twice")));
  twice = text;
  const auto rows = twice.find("\"rows\":");
  twice.insert(rows, "\"rows\":4,");
  EXPECT_THAT([&] { ProblemFromJson(twice); },
              ::testing::ThrowsMessage<ProblemFormatError>(HasSubstr("problem.rows: given twice")));
  nlohmann::json doc = nlohmann::json::parse(text);
  // A small file declaring nv = 1e8 (and matrices that size): its p_star holds 4 entries.
  doc["nv"] = 100000000;
  for (const char* m : {"M", "Jn", "Jt"}) doc[m]["cols"] = 100000000;
  doc["M"]["rows"] = 100000000;
  EXPECT_THAT(
      [&] { ProblemFromJson(doc.dump()); },
      ::testing::ThrowsMessage<ProblemFormatError>(HasSubstr("problem.p_star: expected 100000000 entries, got 4")));
  doc = nlohmann::json::parse(text);
  doc["nc"] = 1500000000;  // 2 nc overflows an int
  EXPECT_THAT([&] { ProblemFromJson(doc.dump()); },
              ::testing::ThrowsMessage<ProblemFormatError>(HasSubstr("problem.nc: at most 268435456")));
}

}  // namespace
}  // namespace tamsi
