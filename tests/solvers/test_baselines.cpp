#include <gtest/gtest.h>

#include "hiremate/common/error.h"
#include "hiremate/planner/registry.h"
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

#include <filesystem>

#include "hiremate/graph/io/graph_io.h"
#include "support/shared_data.h"

TEST(Baselines, EveryBenchmarkGraphBothImports) {
  HM_REQUIRE_BENCHMARKS();
  auto expected = hiremate::testing::expected()["graphs"];
  int graphs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(hiremate::testing::benchmarks_dir() + "/graphs")) {
    std::string name = entry.path().stem().string();
    bool checkmate_derived = name.find("-train") != std::string::npos;
    for (bool training : {false, true}) {
      if (training && !checkmate_derived) continue;
      LoadOptions opt;
      opt.training = training;
      Graph g = load_graph(entry.path().string(), opt);
      SCOPED_TRACE(name + (training ? " (training)" : " (generic)"));
      Plan keep = solve_checked(*make_solver("autograd"), g, INT64_MAX, {});
      ASSERT_TRUE(keep.has_schedule);
      EXPECT_TRUE(keep.sim.valid) << keep.sim.reason;
      EXPECT_EQ(keep.sim.recomputations, 0u);
      if (expected.contains(name)) {
        EXPECT_EQ(keep.sim.peak, expected[name]["peak_order"].get<int64_t>());
      }
      if (training) {
        // The same node sizes, the same order: the training view has the generic view's peak.
        EXPECT_EQ(keep.sim.peak, baseline(load_graph(entry.path().string())).peak);
        Plan all = solve_checked(*make_solver("recompute_all"), g, INT64_MAX, {});
        ASSERT_TRUE(all.has_schedule);
        EXPECT_TRUE(all.sim.valid) << all.sim.reason;
        EXPECT_GT(all.sim.time, keep.sim.time);
        EXPECT_GE(all.sim.peak, keep.sim.peak);
      }
    }
    ++graphs;
  }
  EXPECT_EQ(graphs, 11);
}
