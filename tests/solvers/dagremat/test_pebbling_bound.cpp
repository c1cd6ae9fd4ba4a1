// The recursive pebbling bound (pebbling_bound.h): a budget at or above it has a plan, shown by the
// plan itself where it is short enough to build.
#include "hiremate/solvers/dagremat/pebbling_bound.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/dagremat/stage_dag.h"
#include "hiremate/solvers/solver.h"
#include "support/small_models.h"

using namespace hiremate;
using namespace hiremate::dagremat;

namespace {

// a -> b, a -> c, (b, c) -> d, with bytes 1, 2, 3, 1.
Graph diamond() {
  Graph g;
  g.name = "diamond";
  const int64_t bytes[] = {1, 2, 3, 1};
  for (int i = 0; i < 4; ++i) g.add_data("d" + std::to_string(i), DataKind::Data, bytes[i]);
  g.add_compute("a", ComputeKind::Forward, 1, 0, {}, {0});
  g.add_compute("b", ComputeKind::Forward, 1, 0, {0}, {1});
  g.add_compute("c", ComputeKind::Forward, 1, 0, {0}, {2});
  g.add_compute("d", ComputeKind::Forward, 1, 0, {1, 2}, {3});
  g.finalize();
  return g;
}

SimResult simulate_positions(const Graph& g, const FixedOrderDag& dag, const std::vector<int>& positions) {
  std::vector<Op> ops;
  for (int p : positions) ops.push_back(Op::compute(dag.order[p]));
  return simulate(g, insert_frees(g, ops));
}

}  // namespace

// By hand: M(a) = 1, M(b) = 1 + 2, M(c) = 1 + 3; d holds b (2) while c's pebbling needs 4: 6, as
// b + c + d's output. Its plan (stage d: a, b, a, c, d) peaks there.
TEST(PebblingBound, DiamondByHand) {
  const Graph g = diamond();
  const FixedOrderDag dag(g);
  const PebblingBound b = recursive_pebbling_bound(dag);
  EXPECT_EQ(b.bytes, 6);
  EXPECT_EQ(b.node, 3);
  const auto positions = recursive_pebbling_positions(dag, 100);
  ASSERT_TRUE(positions);
  const SimResult sim = simulate_positions(g, dag, *positions);
  ASSERT_TRUE(sim.valid) << sim.reason;
  EXPECT_EQ(sim.peak, 6);
  EXPECT_FALSE(recursive_pebbling_positions(dag, 3));  // longer than 3 computations
}

// On random layered DAGs the plan is a valid fixed-order schedule whose peak is within the bound, and
// the bound is at least what every node needs while it runs.
TEST(PebblingBound, ItsPlanIsValidAndWithinIt) {
  for (uint64_t seed : {1, 2, 3})
    for (double w : {0.3, 0.47}) {
      const Graph g = hiremate::testing::layered(40, w, seed);
      const StageDag dag(g);
      const PebblingBound b = recursive_pebbling_bound(dag);
      const auto positions = recursive_pebbling_positions(dag, 2'000'000);
      ASSERT_TRUE(positions) << "seed " << seed << ", w " << w;
      const SimResult sim = simulate_positions(g, dag, *positions);
      ASSERT_TRUE(sim.valid) << sim.reason;
      EXPECT_LE(sim.peak - dag.sources, b.bytes) << "seed " << seed << ", w " << w;
      int64_t floor = 0;
      for (int t = 0; t < dag.n; ++t) floor = std::max(floor, dag.moment_floor(t));
      EXPECT_GE(b.bytes, floor);
    }
}

// Where the graph is deep and wide (a dense DAG of issue 23), the bound is far below the keep-all
// peak: budgets there are feasible even where no search finds a plan.
TEST(PebblingBound, FarBelowTheKeepAllPeakOnADenseDag) {
  const Graph g = hiremate::testing::layered(2000, 0.49, 1);
  const FixedOrderDag dag(g);
  const PebblingBound b = recursive_pebbling_bound(dag);
  EXPECT_LT(b.bytes, baseline(g).peak / 2);
}
