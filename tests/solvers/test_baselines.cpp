#include <gtest/gtest.h>

#include "hiremate/common/error.h"
#include "hiremate/solvers/baselines.h"
#include "support/tiny_graphs.h"

using namespace hiremate;

TEST(Baselines, AutogradOnTwoLayer) {
  Graph g = hiremate::testing::two_layer();
  Baseline b = baseline(g);
  EXPECT_EQ(b.peak, 215);
  EXPECT_DOUBLE_EQ(b.time, 10);
  auto solver = make_solver("autograd");
  Plan p = solve_checked(*solver, g, 215, {});
  EXPECT_EQ(p.status, PlanStatus::Optimal);
  EXPECT_TRUE(p.sim.valid);
  EXPECT_EQ(p.sim.peak, 215);
  Plan q = solve_checked(*solver, g, 214, {});
  EXPECT_EQ(q.status, PlanStatus::Infeasible);
  EXPECT_FALSE(q.has_schedule);
  EXPECT_NE(q.note.find("needs 215 bytes"), std::string::npos) << q.note;
}

TEST(Baselines, RecomputeAllRunsTheForwardTwice) {
  Graph g = hiremate::testing::two_layer();
  Schedule s = recompute_all_schedule(g);
  SimResult r = simulate(g, s);
  ASSERT_TRUE(r.valid) << r.reason;
  EXPECT_DOUBLE_EQ(r.time, 10 + 1 + 2);  // F1 and F2 once more
  EXPECT_EQ(r.recomputations, 2u);
  // Right after the loss op: x 100 + b 20 (freed by the next op, F2 recomputes it) + bg 20.
  EXPECT_EQ(r.bytes_at_loss, 140);
  EXPECT_GE(r.peak, baseline(g).peak);
}

TEST(Baselines, RecomputeAllNeedsATrainingGraph) {
  Graph g = hiremate::testing::diamond();
  auto solver = make_solver("recompute_all");
  EXPECT_THROW(solve_checked(*solver, g, 100, {}), BadInput);
}

TEST(Baselines, GenericDagBaselineIsTheFixedOrderOnce) {
  Graph g = hiremate::testing::diamond();
  Baseline b = baseline(g);
  EXPECT_EQ(b.peak, 9);  // A4 + B2 + C3 while C runs
  EXPECT_DOUBLE_EQ(b.time, 10);
}

TEST(Baselines, UnknownSolverNamesTheKnownOnes) {
  try {
    make_solver("nope");
    FAIL();
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("autograd"), std::string::npos);
  }
}
