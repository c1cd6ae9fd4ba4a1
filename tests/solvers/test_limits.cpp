// Limits that protect the user: a solve given a deadline that has already passed ends without
// searching (no MILP, no H-ILP, no DP), whatever the machine's load; and checkmate refuses, before
// building anything, a MILP that would not fit in memory.
//
// How late each solver ends on a real clock under --time-limit is a load-dependent number: it is
// measured, as a ratio, by bench/limits/time_limits.py (issue 24), not asserted here.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include "hiremate/common/deadline.h"
#include "hiremate/common/error.h"
#include "hiremate/graph/generate.h"
#include "hiremate/graph/io/graph_io.h"
#include "hiremate/milp/solve.h"
#include "hiremate/planner/registry.h"
#include "hiremate/schedule/min_budget.h"
#include "hiremate/solvers/checkmate/checkmate.h"
#include "hiremate/solvers/checkmate/model_size.h"
#include "hiremate/solvers/solver.h"
#include "support/small_models.h"

using namespace hiremate;

namespace {

generate::BuildOptions dag_options() {
  generate::BuildOptions o;
  o.training = false;
  return o;
}

// Options whose 30 s deadline ended before the solve starts, as a composition hands them to a part
// that comes after the others used the time: the length is the limit (SolveOptions::deadline), the
// clock is past its end. The fake clock stands an hour behind the real one, so the deadline ended in
// the past on the steady clock too, for the parts that compare its end with that clock.
SolveOptions expired_options() {
  auto t = std::make_shared<Deadline::TimePoint>(Deadline::Clock::now() - std::chrono::hours(1));
  SolveOptions opt;
  opt.time_limit = 30;
  opt.deadline = Deadline(30, [t] { return *t; });
  *t += std::chrono::seconds(60);
  EXPECT_TRUE(opt.deadline->expired());
  return opt;
}

// A budget no solver can call infeasible (at least the floor every schedule needs), below keep-all
// (so that there is something to search for).
int64_t searchable_budget(const Graph& g) {
  const int64_t budget = std::max(min_budget(g), static_cast<int64_t>(0.7 * static_cast<double>(baseline(g).peak)));
  EXPECT_LT(budget, baseline(g).peak);
  return budget;
}

// Solves with the expired deadline: no MILP search starts, and the result is no proof (a deadline
// proves nothing above the floor). solve_checked has already checked any schedule returned.
Plan solve_expired(const std::string& solver, const Graph& g) {
  auto s = make_solver(solver);
  const int64_t before = milp::solves_started();
  Plan p = solve_checked(*s, g, searchable_budget(g), expired_options());
  EXPECT_EQ(milp::solves_started(), before) << solver << " started a MILP search past its deadline: " << p.note;
  EXPECT_NE(p.status, PlanStatus::Infeasible) << solver << ": a deadline is no proof: " << p.note;
  EXPECT_NE(p.status, PlanStatus::Optimal) << solver << " proved something without searching: " << p.note;
  return p;
}

Graph generic_dag(int nodes) {
  generate::RandomLayeredParams rp;
  rp.nodes = nodes;
  return generate::random_layered(rp, dag_options());
}

}  // namespace

// The counter the tests below read counts every search (before issue 24's fixes, checkmate and
// dagremat each started CBC past an expired deadline here, and TW-Remat and Rotor planned as if the
// whole limit were left).
TEST(ExpiredDeadline, TheCounterCountsEveryMilpSearch) {
  const int64_t before = milp::solves_started();
  milp::solve(milp::Model());
  EXPECT_EQ(milp::solves_started(), before + 1);
}

// checkmate: the MILP is not built (dagremat's start, which would solve its gap relaxation, does
// not run either); TW-Remat's fallback, with its few milliseconds of its own, may still give a plan.
TEST(ExpiredDeadline, CheckmateBuildsNoMilp) {
  Plan p = solve_expired("checkmate", generic_dag(60));
  EXPECT_EQ(p.status, PlanStatus::TimedOut) << p.note;
  EXPECT_NE(p.note.find("not built"), std::string::npos) << p.note;
}

// dagremat: no gap relaxation (a CBC search, so no bound) and no search; `hiremate` on a generic
// DAG (dagremat, then checkmate from its plan) neither.
TEST(ExpiredDeadline, DagRematSolvesNoRelaxation) {
  for (const char* solver : {"dagremat", "hiremate"}) {
    Plan p = solve_expired(solver, generic_dag(60));
    EXPECT_EQ(p.status, PlanStatus::TimedOut) << solver << ": " << p.note;
    EXPECT_FALSE(p.bound) << solver << ": " << p.note;
  }
}

// TW-Remat: the tree decomposition stops at its first elimination; no start is built.
TEST(ExpiredDeadline, TwRematBuildsNoStart) {
  for (bool training : {false, true}) {
    Graph g = training ? generate::transformer(hiremate::testing::small_transformer(2)) : generic_dag(60);
    Plan p = solve_expired("twremat", g);
    EXPECT_EQ(p.status, PlanStatus::TimedOut) << p.note;
    EXPECT_FALSE(p.has_schedule) << p.note;
    EXPECT_NE(p.note.find("time limit"), std::string::npos) << p.note;
  }
}

// Rotor: the DP table stops at its first cell.
TEST(ExpiredDeadline, RotorStopsItsTableAtOnce) {
  Plan p = solve_expired("rotor", hiremate::testing::small_chain(40));
  EXPECT_EQ(p.status, PlanStatus::TimedOut) << p.note;
  EXPECT_FALSE(p.has_schedule) << p.note;
}

// The hierarchical planners: no H-ILP at any level nor at the top (what the planner's report
// counts), and a plan only where a cheap one fits.
TEST(ExpiredDeadline, HilpSolvesNoHilp) {
  for (const char* solver : {"hilp", "hiremate"}) {
    Plan p = solve_expired(solver, generate::transformer(hiremate::testing::small_transformer(2)));
    ASSERT_TRUE(p.report) << solver << ": " << p.note;
    EXPECT_EQ(p.report->hilp_solves, 0) << solver;
    EXPECT_EQ(p.report->top_solves, 0) << solver;
  }
}

TEST(ModelSize, CheckmateRefusesAFiveThousandNodeDag) {
  generate::ChainParams cp;
  cp.n = 5000;
  Graph g = generate::chain(cp, dag_options());
  EXPECT_GT(checkmate::estimated_variables(g), checkmate::kMaxVariables);
  auto s = make_solver("checkmate");
  const int64_t before = milp::solves_started();
  try {
    solve_checked(*s, g, baseline(g).peak, {});
    ADD_FAILURE() << "checkmate accepted a 5,000-node DAG";
  } catch (const BadInput& e) {
    std::string msg = e.what();
    for (const char* part : {"too big for this solver", "10000000", "--solver hiremate", "twremat"})
      EXPECT_NE(msg.find(part), std::string::npos) << part << " missing in: " << msg;
  }
  EXPECT_EQ(milp::solves_started(), before) << "the refusal must come before any MILP search";
}

TEST(ModelSize, CheckmateAcceptsTheGraphsItCanSolve) {
  generate::RandomLayeredParams rp;
  rp.nodes = 1000;
  Graph g = generate::random_layered(rp, dag_options());
  EXPECT_LE(checkmate::estimated_variables(g), checkmate::kMaxVariables);
  EXPECT_FALSE(CheckmateSolver().unsupported(g));
}

// A million nodes: read (ctest's timeout catches a quadratic parser) and refused politely by checkmate.
TEST(HugeGraph, AMillionNodeChainLoadsAndCheckmateRefusesIt) {
  const int n = 1'000'000;
  std::string text = "p remat2\nnode 0 cpu 1 mem 8\n";
  text.reserve(40u * n);
  for (int i = 1; i < n; ++i)
    text += "node " + std::to_string(i) + " deps " + std::to_string(i - 1) + " cpu 1 mem 8\n";
  Graph g = parse_graph(text, "million.txt", {GraphFormat::PRemat2, false});
  EXPECT_EQ(g.compute.size(), static_cast<size_t>(n));
  EXPECT_TRUE(CheckmateSolver().unsupported(g));
}
