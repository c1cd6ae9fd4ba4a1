#include <gtest/gtest.h>

#include "hiremate/schedule/simulate.h"
#include "support/tiny_graphs.h"

using namespace hiremate;
using hiremate::testing::diamond;
using hiremate::testing::two_layer;
using hiremate::testing::two_producer_grad;

namespace {

NodeId C(const Graph& g, const char* n) { return *g.find_compute(n); }
NodeId D(const Graph& g, const char* n) { return *g.find_data(n); }

// The autograd schedule of two_layer, written by hand.
Schedule two_layer_autograd(const Graph& g) {
  return {{Op::compute(C(g, "F1")), Op::compute(C(g, "F2")), Op::loss_marker(g.loss),
           Op::del(D(g, "b")), Op::compute(C(g, "B2")), Op::del(D(g, "bg")), Op::del(D(g, "a")),
           Op::compute(C(g, "B1")), Op::del(D(g, "ag")), Op::del(D(g, "a_ph")), Op::del(D(g, "xg"))}};
}

void expect_invalid(const SimResult& r, size_t op, const std::string& fragment) {
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.invalid_op, op) << r.reason;
  EXPECT_NE(r.reason.find(fragment), std::string::npos) << r.reason;
}

}  // namespace

TEST(Simulate, ValidScheduleWithPeakByHand) {
  Graph g = two_layer();
  SimResult r = simulate(g, two_layer_autograd(g));
  ASSERT_TRUE(r.valid) << r.reason;
  // x 100 resident; F1 +15 = 115; F2 +20 = 135; loss +20 = 155; -b = 135; B2 +10 = 145;
  // -bg -a = 115; B1 +100 = 215 <- peak at op 7; then everything but x is freed.
  EXPECT_EQ(r.peak, 215);
  EXPECT_EQ(r.peak_op, 7u);
  EXPECT_DOUBLE_EQ(r.time, 10.0);
  EXPECT_EQ(r.bytes_at_loss, 155);
  EXPECT_EQ(r.recomputations, 0u);
  ASSERT_EQ(r.timeline.size(), 11u);
  EXPECT_EQ(r.timeline[2].during, 155);
  EXPECT_EQ(r.timeline[3].after, 135);
  EXPECT_EQ(r.timeline.back().after, 100);
}

TEST(Simulate, OverheadCountsOnlyWhileTheOpRuns) {
  Graph g = two_layer(/*f2_overhead=*/1000);
  SimResult r = simulate(g, two_layer_autograd(g));
  ASSERT_TRUE(r.valid);
  EXPECT_EQ(r.peak, 115 + 20 + 1000);
  EXPECT_EQ(r.peak_op, 1u);
  EXPECT_EQ(r.timeline[1].after, 135);
}

TEST(Simulate, DepNotResident) {
  Graph g = two_layer();
  Schedule s = two_layer_autograd(g);
  s.ops.insert(s.ops.begin() + 2, Op::del(D(g, "a")));  // a freed before B2 reads it
  SimResult r = simulate(g, s);
  expect_invalid(r, 5, "reads 'a', which is not resident (deleted at op 2)");
}

TEST(Simulate, PhantomsMissing) {
  Graph g = two_layer();
  Schedule s = two_layer_autograd(g);
  s.ops[0].keep_phantoms = false;
  s.ops.erase(s.ops.begin() + 9);  // the delete of a_ph, which is never written now
  SimResult r = simulate(g, s);
  expect_invalid(r, 7, "needs the phantoms of 'F1'");
}

TEST(Simulate, RecomputingTheForwardRestoresPhantoms) {
  Graph g = two_layer();
  Schedule s = two_layer_autograd(g);
  s.ops[0].keep_phantoms = false;  // fast-forward, then recompute F1 with phantoms before B1
  s.ops.insert(s.ops.begin() + 7, Op::compute(C(g, "F1"), true));
  s.ops.insert(s.ops.begin() + 8, Op::del(D(g, "a")));
  SimResult r = simulate(g, s);
  ASSERT_TRUE(r.valid) << r.reason;
  EXPECT_EQ(r.recomputations, 1u);
  EXPECT_DOUBLE_EQ(r.time, 11.0);
}

TEST(Simulate, DoubleDelete) {
  Graph g = two_layer();
  Schedule s = two_layer_autograd(g);
  s.ops.insert(s.ops.begin() + 4, Op::del(D(g, "b")));
  expect_invalid(simulate(g, s), 4, "double delete of 'b' (already deleted at op 3)");
}

TEST(Simulate, DeleteOfNeverComputedAndOfSource) {
  Graph g = two_layer();
  expect_invalid(simulate(g, {{Op::del(D(g, "a"))}}), 0, "never computed");
  expect_invalid(simulate(g, {{Op::del(D(g, "x"))}}), 0, "sources are never freed");
}

TEST(Simulate, BackwardBeforeLoss) {
  Graph g = two_layer();
  Schedule s{{Op::compute(C(g, "F1")), Op::compute(C(g, "F2")), Op::compute(C(g, "B2"))}};
  expect_invalid(simulate(g, s), 2, "runs before the loss marker");
}

TEST(Simulate, MissingLossMarkerAndSecondLossMarker) {
  Graph g = two_layer();
  expect_invalid(simulate(g, {{Op::compute(C(g, "F1"))}}), 1, "no loss marker");
  Schedule s = two_layer_autograd(g);
  s.ops.push_back(Op::loss_marker(g.loss));
  expect_invalid(simulate(g, s), s.ops.size() - 1, "second loss marker");
  expect_invalid(simulate(g, {{Op::compute(g.loss)}}), 0, "run it with the loss marker");
}

TEST(Simulate, GradientNotProduced) {
  Graph g = two_layer();
  Schedule s = two_layer_autograd(g);
  s.ops.resize(7);  // stop before B1
  SimResult r = simulate(g, s);
  expect_invalid(r, 7, "grad 'xg' is not produced: its producer 'B1' never runs");
}

TEST(Simulate, GradReadBeforeAllProducersRan) {
  Graph g = two_producer_grad();
  Schedule s{{Op::compute(C(g, "F1")), Op::compute(C(g, "F2")), Op::compute(C(g, "F3")),
              Op::loss_marker(g.loss), Op::compute(C(g, "B2")), Op::compute(C(g, "B1"))}};
  expect_invalid(simulate(g, s), 5, "reads grad 'ag' before all its producers ran (1 of 2)");
}

TEST(Simulate, GradAccumulatesOnceInPlace) {
  Graph g = two_producer_grad();
  Schedule s{{Op::compute(C(g, "F1")), Op::compute(C(g, "F2")), Op::compute(C(g, "F3")),
              Op::loss_marker(g.loss), Op::compute(C(g, "B2")), Op::compute(C(g, "B3")),
              Op::compute(C(g, "B1"))}};
  SimResult r = simulate(g, s);
  ASSERT_TRUE(r.valid) << r.reason;
  // x4 a8 b8 c8 bg8 cg8 = 44, ag written by B2 (+8 = 52), B3 accumulates in place (52), B1 +4 = 56
  EXPECT_EQ(r.timeline[4].during, 52);
  EXPECT_EQ(r.timeline[5].during, 52);
  EXPECT_EQ(r.peak, 56);
  s.ops.insert(s.ops.begin() + 6, Op::compute(C(g, "B3")));
  expect_invalid(simulate(g, s), 6, "accumulate into grad 'ag' a second time");
}

TEST(Simulate, GenericDagFixedOrderAndCompleteness) {
  Graph g = diamond();
  Schedule ok{{Op::compute(0), Op::compute(1), Op::compute(2), Op::del(0), Op::compute(3)}};
  SimResult r = simulate(g, ok);
  ASSERT_TRUE(r.valid) << r.reason;
  EXPECT_EQ(r.peak, 4 + 2 + 3);  // C runs while A and B are resident
  EXPECT_EQ(r.timeline[4].during, 2 + 3 + 1);
  Schedule swapped{{Op::compute(0), Op::compute(2), Op::compute(1), Op::compute(3)}};
  expect_invalid(simulate(g, swapped), 1, "breaks the fixed order");
  SimulateOptions free_order;
  free_order.enforce_fixed_order = false;
  EXPECT_TRUE(simulate(g, swapped, free_order).valid);
  Schedule incomplete{{Op::compute(0), Op::compute(1), Op::compute(2)}};
  expect_invalid(simulate(g, incomplete), 3, "compute node 'D' is never computed");
}

TEST(Simulate, RecomputationInGenericDag) {
  Graph g = diamond();
  // Free A after B, recompute it for C: peak 4+2 then 2+4+3.
  Schedule s{{Op::compute(0), Op::compute(1), Op::del(0), Op::compute(0), Op::compute(2), Op::del(0),
              Op::compute(3)}};
  SimResult r = simulate(g, s);
  ASSERT_TRUE(r.valid) << r.reason;
  EXPECT_EQ(r.recomputations, 1u);
  EXPECT_DOUBLE_EQ(r.time, 11.0);
  EXPECT_EQ(r.peak, 9);
}
