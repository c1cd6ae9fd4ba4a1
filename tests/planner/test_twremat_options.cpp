#include "hiremate/planner/twremat_options.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "hiremate/hierarchy/cluster_problem.h"
#include "hiremate/hierarchy/option.h"
#include "hiremate/schedule/min_budget.h"
#include "hiremate/schedule/simulate.h"
#include "hierarchy/cluster_support.h"

using namespace hiremate;

namespace {

// On every cluster of the generated graphs, halfway between its floor and autograd's peak: each
// option fits the peak, the k-th save option holds at the loss no more than its target (the plain
// plan's bytes less k quarters of its saved bytes), and some cluster gets options holding less than
// TW-Remat's plain plan, which the save axis is for.
TEST(TwRematOptions, WalkDownTheSaveAxisWithinThePeak) {
  int leaner = 0;
  for (const Graph& g : hiremate::testing::generated_graphs()) {
    for (const auto& c : hiremate::testing::all_clusters(g)) {
      SCOPED_TRACE(g.name + " cluster " + std::to_string(c.id));
      hierarchy::ClusterProblem cg = hierarchy::extract(g, c);
      const int64_t ub = hierarchy::autograd_option(cg).peak;
      const int64_t lb = std::min(ub, min_budget(cg.graph));
      const int64_t peak = lb + (ub - lb) / 2;
      const int points = 3;
      auto plain = planner::twremat_option(cg, cg.graph, peak, 1.0, [] { return 100.0; });
      if (!plain) continue;
      std::vector<hierarchy::Option> opts{*plain};
      for (auto& o : planner::twremat_save_options(cg, *plain, peak, points, 1.0, [] { return 100.0; }))
        opts.push_back(std::move(o));
      const int64_t saved = opts[0].mem;
      const int64_t first = hiremate::testing::option_at_loss(cg, opts[0]);
      ASSERT_LE(opts.size(), static_cast<size_t>(points + 1));
      for (size_t k = 0; k < opts.size(); ++k) {
        EXPECT_LE(opts[k].peak, peak);
        EXPECT_EQ(opts[k].solver, "twremat");
        if (k == 0) continue;
        EXPECT_LE(hiremate::testing::option_at_loss(cg, opts[k]), first - saved * static_cast<int64_t>(k) / (points + 1));
        leaner += opts[k].mem < saved;
      }
    }
  }
  EXPECT_GT(leaner, 0);
}

// No time left: no solve, no option.
TEST(TwRematOptions, NothingWithoutTime) {
  const Graph g = hiremate::testing::generated_graphs()[1];
  hierarchy::ClusterProblem cg = hierarchy::extract(g, hiremate::testing::all_clusters(g).back());
  const int64_t peak = hierarchy::autograd_option(cg).peak;
  EXPECT_FALSE(planner::twremat_option(cg, cg.graph, peak, 1.0, [] { return 0.0; }));
  auto plain = planner::twremat_option(cg, cg.graph, peak, 1.0, [] { return 100.0; });
  ASSERT_TRUE(plain);
  EXPECT_TRUE(planner::twremat_save_options(cg, *plain, peak, 3, 1.0, [] { return 0.0; }).empty());
}

}  // namespace
