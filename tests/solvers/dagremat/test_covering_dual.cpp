// The covering relaxation's Lagrangian dual (covering_dual.h): a bound on the relaxation's optimum
// (so on every plan: gap_bound.h's own test holds that one under the brute-force optimum), computed
// without CBC for DAGs whose relaxation is too large to build.
#include "hiremate/solvers/dagremat/covering_dual.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/dagremat/gap_bound.h"
#include "hiremate/solvers/solver.h"
#include "support/small_models.h"

using namespace hiremate;
using namespace hiremate::dagremat;

namespace {
const auto kNever = std::chrono::steady_clock::now() + std::chrono::hours(1);
}

// Against the relaxation's proven optimum (CBC, no time limit that binds) on dense 40- to 120-node
// DAGs at 95 to 60 % of peak(order): never above it, and informative (above zero) wherever the
// optimum is, as the LP of a covering problem whose rows are all tight at some point should be.
TEST(CoveringDual, NeverAboveTheRelaxationsOptimumAndPositiveWhereItIs) {
  int compared = 0, positive = 0, wanted = 0;
  for (int nodes : {40, 80, 120})
    for (uint64_t seed : {1u, 2u}) {
      Graph g = hiremate::testing::layered(nodes, 0.47, seed);
      StageDag dag(g);
      const int64_t peak = baseline(g).peak;
      for (double f : {0.95, 0.8, 0.6}) {
        const int64_t cap = static_cast<int64_t>(f * static_cast<double>(peak)) - dag.sources;
        GapBound ilp = gap_bound(dag, cap, 600, 1, false);
        if (ilp.infeasible) continue;
        ASSERT_TRUE(ilp.optimal && ilp.bound) << nodes << " nodes, seed " << seed << ", " << f;
        const CoveringDual d = covering_dual(dag, cap, kDualIterations, kNever);
        ++compared;
        EXPECT_LE(d.bound, *ilp.bound * (1 + 1e-9) + 1e-9) << nodes << " nodes, seed " << seed << ", " << f;
        if (*ilp.bound > 0) {
          ++wanted;
          positive += d.bound > 0;
        }
        std::printf("  layered-%d-s%llu at %.0f %%: dual %.6g, relaxation %.6g (%d steps)\n", nodes,
                    static_cast<unsigned long long>(seed), 100 * f, d.bound, *ilp.bound, d.iterations);
      }
    }
  std::printf("  compared %d budgets; the dual above zero in %d of the %d where the relaxation is\n", compared,
              positive, wanted);
  EXPECT_GE(compared, 12);
  EXPECT_EQ(positive, wanted);
}

// Where keep-all fits there is nothing to cover: 0, at once.
TEST(CoveringDual, ZeroWhereKeepAllFits) {
  Graph g = hiremate::testing::layered(60, 0.47, 3);
  StageDag dag(g);
  const CoveringDual d = covering_dual(dag, baseline(g).peak - dag.sources, kDualIterations, kNever);
  EXPECT_EQ(d.bound, 0);
  EXPECT_EQ(d.iterations, 0);
}
