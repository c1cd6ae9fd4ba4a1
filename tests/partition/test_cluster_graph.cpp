#include "hiremate/partition/cluster_graph.h"

#include <gtest/gtest.h>

#include "support/tiny_graphs.h"

using namespace hiremate;
using hiremate::partition::ClusterGraph;
using hiremate::partition::ForwardGraph;

namespace {
std::vector<int> list(partition::IntRange r) { return {r.begin(), r.end()}; }
}  // namespace

// The diamond's cluster {B, C, D}: A is outside, D's output is a graph output.
TEST(ClusterGraph, RenumbersUnitsAndSeesWhatCrossesTheBoundary) {
  Graph g = hiremate::testing::diamond();
  ForwardGraph fg(g);
  ClusterGraph cg(fg, {1, 2, 3});
  ASSERT_EQ(cg.size(), 3);
  EXPECT_EQ(cg.local(0), -1);
  EXPECT_EQ(cg.local(3), 2);
  EXPECT_EQ(list(cg.preds(2)), (std::vector<int>{0, 1}));
  EXPECT_TRUE(cg.preds(0).empty());  // A is outside
  EXPECT_TRUE(cg.reads_outside(0));
  EXPECT_TRUE(cg.reads_outside(1));
  EXPECT_FALSE(cg.reads_outside(2));
  EXPECT_FALSE(cg.writes_outside(0));
  EXPECT_TRUE(cg.writes_outside(2));  // D: nobody reads it
  // Local data: A (written outside), B, C, D.
  ASSERT_EQ(cg.data_count(), 4);
  int a = 0;
  EXPECT_EQ(cg.data(a), *g.find_data("A"));
  EXPECT_EQ(cg.producer(a), -1);
  EXPECT_EQ(cg.bytes(a), 4);
  EXPECT_EQ(list(cg.readers(a)), (std::vector<int>{0, 1}));
  int b = 1;
  EXPECT_EQ(cg.producer(b), 0);
  EXPECT_FALSE(cg.read_outside(b));
  EXPECT_TRUE(cg.read_outside(3));
}
