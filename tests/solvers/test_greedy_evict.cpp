#include <gtest/gtest.h>

#include <set>
#include <string>

#include "hiremate/graph/io/graph_io.h"
#include "hiremate/solvers/greedy_evict.h"
#include "hiremate/solvers/solver.h"
#include "support/shared_data.h"
#include "support/tiny_graphs.h"

using namespace hiremate;

TEST(GreedyEvict, KeepAllBudgetNeedsNoRecomputation) {
  Graph g = hiremate::testing::diamond();
  auto ops = greedy_evict_sequence(g, baseline(g).peak);
  ASSERT_TRUE(ops);
  EXPECT_EQ(ops->size(), g.compute.size());
}

// The heuristic is deterministic (no time limit here), so the cells it plans are a fact of the code,
// not a measurement with a margin: the test lists them, and any change, better or worse, shows here
// (update the list with the reason in the commit). Every plan it returns fits and is valid.
TEST(GreedyEvict, FitsTheBudgetWhenItSaysSoOnThePublicGraphs) {
  HM_REQUIRE_BENCHMARKS();
  std::set<std::string> planned;
  for (const char* name : {"rl1-n100", "rl2-n250", "fcn8-b32-train", "resnet50-b256-train"}) {
    Graph g = load_graph(hiremate::testing::benchmark_graph(name));
    int64_t peak = baseline(g).peak;
    for (int pct : {90, 80, 70, 50}) {
      int64_t budget = peak * pct / 100;
      auto ops = greedy_evict_sequence(g, budget);
      if (!ops) continue;  // it may give up; it must never return a plan over budget
      planned.insert(std::string(name) + "@" + std::to_string(pct));
      SimResult r = simulate(g, insert_frees(g, *ops));
      EXPECT_TRUE(r.valid) << name << ": " << r.reason;
      EXPECT_LE(r.peak, budget) << name << " at " << pct << " %";
      EXPECT_GT(r.recomputations, 0u) << name << " at " << pct << " %";
    }
  }
  const std::set<std::string> expected{"fcn8-b32-train@90", "fcn8-b32-train@80", "fcn8-b32-train@70",
                                       "resnet50-b256-train@90", "resnet50-b256-train@80",
                                       "resnet50-b256-train@70", "resnet50-b256-train@50", "rl1-n100@90",
                                       "rl1-n100@80"};
  EXPECT_EQ(planned, expected);
}
