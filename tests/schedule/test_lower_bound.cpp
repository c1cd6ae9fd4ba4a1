// The loss-point bound (schedule/lower_bound.h) against the exact solver's proven optima: never
// above them, never below the keep-all time, and above it where the budget forces recomputation.
#include <gtest/gtest.h>

#include "hiremate/schedule/lower_bound.h"
#include "hiremate/solvers/checkmate/checkmate.h"
#include "support/small_models.h"

using namespace hiremate;

namespace {

TEST(LossPointBound, NeverAboveTheProvenOptimum) {
  struct Case {
    const char* name;
    Graph g;
  };
  std::vector<Case> cases{{"chain-10", hiremate::testing::small_chain(10)}, {"unet-2x1", hiremate::testing::small_unet()},
                          {"transformer-1", generate::transformer(hiremate::testing::small_transformer(1))}};
  int compared = 0, above_keep_all = 0;
  for (auto& [name, g] : cases) {
    const double keep_all = baseline(g).time;
    for (double fraction : {0.9, 0.7, 0.5}) {
      const int64_t budget = hiremate::testing::activation_budget(g, fraction);
      auto lb = loss_point_bound(g, budget);
      ASSERT_TRUE(lb.has_value()) << name;
      EXPECT_GE(lb->time, keep_all * (1 - 1e-12)) << name;
      EXPECT_GE(lb->needed, 0);
      SolveOptions o;
      o.time_limit = 120;  // these are proven in seconds; the limit only guards a stuck CBC
      o.threads = 1;
      Plan p = solve_checked(CheckmateSolver(), g, budget, o);
      // Optimal over the graph's order (RK-Checkmate's model): at least the graph's optimum.
      ASSERT_TRUE(optimal_in_model(p)) << name << " at " << fraction << ": " << p.note;
      EXPECT_LE(lb->time, p.sim.time * (1 + 1e-12)) << name << " at " << fraction;
      ++compared;
      above_keep_all += lb->time > keep_all * (1 + 1e-9);
      std::cerr << name << " at " << fraction << ": optimum +" << 100 * (p.sim.time / keep_all - 1) << " %, bound +"
                << 100 * (lb->time / keep_all - 1) << " %\n";
    }
  }
  EXPECT_EQ(compared, 9);
  EXPECT_GT(above_keep_all, 0) << "the bound says something at some tight budget";
}

TEST(LossPointBound, NoneWithoutALossOrBelowWhatTheLossNeeds) {
  generate::ChainParams p;
  p.n = 4;
  generate::BuildOptions dag;
  dag.training = false;
  Graph generic = generate::chain(p, dag);
  EXPECT_FALSE(loss_point_bound(generic, baseline(generic).peak).has_value());
  Graph g = hiremate::testing::small_chain(4);
  EXPECT_FALSE(loss_point_bound(g, g.source_bytes()).has_value());
  EXPECT_TRUE(loss_point_bound(g, baseline(g).peak).has_value());
}

}  // namespace
