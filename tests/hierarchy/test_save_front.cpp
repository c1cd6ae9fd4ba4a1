#include "hiremate/hierarchy/save_front.h"

#include <gtest/gtest.h>

#include "hiremate/common/error.h"
#include "hiremate/hierarchy/cluster_problem.h"
#include "hiremate/hierarchy/option.h"
#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/baselines.h"
#include "hierarchy/cluster_support.h"

using namespace hiremate;

namespace {

std::vector<char> keep_all(const Graph& g) { return std::vector<char>(g.compute.size(), 1); }

// Keeping every forward's phantoms is autograd's schedule: same time, same peak.
TEST(SaveFront, KeepAllIsAutograd) {
  for (const Graph& g : hiremate::testing::generated_graphs()) {
    SCOPED_TRACE(g.name);
    SimResult mine = simulate(g, hierarchy::save_set_schedule(g, keep_all(g)));
    SimResult autograd = simulate(g, keep_all_schedule(g));
    ASSERT_TRUE(mine.valid) << mine.reason;
    EXPECT_DOUBLE_EQ(mine.time, autograd.time);
    EXPECT_EQ(mine.peak, autograd.peak);
    EXPECT_EQ(mine.bytes_at_loss, autograd.bytes_at_loss);
  }
}

// Keeping nothing holds at the loss no more than recompute_all does and recomputes every forward
// the backward needs, each once at most per read.
TEST(SaveFront, KeepNoneIsValidAndHoldsLittle) {
  for (const Graph& g : hiremate::testing::generated_graphs()) {
    SCOPED_TRACE(g.name);
    SimResult none = simulate(g, hierarchy::save_set_schedule(g, std::vector<char>(g.compute.size(), 0)));
    SimResult all = simulate(g, recompute_all_schedule(g));
    ASSERT_TRUE(none.valid) << none.reason;
    EXPECT_LE(none.bytes_at_loss, all.bytes_at_loss);
    EXPECT_GT(none.time, simulate(g, keep_all_schedule(g)).time);
    EXPECT_LE(none.time, all.time + 1e-9 * all.time);
  }
}

// The front walks down the save axis: valid schedules, bytes at the loss falling, time rising, and
// on every cluster of a partition the options are well formed.
TEST(SaveFront, WalksDownTheSaveAxis) {
  for (const Graph& g : hiremate::testing::generated_graphs()) {
    SCOPED_TRACE(g.name);
    auto front = hierarchy::save_front(g, 6);
    ASSERT_GE(front.size(), 3u);
    int64_t last_save = simulate(g, keep_all_schedule(g)).bytes_at_loss;
    for (const Schedule& s : front) {
      SimResult r = simulate(g, s);
      ASSERT_TRUE(r.valid) << r.reason;
      EXPECT_LE(r.bytes_at_loss, last_save);
      last_save = r.bytes_at_loss;
    }
    EXPECT_LT(last_save, simulate(g, keep_all_schedule(g)).bytes_at_loss);
    for (const auto& c : hiremate::testing::all_clusters(g)) {
      hierarchy::ClusterProblem cg = hierarchy::extract(g, c);
      for (const Schedule& s : hierarchy::save_front(cg.graph, 4)) {
        hierarchy::Option o = hierarchy::make_option(cg, s, "save_front");
        EXPECT_GE(o.mem, 0);
      }
    }
  }
}

TEST(SaveFront, RefusesAGenericDag) {
  Graph g;
  NodeId a = g.add_data("a", DataKind::Data, 8, true);
  NodeId b = g.add_data("b", DataKind::Data, 8);
  g.add_compute("f", ComputeKind::Forward, 1, 0, {a}, {b});
  g.finalize();
  EXPECT_THROW(hierarchy::save_set_schedule(g, keep_all(g)), BadInput);
  EXPECT_THROW(hierarchy::save_front(g, 4), BadInput);
}

TEST(SaveFront, RefusesAKeepOfTheWrongSize) {
  const Graph g = hiremate::testing::generated_graphs().front();
  EXPECT_THROW(hierarchy::save_set_schedule(g, std::vector<char>(g.compute.size() - 1, 1)), BadInput);
}

}  // namespace
