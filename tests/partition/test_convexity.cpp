#include "hiremate/partition/convexity.h"

#include <gtest/gtest.h>

#include "support/tiny_graphs.h"

using namespace hiremate;
using hiremate::partition::ForwardGraph;

// The diamond A -> B, A -> C, B + C -> D (units 0..3).
TEST(Convexity, ASetIsConvexWhenNoPathLeavesItAndComesBack) {
  Graph g = hiremate::testing::diamond();
  ForwardGraph fg(g);
  EXPECT_TRUE(partition::is_convex(fg, {0, 1, 2, 3}));
  EXPECT_TRUE(partition::is_convex(fg, {1, 2}));        // siblings: no path between them
  EXPECT_TRUE(partition::is_convex(fg, {0, 1}));
  EXPECT_TRUE(partition::is_convex(fg, {0, 1, 2}));
  EXPECT_FALSE(partition::is_convex(fg, {0, 3}));       // A -> B -> D leaves and comes back
  EXPECT_FALSE(partition::is_convex(fg, {0, 1, 3}));    // A -> C -> D
  EXPECT_TRUE(partition::is_convex(fg, {2}));
}

TEST(Convexity, QuotientOrderAcyclicityAndChains) {
  Graph g = hiremate::testing::diamond();
  ForwardGraph fg(g);
  auto q = partition::quotient(fg, {{3}, {1, 2}, {0}});
  ASSERT_TRUE(q.acyclic);
  EXPECT_EQ(q.order, (std::vector<int>{2, 1, 0}));  // {A}, {B, C}, {D}
  EXPECT_TRUE(q.chain);
  q = partition::quotient(fg, {{0}, {1}, {2}, {3}});
  ASSERT_TRUE(q.acyclic);
  EXPECT_EQ(q.order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_FALSE(q.chain);  // A feeds both B and C
  // {A, D} with {B}: A -> B -> D is a cycle in the quotient.
  q = partition::quotient(fg, {{0, 3}, {1}, {2}});
  EXPECT_FALSE(q.acyclic);
  EXPECT_TRUE(q.order.empty());
  EXPECT_FALSE(q.chain);
}
