// The planner under one Deadline driven by a fake clock (issue 24: behaviour that does not depend on
// the machine's load; how late a solve ends on a real clock is measured by bench/limits).
#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "hiremate/common/deadline.h"
#include "hiremate/graph/generate.h"
#include "hiremate/planner/plan_with.h"
#include "hiremate/planner/planner.h"
#include "hiremate/solvers/solver.h"
#include "support/small_models.h"

using namespace hiremate;

namespace {

// A clock that stands still until the test moves it.
struct FakeClock {
  std::shared_ptr<Deadline::TimePoint> t = std::make_shared<Deadline::TimePoint>(Deadline::Clock::now());
  Deadline::Now now() const {
    return [t = t] { return *t; };
  }
  void advance(double seconds) {
    *t += std::chrono::duration_cast<Deadline::Clock::duration>(std::chrono::duration<double>(seconds));
  }
};

// Plans a 4-layer transformer at half its keep-all peak under a 30 s Deadline on `clock`, moved
// `advance` seconds once the deadline is made (TW-Remat off: the levels and the top are the subject).
Plan plan_on(FakeClock& clock, double advance, planner::PlannerReport& rep, Graph& g, int64_t& budget) {
  g = generate::transformer(hiremate::testing::small_transformer(4));
  budget = baseline(g).peak / 2;
  SolveOptions opt;
  opt.time_limit = 30;
  opt.deadline = Deadline(30, clock.now());
  clock.advance(advance);
  planner::PlannerOptions popt;
  popt.twremat_at_top = false;
  return planner::plan(g, budget, opt, popt, &rep);
}

}  // namespace

// The whole limit has passed before the planner starts: it solves no H-ILP at any level, returns
// what the cheap plans give (here none fits: keep-all is over the budget), and says why.
TEST(PlannerDeadline, AnExpiredDeadlineSolvesNoHilp) {
  FakeClock clock;
  planner::PlannerReport rep;
  Graph g;
  int64_t budget = 0;
  Plan p = plan_on(clock, 60, rep, g, budget);
  EXPECT_EQ(rep.hilp_solves, 0);
  EXPECT_EQ(rep.top_solves, 0);
  EXPECT_FALSE(p.has_schedule) << p.note;
  EXPECT_NE(p.status, PlanStatus::Infeasible) << "a deadline is no proof: " << p.note;
}

// The same graph and budget with the clock standing still: the levels and the top run, and the
// planner returns a plan (the clock never says the time is up, so nothing is cut by load).
TEST(PlannerDeadline, AStoppedClockLetsEveryLevelRun) {
  FakeClock clock;
  planner::PlannerReport rep;
  Graph g;
  int64_t budget = 0;
  Plan p = plan_on(clock, 0, rep, g, budget);
  EXPECT_GT(rep.hilp_solves, 0);
  EXPECT_GT(rep.top_solves, 0);
  ASSERT_TRUE(p.has_schedule) << p.note;
  const SimResult r = simulate(g, p.schedule);
  EXPECT_TRUE((Budget{budget, std::nullopt}.admits(r)));
}
