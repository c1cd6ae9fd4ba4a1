// The portfolio (planner/portfolio.h): the compositions around checkmate's MILP.
#include <gtest/gtest.h>

#include "hiremate/graph/generate.h"
#include "hiremate/planner/plan_with.h"
#include "hiremate/planner/portfolio.h"
#include "hiremate/planner/registry.h"
#include "hiremate/solvers/checkmate/checkmate.h"
#include "support/small_models.h"

using namespace hiremate;

namespace {

Graph random_dag(int nodes, uint64_t seed) {
  generate::RandomLayeredParams p;
  p.nodes = nodes;
  p.seed = seed;
  p.max_deps = 3;
  p.span = 3;
  generate::BuildOptions bo;
  bo.training = false;
  return generate::random_layered(p, bo);
}

}  // namespace

TEST(Portfolio, RegistryCheckmateIsTheComposition) {
  auto s = make_solver("checkmate");
  EXPECT_EQ(s->name(), "checkmate");
  EXPECT_NE(dynamic_cast<const planner::CheckmatePortfolio*>(s.get()), nullptr);
}

// A MILP that is not built (its build estimate over the share allowed) ends TimedOut without a
// plan; the composition returns TW-Remat's.
TEST(Portfolio, TwRematAnswersWhereTheMilpIsNotBuilt) {
  const Graph g = hiremate::testing::small_chain(6);
  const int64_t budget = hiremate::testing::activation_budget(g, 0.7);
  planner::PortfolioOptions po;
  po.checkmate.max_build_share = 0;  // nothing builds
  SolveOptions o;
  o.time_limit = 5;
  Plan milp = solve_checked(CheckmateSolver(po.checkmate), g, budget, o);
  EXPECT_EQ(milp.status, PlanStatus::TimedOut);
  EXPECT_FALSE(milp.has_schedule);
  planner::CheckmatePortfolio composed(po);
  Plan p = solve_checked(composed, g, budget, o);
  ASSERT_TRUE(p.has_schedule) << p.note;
  EXPECT_EQ(p.status, PlanStatus::TimedOut);
  EXPECT_NE(p.note.find("returning TW-Remat's plan"), std::string::npos) << p.note;
  EXPECT_LE(p.sim.peak, budget);
}

// On a small generic DAG where keep-all does not fit, the composition (dagremat's plan as the
// start) and the MILP alone reach the same optimum.
TEST(Portfolio, DagRematStartKeepsTheOptimum) {
  const Graph g = random_dag(14, 2);
  const int64_t budget = baseline(g).peak * 8 / 10;
  SolveOptions o;
  o.time_limit = 10;
  Plan alone = solve_checked(CheckmateSolver(), g, budget, o);
  Plan composed = planner::plan_with("checkmate", g, budget, o);
  ASSERT_EQ(alone.status, PlanStatus::Optimal) << alone.note;
  ASSERT_EQ(composed.status, PlanStatus::Optimal) << composed.note;
  EXPECT_DOUBLE_EQ(alone.sim.time, composed.sim.time);
}

TEST(Portfolio, HiremateOnAGenericDagIsDagRematThenCheckmate) {
  const Graph g = random_dag(30, 5);
  const int64_t budget = baseline(g).peak * 8 / 10;
  SolveOptions o;
  o.time_limit = 4;
  Plan p = planner::dagremat_then_checkmate(g, budget, o);
  ASSERT_TRUE(p.has_schedule) << p.note;
  EXPECT_NE(p.note.find("dagremat"), std::string::npos) << p.note;
}

// The hierarchical planner's report comes with its plan (no cast to its type).
TEST(Portfolio, PlanWithCarriesThePlannersReport) {
  const Graph g = hiremate::testing::small_chain(6);
  SolveOptions o;
  o.time_limit = 3;
  Plan h = planner::plan_with("hilp", g, hiremate::testing::activation_budget(g, 0.7), o);
  ASSERT_TRUE(h.report.has_value());
  EXPECT_FALSE(h.report->level_lines().empty());
  Plan t = planner::plan_with("twremat", g, hiremate::testing::activation_budget(g, 0.7), o);
  EXPECT_FALSE(t.report.has_value());
}
