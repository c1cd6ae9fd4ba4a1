// Options::checkpoint_seconds: a search stops at its checkpoint unless its incumbent beats the
// caller's, and otherwise goes on undisturbed; the incumbents are read from CBC's log.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <thread>

#include "hiremate/milp/checkpoint_watch.h"
#include "hiremate/milp/model.h"
#include "hiremate/milp/solve.h"

using namespace hiremate::milp;

namespace {

// A multi-dimensional knapsack written as a minimization (minus the value): CBC finds good solutions
// at once and proves nothing for seconds. All zeros is feasible, at cost 0.
Model hard_min_knapsack(int n, int rows, unsigned seed) {
  std::mt19937 rng(seed);
  Model m;
  std::vector<std::vector<double>> a(rows, std::vector<double>(n));
  for (auto& row : a)
    for (double& x : row) x = 100 + rng() % 900;
  for (int j = 0; j < n; ++j) {
    double w = 0;
    for (const auto& row : a) w += row[j];
    m.add_var(VarType::Binary, 0, 1, -(w / rows + 50 + rng() % 20));
  }
  for (const auto& coefficients : a) {
    std::vector<Term> row;
    double total = 0;
    for (int j = 0; j < n; ++j) {
      row.push_back({j, coefficients[j]});
      total += coefficients[j];
    }
    m.add_row(row, -kInf, std::floor(total / 2));
  }
  return m;
}

Model with_zero_start(Model m) {
  std::vector<std::pair<Var, double>> start;
  for (size_t j = 0; j < m.num_vars(); ++j) start.push_back({static_cast<Var>(j), 0.0});
  m.set_start(start);
  return m;
}

}  // namespace

TEST(MilpCheckpoint, IncumbentsAreReadFromCbcsLog) {
  using detail::incumbent_in_log_line;
  EXPECT_EQ(incumbent_in_log_line("Cbc0012I Integer solution of 3218.625 found by feasibility pump after 0 "
                                  "iterations and 0 nodes (5.05 seconds)"),
            3218.625);
  EXPECT_EQ(incumbent_in_log_line("Cbc0004I Integer solution of -4762 found after 109315 iterations and 23841 nodes"),
            -4762);
  EXPECT_EQ(incumbent_in_log_line("Cbc0045I MIPStart provided solution with cost -4756"), -4756);
  EXPECT_EQ(incumbent_in_log_line("Cbc0010I After 100 nodes, 54 on tree, 3210.2812 best solution, best possible "
                                  "3194.1562 (22.45 seconds)"),
            3210.2812);
  // No incumbent yet (CBC writes 1e50), and lines that announce none.
  EXPECT_FALSE(incumbent_in_log_line("Cbc0010I After 0 nodes, 1 on tree, 1e+50 best solution, best possible 3194.1"));
  EXPECT_FALSE(incumbent_in_log_line("Cbc0038I Pass   1: suminf.    1.05624 (5) obj. -4775.77 iterations 13"));
  EXPECT_FALSE(incumbent_in_log_line("Cbc0012I Integer solution of  found by"));
  EXPECT_FALSE(incumbent_in_log_line(""));
}

// Stopped: no incumbent below the caller's objective at the checkpoint. The search would run for its
// whole minute otherwise (gap 0 on 2,000 binaries).
TEST(MilpCheckpoint, ASearchWithoutABetterIncumbentStopsThere) {
  const Model m = with_zero_start(hard_min_knapsack(2000, 5, 42));
  Options o;
  o.time_limit = 60;
  o.relative_gap = 0;
  o.checkpoint_seconds = 0.3;
  o.checkpoint_objective = -1e30;
  const Result r = solve(m, o);
  EXPECT_TRUE(r.stopped_at_checkpoint);
  EXPECT_EQ(r.status, Status::TimeLimitNoSolution) << to_string(r.status);
  EXPECT_TRUE(r.solution.empty());
  EXPECT_LT(r.seconds, 30);  // not a speed test: only far from the limit
}

namespace {

// How many times the watch calls `lost` on a log that announces `before` ahead of a checkpoint 50 ms
// away and `after` once it has passed.
int losses(const std::string& before, const std::string& after, double cutoff) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  int lost = 0;
  bool written = write(fds[1], before.data(), before.size()) == static_cast<ssize_t>(before.size());
  std::thread reader([&] {
    detail::watch_log(fds[0], std::chrono::steady_clock::now() + std::chrono::milliseconds(50), cutoff, false,
                      [&lost] { ++lost; });
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  written = written && write(fds[1], after.data(), after.size()) == static_cast<ssize_t>(after.size());
  close(fds[1]);
  reader.join();
  close(fds[0]);
  return written ? lost : -1;
}

}  // namespace

// The watch decides at the checkpoint from what the log announced before it, and then only reads on:
// after the checkpoint a better incumbent changes nothing, and the pipe is still read.
TEST(MilpCheckpoint, TheWatchDecidesOnTheIncumbentsBeforeTheCheckpoint) {
  const std::string before =
      "Cbc0012I Integer solution of 3218.625 found by feasibility pump after 0 iterations and 0 nodes\n"
      "Cbc0010I After 100 nodes, 54 on tree, 3209.5 best solution, best possible 3194.1562 (22.45 seconds)\n";
  const std::string after = "Cbc0012I Integer solution of 2000 found by DiveCoefficient\n";
  for (double cutoff : {3000.0, 3210.0}) EXPECT_EQ(losses(before, after, cutoff), cutoff < 3209.5 ? 1 : 0) << cutoff;
}

// Without an incumbent the search has nothing to offer: it stops at its checkpoint even where the
// caller has no plan (an infinite cutoff), as the in-process emulation does; with one it goes on.
TEST(MilpCheckpoint, ASearchWithoutAnIncumbentStopsEvenBelowAnInfiniteCutoff) {
  const std::string none = "Cbc0010I After 0 nodes, 1 on tree, 1e+50 best solution, best possible 3194.1\n";
  EXPECT_EQ(losses(none, "", kInf), 1);
  EXPECT_EQ(losses(none + "Cbc0012I Integer solution of 1e+12 found by feasibility pump\n", "", kInf), 0);
}

// A checkpoint past the search's end: the search, cut by its node limit, is the same as without
// one (the log that the watch reads changes nothing in CBC's search), and stdout stays clean.
TEST(MilpCheckpoint, ASearchThatEndsBeforeItsCheckpointIsUndisturbed) {
  const Model m = with_zero_start(hard_min_knapsack(2000, 5, 42));
  Options o;
  o.time_limit = 600;  // the node limit binds
  o.relative_gap = 0;
  o.node_limit = 30;
  const Result plain = solve(m, o);
  ASSERT_EQ(plain.status, Status::Feasible) << to_string(plain.status);
  o.checkpoint_seconds = 500;
  o.checkpoint_objective = 1;
  testing::internal::CaptureStdout();
  const Result r = solve(m, o);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
  EXPECT_FALSE(r.stopped_at_checkpoint);
  ASSERT_EQ(r.status, Status::Feasible) << to_string(r.status);
  EXPECT_EQ(r.objective, plain.objective);
  EXPECT_EQ(r.bound, plain.bound);
  EXPECT_EQ(r.nodes, plain.nodes);
}
