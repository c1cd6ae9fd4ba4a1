// The portfolio (planner/portfolio.h): the compositions around checkmate's MILP.
#include <gtest/gtest.h>

#include "hiremate/graph/generate.h"
#include "hiremate/hierarchy/save_front.h"
#include "hiremate/planner/plan_with.h"
#include "hiremate/planner/planner.h"
#include "hiremate/planner/portfolio.h"
#include "hiremate/planner/registry.h"
#include "hiremate/solvers/checkmate/checkmate.h"
#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/baselines.h"
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

// Where CBC is cut (here by a node limit) on a training graph, the composition returns a plan no
// slower than TW-Remat's alone within its share: TW-Remat runs before the MILP, so a CBC search that
// takes the whole limit cannot leave it without time.
TEST(Portfolio, ACutMilpIsNeverSlowerThanTwRematsShare) {
  const Graph g = generate::transformer(hiremate::testing::small_transformer(3));
  const int64_t budget = hiremate::testing::activation_budget(g, 0.5);
  planner::PortfolioOptions po;
  SolveOptions o;
  o.time_limit = 10;
  o.threads = 1;
  o.cbc_parameters = {{"maxNodes", "0"}};
  Plan composed = solve_checked(planner::CheckmatePortfolio(po), g, budget, o);
  ASSERT_EQ(composed.status, PlanStatus::TimedOut) << composed.note;
  ASSERT_TRUE(composed.has_schedule) << composed.note;
  SolveOptions share;
  share.time_limit = po.twremat_fallback_share * o.time_limit;
  Plan tw = solve_checked(*make_solver("twremat"), g, budget, share);
  ASSERT_TRUE(tw.has_schedule) << tw.note;
  EXPECT_LE(composed.sim.time, tw.sim.time) << composed.note;
  EXPECT_LE(composed.sim.peak, budget);
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

// hiremate's top offers the whole graph's save-front plans (hierarchy/save_front.h): its plan is
// never slower than the fastest of them that fits; hilp's answer is the H-ILP's own plan, so it does
// not get them.
TEST(Portfolio, HiremateIsNoSlowerThanTheSaveFrontPlans) {
  const Graph g = generate::transformer(hiremate::testing::small_transformer(3));
  // The budget: the middle save-front plan's peak, below keep-all's (the planner must plan).
  std::vector<SimResult> front;
  for (const Schedule& s : hierarchy::save_front(g, 16)) {
    front.push_back(simulate(g, s));
    ASSERT_TRUE(front.back().valid) << front.back().reason;
  }
  ASSERT_GE(front.size(), 3u);
  const int64_t budget = front[front.size() / 2].peak;
  ASSERT_LT(budget, simulate(g, keep_all_schedule(g)).peak);
  std::optional<double> fastest;
  for (const SimResult& r : front)
    if (r.peak <= budget && (!fastest || r.time < *fastest)) fastest = r.time;
  ASSERT_TRUE(fastest);
  SolveOptions o;
  o.time_limit = 3;
  o.threads = 1;
  Plan h = planner::plan_with("hiremate", g, budget, o);
  ASSERT_TRUE(h.has_schedule) << h.note;
  SimResult r = simulate(g, h.schedule);
  ASSERT_TRUE(r.valid) << r.reason;
  EXPECT_LE(r.peak, budget);
  EXPECT_LE(r.time, *fastest * (1 + 1e-12));
}

// The flat MILP's probe decides the shares (PortfolioOptions::flat_probe_share), with one thread and
// on the flat MILP's thread beside the hierarchy with two: "won" where CBC alone finds a plan faster
// than TW-Remat's (here TW-Remat does not run first, and CBC solves this chain at once), "lost" where
// it finds none (a MILP that is not built); the hierarchy plans either way. With no probe share, none.
TEST(Portfolio, FlatProbeDecidesTheShares) {
  const Graph g = hiremate::testing::small_chain(6);
  const int64_t budget = hiremate::testing::activation_budget(g, 0.7);
  planner::PlannerOptions popt;
  popt.flat_checkmate_max_nodes = 200;
  popt.twremat_at_top = false;
  popt.portfolio.flat_min_limit = 1;  // the flat MILP gets its time under these short limits
  popt.portfolio.flat_probe_share = 0.5;
  struct Case {
    bool builds;
    int threads;
    double probe_share;
    const char* verdict;
  };
  for (const Case& c : {Case{true, 1, 0.5, "won"}, Case{false, 1, 0.5, "lost"}, Case{true, 1, 0, ""},
                        Case{true, 2, 0.5, "won"}, Case{false, 2, 0.5, "lost"}, Case{true, 2, 0, ""}}) {
    planner::PlannerOptions p = popt;
    if (!c.builds) p.portfolio.checkmate.max_build_share = 0;  // the probe finds nothing
    p.portfolio.flat_probe_share = c.probe_share;
    SolveOptions o;
    o.time_limit = 6;
    o.threads = c.threads;
    PlannerReport report;
    const Plan h = planner::plan(g, budget, o, p, &report);
    ASSERT_TRUE(h.has_schedule) << h.note;
    const SimResult r = simulate(g, h.schedule);
    ASSERT_TRUE(r.valid) << r.reason;
    EXPECT_LE(r.peak, budget);
    EXPECT_EQ(report.flat_probe, c.verdict) << "builds " << c.builds << ", threads " << c.threads << ", share "
                                            << c.probe_share << ": " << h.note;
  }
}

// hilp on a chain at its floor: the H-ILP's conservative accounting (each part's interfaces resident
// for its whole step) has no plan there, the chain level over the levels' menus (Rotor's DP, each
// block offering its menu, the baselines and its fast forward) has one, as fast as Rotor's alone.
// Without it (PlannerOptions::rotor_menus_at_top off) hilp found none at the floor or at 10 % on a
// 40-block chain, even in 10 s.
TEST(Portfolio, HilpPlansAChainAtItsFloor) {
  generate::ChainParams cp;
  cp.n = 40;
  const Graph g = generate::chain(cp);
  const int64_t floor = min_budget(g);  // graph bytes, the sources included (as plan_with takes them)
  SolveOptions o;
  o.time_limit = 3;
  Plan h = planner::plan_with("hilp", g, floor, o);
  ASSERT_TRUE(h.has_schedule) << h.note;
  Plan r = planner::plan_with("rotor", g, floor, o);
  ASSERT_TRUE(r.has_schedule) << r.note;
  EXPECT_LE(h.sim.time, r.sim.time * (1 + 1e-9));
  EXPECT_LE(h.sim.peak, floor);
  planner::PlannerOptions without;
  without.twremat_at_top = false;
  without.top_save_front_points = 0;
  without.top_flat_persistent_share = 0;  // the constructive plan over every unit reaches the floor too
  EXPECT_FALSE(planner::plan(g, floor, o, without).has_schedule);
}

// Every plan on a training graph carries a lower bound valid for every schedule (issue 21), also
// from solvers that prove none themselves: plan_with adds the schedule bound (lower_bound.h). It is
// at least one run of every node and never above the plan's own time.
TEST(Portfolio, EveryPlanOnATrainingGraphCarriesABound) {
  const Graph g = hiremate::testing::small_unet();
  const double once = baseline(g).time;
  SolveOptions o;
  o.time_limit = 5;
  int planned = 0;
  for (const char* name : {"twremat", "rotor", "rockmate", "autograd"}) {
    const double fraction = std::string(name) == "autograd" ? 1.0 : 0.8;
    Plan p = planner::plan_with(name, g, hiremate::testing::activation_budget(g, fraction), o);
    if (!p.has_schedule) continue;
    ++planned;
    ASSERT_TRUE(p.bound.has_value()) << name << ": " << p.note;
    EXPECT_LE(*p.bound, p.sim.time * (1 + 1e-9)) << name;
    EXPECT_GE(*p.bound, once * (1 - 1e-9)) << name;
    EXPECT_NE(p.note.find("bound:"), std::string::npos) << name << ": " << p.note;
  }
  EXPECT_GE(planned, 3);
  // A generic DAG: no bound claimed where none is proven for every schedule.
  const Graph dag = random_dag(30, 5);
  Plan t = planner::plan_with("twremat", dag, baseline(dag).peak * 8 / 10, o);
  ASSERT_TRUE(t.has_schedule) << t.note;
  EXPECT_FALSE(t.bound.has_value());
}
