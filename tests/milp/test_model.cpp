// The MILP layer on small models whose optimum is known by hand or by enumeration, plus CBC's
// statuses (infeasible, unbounded, time limit), MIP starts, threads and a quiet stdout.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include "hiremate/common/error.h"
#include "hiremate/milp/model.h"
#include "hiremate/milp/solve.h"

using namespace hiremate;
using namespace hiremate::milp;

namespace {

Options exact(double time_limit = 30) {
  Options o;
  o.time_limit = time_limit;
  o.relative_gap = 0;
  return o;
}

// 0/1 knapsack: maximize sum(value) subject to sum(weight) <= capacity.
struct Knapsack {
  std::vector<double> value, weight;
  double capacity = 0;
};

Knapsack random_knapsack(int n, unsigned seed) {
  std::mt19937 rng(seed);
  Knapsack k;
  double total = 0;
  for (int j = 0; j < n; ++j) {
    k.weight.push_back(10 + rng() % 90);
    k.value.push_back(k.weight.back() + rng() % 40);  // correlated: the LP bound is not tight
    total += k.weight.back();
  }
  k.capacity = std::floor(total / 2);
  return k;
}

// `fixed[j]`: -1 free, 0 or 1 forced. Returns the best value over all 2^n choices.
double brute_force(const Knapsack& k, const std::vector<int>& fixed) {
  const int n = static_cast<int>(k.value.size());
  double best = -1;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    double w = 0, v = 0;
    bool ok = true;
    for (int j = 0; j < n; ++j) {
      const int bit = (mask >> j) & 1;
      if (fixed[j] >= 0 && bit != fixed[j]) ok = false;
      w += bit * k.weight[j];
      v += bit * k.value[j];
    }
    if (ok && w <= k.capacity) best = std::max(best, v);
  }
  return best;
}

Model knapsack_model(const Knapsack& k) {
  Model m;
  m.set_minimize(false);
  std::vector<Term> row;
  for (size_t j = 0; j < k.value.size(); ++j) {
    row.push_back({m.add_var(VarType::Binary, 0, 1, k.value[j]), k.weight[j]});
  }
  m.add_row(row, -kInf, k.capacity, "capacity");
  return m;
}

// A market-split instance (Cornuejols and Dawande): equality rows with random coefficients over
// binaries, with one planted solution. CBC's heuristics almost never find a feasible point, so it
// is the model for testing MIP starts and "time limit, no solution".
struct Split {
  Model model;
  std::vector<double> planted;
  double planted_objective = 0;
};

Split market_split(int n, int rows, unsigned seed) {
  std::mt19937 rng(seed);
  Split s;
  for (int j = 0; j < n; ++j) s.planted.push_back(rng() % 2);
  for (int j = 0; j < n; ++j) {
    const double c = 1 + rng() % 9;
    s.model.add_var(VarType::Binary, 0, 1, c);
    s.planted_objective += c * s.planted[j];
  }
  for (int i = 0; i < rows; ++i) {
    std::vector<Term> row;
    double rhs = 0;
    for (int j = 0; j < n; ++j) {
      const double a = rng() % 100;
      row.push_back({j, a});
      rhs += a * s.planted[j];
    }
    s.model.add_row(row, rhs, rhs);
  }
  return s;
}

// Multi-dimensional knapsack with correlated values: hard to prove optimal, easy to find good
// solutions for. About 2000 binaries and 5 rows cannot be closed to gap 0 in a second.
Model hard_knapsack(int n, int rows, unsigned seed) {
  std::mt19937 rng(seed);
  Model m;
  m.set_minimize(false);
  std::vector<std::vector<double>> a(rows, std::vector<double>(n));
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < n; ++j) a[i][j] = 100 + rng() % 900;
  for (int j = 0; j < n; ++j) {
    double w = 0;
    for (int i = 0; i < rows; ++i) w += a[i][j];
    m.add_var(VarType::Binary, 0, 1, w / rows + 50 + rng() % 20);
  }
  for (int i = 0; i < rows; ++i) {
    std::vector<Term> row;
    double total = 0;
    for (int j = 0; j < n; ++j) {
      row.push_back({j, a[i][j]});
      total += a[i][j];
    }
    m.add_row(row, -kInf, std::floor(total / 2));
  }
  return m;
}

}  // namespace

TEST(MilpModel, RowsMergeRepeatsAndDropZeros) {
  Model m;
  const Var x = m.add_var(VarType::Continuous, 0, 10);
  const Var y = m.add_var(VarType::Integer, -5, 5);
  const Var z = m.add_var(VarType::Binary, 0, 1);
  m.add_row({{x, 1}, {y, 2}, {x, 3}, {z, 0}, {y, -2}}, -kInf, 4);  // 4x + 0y + 0z
  m.add_row({{z, 1}, {y, 1}}, 1, 1);
  EXPECT_EQ(m.num_vars(), 3u);
  EXPECT_EQ(m.num_rows(), 2u);
  EXPECT_EQ(m.num_nonzeros(), 3u);
  EXPECT_EQ(m.num_integer_vars(), 2u);
  EXPECT_EQ(m.row_starts(), (std::vector<size_t>{0, 1, 3}));
  EXPECT_EQ(m.row_vars(), (std::vector<Var>{x, z, y}));
  EXPECT_EQ(m.row_coefs(), (std::vector<double>{4, 1, 1}));
  // x = 1 breaks row 0 by 0; y = 0.5 breaks integrality by 0.5 and row 1 (z + y = 1) by 0.5.
  EXPECT_DOUBLE_EQ(m.max_violation({1, 0, 1}), 0);
  EXPECT_DOUBLE_EQ(m.max_violation({2, 0, 1}), 4);    // 4x = 8 > 4
  EXPECT_DOUBLE_EQ(m.max_violation({0, 0.5, 1}), 0.5);
  EXPECT_DOUBLE_EQ(m.max_violation({0, 0, 0}), 1);    // z + y = 0 < 1
}

TEST(MilpModel, MisuseFailsAssertions) {
  Model m;
  const Var x = m.add_var(VarType::Binary, 0, 1);
  EXPECT_THROW(m.add_row({{x + 1, 1}}, 0, 1), Error);       // no such variable
  EXPECT_THROW(m.add_row({{-1, 1}}, 0, 1), Error);
  EXPECT_THROW(m.add_row({{x, 1}}, 2, 1), Error);           // lb > ub
  EXPECT_THROW(m.add_var(VarType::Binary, 0, 2), Error);     // binary beyond [0, 1]
  EXPECT_THROW(m.set_bounds(x, -1, 1), Error);
  EXPECT_THROW(m.set_obj(x + 5, 1), Error);
  EXPECT_THROW(m.set_start({{7, 1.0}}), Error);
  EXPECT_THROW(m.add_row({{x, std::nan("")}}, 0, 1), Error);
  Options bad;
  bad.time_limit = 0;
  EXPECT_THROW(solve(m, bad), Error);
  EXPECT_EQ(m.num_rows(), 0u);  // nothing half-added
}

TEST(MilpSolve, KnapsackMatchesEnumeration) {
  const Knapsack k = random_knapsack(14, 7);
  const Model m = knapsack_model(k);
  const Result r = solve(m, exact());
  ASSERT_EQ(r.status, Status::Optimal) << to_string(r.status);
  EXPECT_DOUBLE_EQ(r.objective, brute_force(k, std::vector<int>(14, -1)));
  EXPECT_LE(m.max_violation(r.solution), 1e-9);
  EXPECT_NEAR(r.bound, r.objective, 1e-6);  // maximizing: bound >= objective, and closed
  EXPECT_GE(r.bound, r.objective);
  EXPECT_NEAR(r.gap, 0, 1e-9);
  for (double x : r.solution) EXPECT_TRUE(x == 0 || x == 1) << x;  // rounded
}

TEST(MilpSolve, FixedVariablesViaSetBounds) {
  const Knapsack k = random_knapsack(14, 11);
  Model m = knapsack_model(k);
  const Result free = solve(m, exact());
  ASSERT_EQ(free.status, Status::Optimal);
  // Force out the first chosen item and force in the first unchosen one.
  std::vector<int> fixed(14, -1);
  const auto in = std::find(free.solution.begin(), free.solution.end(), 1.0) - free.solution.begin();
  const auto out = std::find(free.solution.begin(), free.solution.end(), 0.0) - free.solution.begin();
  ASSERT_LT(in, 14);
  ASSERT_LT(out, 14);
  fixed[in] = 0;
  fixed[out] = 1;
  m.set_bounds(static_cast<Var>(in), 0, 0);
  m.set_bounds(static_cast<Var>(out), 1, 1);
  const Result r = solve(m, exact());
  ASSERT_EQ(r.status, Status::Optimal);
  EXPECT_EQ(r.solution[in], 0);
  EXPECT_EQ(r.solution[out], 1);
  EXPECT_DOUBLE_EQ(r.objective, brute_force(k, fixed));
  EXPECT_LE(r.objective, free.objective);
}

// max x + y  s.t.  x + 2y <= 4,  3x + y <= 6: the LP optimum is (1.6, 1.2) = 2.8, the integer
// one 2 (at (1, 1) or (2, 0)).
TEST(MilpSolve, IntegerOptimumDiffersFromLpRelaxation) {
  auto build = [](VarType t) {
    Model m;
    m.set_minimize(false);
    const Var x = m.add_var(t, 0, kInf, 1);
    const Var y = m.add_var(t, 0, kInf, 1);
    m.add_row({{x, 1}, {y, 2}}, -kInf, 4);
    m.add_row({{x, 3}, {y, 1}}, -kInf, 6);
    return m;
  };
  const Result lp = solve(build(VarType::Continuous), exact());
  ASSERT_EQ(lp.status, Status::Optimal);
  EXPECT_NEAR(lp.objective, 2.8, 1e-9);
  EXPECT_NEAR(lp.solution[0], 1.6, 1e-9);
  EXPECT_NEAR(lp.solution[1], 1.2, 1e-9);
  const Model ip_model = build(VarType::Integer);
  const Result ip = solve(ip_model, exact());
  ASSERT_EQ(ip.status, Status::Optimal);
  EXPECT_DOUBLE_EQ(ip.objective, 2);
  EXPECT_LE(ip_model.max_violation(ip.solution), 0);
}

// min 2x + 3y  s.t.  x + y >= 4,  x + 3y >= 6: vertices (0, 4) = 12, (3, 1) = 9, (6, 0) = 12.
TEST(MilpSolve, PureLpExactObjective) {
  Model m;
  const Var x = m.add_var(VarType::Continuous, 0, kInf, 2);
  const Var y = m.add_var(VarType::Continuous, 0, kInf, 3);
  m.add_row({{x, 1}, {y, 1}}, 4, kInf);
  m.add_row({{x, 1}, {y, 3}}, 6, kInf);
  const Result r = solve(m);
  ASSERT_EQ(r.status, Status::Optimal);
  EXPECT_NEAR(r.objective, 9, 1e-9);
  EXPECT_NEAR(r.solution[x], 3, 1e-9);
  EXPECT_NEAR(r.solution[y], 1, 1e-9);
  EXPECT_NEAR(r.bound, 9, 1e-6);
  EXPECT_LE(r.bound, r.objective);  // minimizing
}

// min x + 2y + 3z  s.t.  x + y + z = 10,  x - y = 2,  x <= 5, integers: x = y + 2, z = 8 - 2y,
// objective 26 - 3y, largest y with x <= 5 is 3: (5, 3, 2) = 17.
TEST(MilpSolve, EqualityRows) {
  Model m;
  const Var x = m.add_var(VarType::Integer, 0, 5, 1);
  const Var y = m.add_var(VarType::Integer, 0, kInf, 2);
  const Var z = m.add_var(VarType::Integer, 0, kInf, 3);
  m.add_row({{x, 1}, {y, 1}, {z, 1}}, 10, 10);
  m.add_row({{x, 1}, {y, -1}}, 2, 2);
  const Result r = solve(m, exact());
  ASSERT_EQ(r.status, Status::Optimal);
  EXPECT_EQ(r.solution, (std::vector<double>{5, 3, 2}));
  EXPECT_DOUBLE_EQ(r.objective, 17);
}

TEST(MilpSolve, InfeasibleModels) {
  for (VarType t : {VarType::Continuous, VarType::Integer}) {
    Model m;  // x + y >= 3 and x + y <= 2
    const Var x = m.add_var(t, 0, 10, 1);
    const Var y = m.add_var(t, 0, 10, 1);
    m.add_row({{x, 1}, {y, 1}}, 3, kInf);
    m.add_row({{x, 1}, {y, 1}}, -kInf, 2);
    const Result r = solve(m);
    EXPECT_EQ(r.status, Status::Infeasible) << to_string(r.status);
    EXPECT_TRUE(r.solution.empty());
    EXPECT_EQ(r.objective, kInf);  // minimizing: no solution is +inf
  }
  Model m;  // 2x = 1: the LP relaxation is feasible, no integer point is
  m.set_minimize(false);
  const Var x = m.add_var(VarType::Integer, 0, 10, 1);
  m.add_row({{x, 2}}, 1, 1);
  const Result r = solve(m);
  EXPECT_EQ(r.status, Status::Infeasible) << to_string(r.status);
  EXPECT_EQ(r.objective, -kInf);  // maximizing
}

TEST(MilpSolve, UnboundedAndTriviallyBounded) {
  for (VarType t : {VarType::Continuous, VarType::Integer}) {
    Model m;  // max x + y  s.t.  x - y <= 1: y grows without limit
    m.set_minimize(false);
    const Var x = m.add_var(t, 0, kInf, 1);
    const Var y = m.add_var(t, 0, kInf, 1);
    m.add_row({{x, 1}, {y, -1}}, -kInf, 1);
    const Result r = solve(m);
    EXPECT_EQ(r.status, Status::Unbounded) << to_string(r.status);
    EXPECT_EQ(r.objective, kInf);
  }
  Model m;  // no rows: each variable sits at its best bound
  m.add_var(VarType::Integer, -3, 7, -1);
  m.add_var(VarType::Continuous, -2.5, 4, 2);
  m.add_var(VarType::Binary, 0, 1, 0.5);
  const Result r = solve(m);
  ASSERT_EQ(r.status, Status::Optimal);
  EXPECT_EQ(r.solution, (std::vector<double>{7, -2.5, 0}));
  EXPECT_DOUBLE_EQ(r.objective, -12);
}

TEST(MilpSolve, EmptyModel) {
  const Result r = solve(Model());
  EXPECT_EQ(r.status, Status::Optimal);
  EXPECT_TRUE(r.solution.empty());
  EXPECT_EQ(r.objective, 0);
}

// Without a start CBC finds nothing within one branch-and-bound node on a market-split instance;
// with the planted solution as a start it returns it (or better). A node limit, not seconds, cuts
// both searches, so the test means the same on any machine under any load (issue 24).
TEST(MilpSolve, MipStartIsUsed) {
  Split s = market_split(40, 5, 3);
  Options o = exact(600);  // never the limit that binds
  o.node_limit = 1;
  const Result none = solve(s.model, o);
  EXPECT_EQ(none.status, Status::TimeLimitNoSolution) << to_string(none.status);
  EXPECT_TRUE(none.solution.empty());
  EXPECT_EQ(none.objective, kInf);
  EXPECT_LT(none.bound, kInf);  // CBC still proves a lower bound

  std::vector<std::pair<Var, double>> start;
  for (size_t j = 0; j < s.planted.size(); ++j) start.push_back({static_cast<Var>(j), s.planted[j]});
  s.model.set_start(start);
  const Result r = solve(s.model, o);
  ASSERT_TRUE(has_solution(r.status)) << to_string(r.status);
  EXPECT_LE(r.objective, s.planted_objective + 1e-9);
  EXPECT_LE(s.model.max_violation(r.solution), 1e-9);
  if (r.status == Status::Feasible) {
    EXPECT_GT(r.gap, 0);
  }
}

// CBC's documented contract for partial starts: listing the nonzero integer variables is enough.
TEST(MilpSolve, PartialMipStartListsOnlyTheOnes) {
  Split s = market_split(40, 5, 4);
  std::vector<std::pair<Var, double>> ones;
  for (size_t j = 0; j < s.planted.size(); ++j) {
    if (s.planted[j] == 1) ones.push_back({static_cast<Var>(j), 1.0});
  }
  s.model.set_start(ones);
  Options o = exact(600);
  o.node_limit = 1;  // the start, not the search, gives the solution
  const Result r = solve(s.model, o);
  ASSERT_TRUE(has_solution(r.status)) << to_string(r.status);
  EXPECT_LE(r.objective, s.planted_objective + 1e-9);
}

// A node limit cuts the search where it cuts on any machine, under any load: a limit, never a
// verdict (no "infeasible" and no "optimal" from a cut search), and the same answer twice. The
// deterministic twin of a time limit and of the "infeasible after a time limit" fix; how late a
// time-limited search stops is measured, as a ratio, by bench/limits/time_limits.py (issue 24).
TEST(MilpSolve, NodeLimitIsALimitAndTheSameEverywhere) {
  Split s = market_split(40, 5, 3);
  Options o = exact(600);  // never the limit that binds
  o.node_limit = 1;
  const Result none = solve(s.model, o);
  EXPECT_EQ(none.status, Status::TimeLimitNoSolution) << to_string(none.status);
  EXPECT_TRUE(none.solution.empty());

  const Model m = hard_knapsack(2000, 5, 42);
  o.node_limit = 20;
  std::vector<Result> runs;
  for (int threads : {1, 1, 2, 2}) {
    o.threads = threads;
    runs.push_back(solve(m, o));
    const Result& r = runs.back();
    ASSERT_EQ(r.status, Status::Feasible) << to_string(r.status) << " with " << threads << " threads";
    EXPECT_LE(m.max_violation(r.solution), 1e-6);
    EXPECT_GT(r.gap, 0);  // cut before the proof
  }
  for (size_t k : {1u, 3u}) {  // the same thread count gives the same objective and bound
    EXPECT_EQ(runs[k].objective, runs[k - 1].objective);
    EXPECT_EQ(runs[k].bound, runs[k - 1].bound);
  }
}

// The parent's hard deadline (time_limit + grace_seconds) kills the search's child whatever the
// child is doing. With a limit of a nanosecond and no grace the deadline is the moment the parent
// starts to wait, so it has passed when the parent first looks: the parent never reads the child's
// answer, kills it, and reports a limit without a solution (never a verdict), on any machine under
// any load (issue 24: the kill asserted without a clock). The sanitized build searches in this
// process: there is no child to kill.
TEST(MilpSolve, AChildPastItsHardDeadlineIsKilled) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "the sanitized build searches in-process: no child process, no hard deadline";
#else
  const Knapsack k = random_knapsack(14, 5);
  const Model m = knapsack_model(k);
  Options o = exact();
  o.time_limit = 1e-9;
  o.grace_seconds = 0;
  const Result r = solve(m, o);
  EXPECT_EQ(r.status, Status::TimeLimitNoSolution) << to_string(r.status);
  EXPECT_TRUE(r.solution.empty());
  EXPECT_NE(r.note.find("was stopped"), std::string::npos) << r.note;
  // The parent is none the worse: the same model with time is solved to its optimum.
  const Result again = solve(m, exact());
  ASSERT_EQ(again.status, Status::Optimal) << to_string(again.status);
  EXPECT_DOUBLE_EQ(again.objective, brute_force(k, std::vector<int>(14, -1)));
#endif
}

TEST(MilpSolve, RelativeGapStopsEarlyAsOptimal) {
  const Model m = hard_knapsack(2000, 5, 42);
  Options o;
  o.relative_gap = 1e-3;  // the root heuristics get within 0.1%
  o.time_limit = 600;     // not a speed test (a loaded machine took 63 s): the gap is what stops it
  const Result r = solve(m, o);
  ASSERT_EQ(r.status, Status::Optimal) << to_string(r.status);
  EXPECT_LE(r.gap, 1e-3 * 1.0001);
}

TEST(MilpSolve, ThreadsGiveTheSameOptimum) {
  const Knapsack k = random_knapsack(14, 5);
  const Model m = knapsack_model(k);
  const double best = brute_force(k, std::vector<int>(14, -1));
  for (bool deterministic : {true, false}) {
    Options o = exact();
    o.threads = 2;
    o.deterministic = deterministic;
    const Result r = solve(m, o);
    ASSERT_EQ(r.status, Status::Optimal);
    EXPECT_DOUBLE_EQ(r.objective, best);
  }
}

TEST(MilpSolve, StdoutStaysClean) {
  const Model m = hard_knapsack(300, 3, 1);
  Options o = exact(0.3);
  o.log = true;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  solve(m, o);
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "");
  EXPECT_NE(err.find("Cbc0"), std::string::npos) << "CBC's log should be on stderr";

  o.log = false;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  solve(m, o);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(MilpWriteLp, WritesNamesAndIntegrality) {
  Model m;
  const Var a = m.add_var(VarType::Binary, 0, 1, 3, "take item");  // space: made LP-safe
  const Var b = m.add_var(VarType::Continuous, 0, 4, 1);
  m.add_row({{a, 2}, {b, 1}}, -kInf, 5, "cap");
  const std::string path = testing::TempDir() + "hiremate_milp_test.lp";
  testing::internal::CaptureStdout();
  write_lp(m, path);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("take_item"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("cap:"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("x1"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("Integers"), std::string::npos) << text.str();
  std::remove(path.c_str());
  EXPECT_THROW(write_lp(m, testing::TempDir() + "model.txt"), BadInput);
  EXPECT_THROW(write_lp(m, testing::TempDir() + "a.lp.lp"), BadInput);
  // CBC's writer would exit(1) on this one.
  EXPECT_THROW(write_lp(m, testing::TempDir() + "no-such-folder/model.lp"), BadInput);
}

TEST(MilpModel, RelaxGivesTheLpOptimum) {
  using namespace hiremate::milp;
  // max x + y, 2x + 2y <= 3, x, y binary: integer optimum 1, LP optimum 1.5.
  Model m;
  m.set_minimize(false);
  Var x = m.add_var(VarType::Binary, 0, 1, 1), y = m.add_var(VarType::Binary, 0, 1, 1);
  m.add_row({{x, 2}, {y, 2}}, -kInf, 3);
  EXPECT_NEAR(solve(m).objective, 1.0, 1e-9);
  m.relax();
  EXPECT_EQ(m.num_integer_vars(), 0u);
  EXPECT_NEAR(solve(m).objective, 1.5, 1e-9);
}

// Costs of 1e-10 (a small op's seconds at 100 TFLOP/s) sit below CBC's absolute tolerances; the
// layer scales them, so the optimum is the same as with costs of order 1, and so is its value.
TEST(MilpSolve, TinyObjectiveCoefficientsKeepTheirOptimum) {
  const Knapsack k = random_knapsack(14, 7);
  Model big = knapsack_model(k);
  Model tiny = knapsack_model(k);
  for (size_t j = 0; j < tiny.num_vars(); ++j) tiny.set_obj(static_cast<Var>(j), big.obj(static_cast<Var>(j)) * 1e-10);
  const Result rb = solve(big, exact());
  const Result rt = solve(tiny, exact());
  ASSERT_EQ(rb.status, Status::Optimal);
  ASSERT_EQ(rt.status, Status::Optimal);
  EXPECT_NEAR(rt.objective, rb.objective * 1e-10, 1e-16);
  EXPECT_NEAR(rt.bound, rt.objective, 1e-16);
}
