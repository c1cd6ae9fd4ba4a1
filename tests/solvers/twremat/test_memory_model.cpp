// The greedy pass's incremental memory model against the simulator, step by step.
#include <gtest/gtest.h>

#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/twremat/memory_model.h"
#include "hiremate/solvers/twremat/start.h"
#include "solvers/twremat/graphs.h"
#include "support/tiny_graphs.h"

using namespace hiremate;
using namespace hiremate::twremat;
namespace tw = hiremate::testing::tw;

namespace {

Deadline far() { return {std::chrono::steady_clock::now() + std::chrono::hours(1)}; }

SimResult simulate_model(const Graph& g, const MemoryModel& m) { return simulate(g, insert_frees(g, m.ops())); }

void expect_agrees(const Graph& g, const MemoryModel& m) {
  SimResult r = simulate_model(g, m);
  ASSERT_TRUE(r.valid) << r.reason;
  EXPECT_EQ(m.peak(), r.peak);
  EXPECT_EQ(m.at_loss(), r.bytes_at_loss);
  EXPECT_DOUBLE_EQ(m.time(), r.time);
}

// Merges every mergeable entry it can, in a seeded order, checking the model after each step and
// that try_merge predicted the merge (exactly when nothing else was dropped, an upper bound else).
void walk_and_check(const Graph& g, int leaf, uint64_t seed) {
  Dag dag(g);
  TreeDecomposition td = decompose(dag.neighbours);
  MemoryModel m(g, dag, low_memory_start(g, dag, td, leaf, 1000000, far()));
  expect_agrees(g, m);
  m.drop_unread();
  expect_agrees(g, m);
  tw::Rng rng{seed};
  int merges = 0;
  for (int round = 0; round < 3; ++round) {
    std::vector<int> order;
    for (int q = 0; q < static_cast<int>(m.entries().size()); ++q)
      if (m.mergeable(q)) order.push_back(q);
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.in(0, static_cast<int64_t>(i) - 1)]);
    for (int q : order) {
      if (!m.mergeable(q)) continue;
      const int64_t peak = m.peak(), at_loss = m.at_loss();
      const auto ops = m.ops();
      auto predicted = m.try_merge(q);
      ASSERT_EQ(m.peak(), peak) << "try_merge changed the model";
      ASSERT_EQ(m.at_loss(), at_loss);
      ASSERT_TRUE(m.ops() == ops);
      const size_t before = m.active();
      m.merge(q);
      ++merges;
      SCOPED_TRACE(::testing::Message() << "after merging entry " << q);
      expect_agrees(g, m);
      if (before - m.active() == 1) {
        EXPECT_EQ(m.peak(), predicted.peak);
        EXPECT_EQ(m.at_loss(), predicted.at_loss);
      } else {
        EXPECT_LE(m.peak(), predicted.peak);
        EXPECT_LE(m.at_loss(), predicted.at_loss);
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
  EXPECT_GT(merges, 0) << "nothing to merge: the test checks nothing";
  // Every recomputation gone: each node runs once.
  EXPECT_EQ(simulate_model(g, m).recomputations, 0u);
}

}  // namespace

TEST(TwRematMemoryModel, MatchesTheSimulatorOnGenericDags) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);  // forward + backward: TW-Remat recomputes
    walk_and_check(tw::generic_training(tw::random_dag(25, seed)), 1, seed);
  }
}

TEST(TwRematMemoryModel, MatchesTheSimulatorOnTrainingGraphs) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    walk_and_check(tw::training(tw::random_dag(25, seed)), 1, seed);
  }
  walk_and_check(tw::generic_training(tw::chain(30)), 1, 6);
  walk_and_check(tw::training(tw::chain(30, 10, 3)), 1, 7);
  walk_and_check(tw::training(tw::unet(4)), 1, 8);
  walk_and_check(tw::training(tw::unet(3)), 2, 9);
}

TEST(TwRematMemoryModel, GradientAccumulationAndLossMarker) {
  // Too small to recompute anything, but the grads' fixed intervals and the loss must agree.
  for (const Graph& g : {hiremate::testing::two_layer(3), hiremate::testing::two_producer_grad()}) {
    Dag dag(g);
    TreeDecomposition td = decompose(dag.neighbours);
    MemoryModel m(g, dag, low_memory_start(g, dag, td, 1, 1000, far()));
    expect_agrees(g, m);
  }
}
