#include <gtest/gtest.h>

#include <numeric>

#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/twremat/fixed_order.h"
#include "hiremate/solvers/twremat/start.h"
#include "solvers/twremat/graphs.h"

using namespace hiremate;
using namespace hiremate::twremat;
namespace tw = hiremate::testing::tw;

namespace {

Schedule frees(const Graph& g, const Dag& dag, const std::vector<int>& sequence) {
  return insert_frees(g, to_ops(to_entries(g, dag, sequence)));
}

}  // namespace

TEST(TwRematFixedOrder, RepairsTheRecursionsFirstRunsOnGenericDags) {
  int repaired = 0;
  std::vector<Graph> graphs{tw::generic_training(tw::chain(20)), tw::generic_training(tw::unet(4))};
  for (uint64_t seed = 1; seed <= 4; ++seed) graphs.push_back(tw::generic_training(tw::random_dag(20, seed)));
  for (const Graph& g : graphs) {
    Dag dag(g);
    TreeDecomposition td = decompose(dag.neighbours);
    Recursion recursion(g, dag, td, 1, 1000000, {std::chrono::steady_clock::now() + std::chrono::hours(1)});
    std::vector<int> all(dag.n), sequence;
    std::iota(all.begin(), all.end(), 0);
    recursion.compute(all, dag.sinks, sequence, false);
    SimulateOptions free_order;
    free_order.enforce_fixed_order = false;
    SimResult before = simulate(g, frees(g, dag, sequence), free_order);
    ASSERT_TRUE(before.valid) << before.reason;
    std::vector<int> fixed = follow_fixed_order(g, dag, sequence, recursion);
    SimResult after = simulate(g, frees(g, dag, fixed));  // the fixed order enforced
    ASSERT_TRUE(after.valid) << after.reason;
    // First runs in graph.order.
    std::vector<char> seen(g.compute.size(), 0);
    std::vector<int> first;
    for (int v : fixed)
      if (!seen[v]) {
        seen[v] = 1;
        first.push_back(v);
      }
    EXPECT_EQ(first, std::vector<int>(g.order.begin(), g.order.end()));
    if (!simulate(g, frees(g, dag, sequence)).valid) {
      ++repaired;
      EXPECT_GT(fixed.size(), sequence.size());
    } else {
      EXPECT_EQ(fixed, sequence) << "an ordered sequence is left as it is";
    }
  }
  EXPECT_GT(repaired, 0) << "no recursion broke the order: the test checks nothing";
}
