#include <gtest/gtest.h>

#include "hiremate/schedule/schedule.h"
#include "hiremate/schedule/simulate.h"
#include "support/tiny_graphs.h"

using namespace hiremate;

TEST(InsertFrees, FreesRightAfterLastUse) {
  Graph g = hiremate::testing::two_layer();
  auto c = [&](const char* n) { return *g.find_compute(n); };
  Schedule s = insert_frees(g, {Op::compute(c("F1")), Op::compute(c("F2")), Op::loss_marker(g.loss),
                                Op::compute(c("B2")), Op::compute(c("B1"))});
  std::vector<std::string> text;
  for (const Op& op : s.ops) text.push_back(describe(g, op));
  EXPECT_EQ(text, (std::vector<std::string>{"compute(F1)", "compute(F2)", "loss", "delete(b)", "compute(B2)",
                                            "delete(bg)", "delete(a)", "compute(B1)", "delete(ag)",
                                            "delete(a_ph)", "delete(xg)"}));
  SimResult r = simulate(g, s);
  ASSERT_TRUE(r.valid) << r.reason;
  EXPECT_EQ(r.peak, 215);
}

TEST(InsertFrees, FreesBeforeARecomputationAndKeepsPartialGradSums) {
  Graph g = hiremate::testing::two_producer_grad();
  auto c = [&](const char* n) { return *g.find_compute(n); };
  // F1 is recomputed after the loss: `a` must be freed before, not kept across.
  Schedule s = insert_frees(g, {Op::compute(c("F1")), Op::compute(c("F2")), Op::compute(c("F3")),
                                Op::loss_marker(g.loss), Op::compute(c("F1")), Op::compute(c("B2")),
                                Op::compute(c("B3")), Op::compute(c("B1"))});
  SimResult r = simulate(g, s);
  ASSERT_TRUE(r.valid) << r.reason;
  EXPECT_EQ(r.recomputations, 1u);
  // `ag` stays resident between its two producers: no delete of ag between B2 and B3.
  size_t b2 = 0, b3 = 0;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    if (s.ops[i] == Op::compute(c("B2"))) b2 = i;
    if (s.ops[i] == Op::compute(c("B3"))) b3 = i;
  }
  for (size_t i = b2; i < b3; ++i) EXPECT_NE(s.ops[i], Op::del(*g.find_data("ag")));
  // `a` is deleted between F3 and its recomputation (after its last forward use)
  EXPECT_EQ(describe(g, s.ops[3]), "delete(a)");
}

TEST(InsertFrees, FastForwardWritesNoPhantomsSoNoneAreFreed) {
  Graph g = hiremate::testing::two_layer();
  Schedule s = insert_frees(g, {Op::compute(*g.find_compute("F1"), false)});
  for (const Op& op : s.ops) EXPECT_NE(op, Op::del(*g.find_data("a_ph")));
  EXPECT_EQ(describe(g, s.ops[0]), "compute(F1, no phantoms)");
}
