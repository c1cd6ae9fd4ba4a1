#include <gtest/gtest.h>

#include "hiremate/schedule/prune.h"
#include "hiremate/schedule/simulate.h"
#include "support/tiny_graphs.h"

using namespace hiremate;

namespace {

std::vector<std::string> text(const Graph& g, const std::vector<Op>& ops) {
  std::vector<std::string> out;
  for (const Op& op : ops) out.push_back(describe(g, op));
  return out;
}

}  // namespace

// After the loss, F2 runs again and nothing reads its `b`: it is dead, and so is the run of F1 before
// it, which only it read (B2 reads the `a` of F1's third run). The pruned schedule is valid, faster
// by both, and no higher.
TEST(PruneDeadRecomputations, RemovesARecomputationNothingReadsAndTheOnesOnlyItRead) {
  Graph g = hiremate::testing::two_layer();
  auto c = [&](const char* n) { return *g.find_compute(n); };
  const std::vector<Op> ops{Op::compute(c("F1")), Op::compute(c("F2")), Op::loss_marker(g.loss),
                            Op::compute(c("F1"), false), Op::compute(c("F2")), Op::compute(c("F1"), false),
                            Op::compute(c("B2")), Op::compute(c("B1"))};
  const std::vector<Op> pruned = prune_dead_recomputations(g, ops);
  EXPECT_EQ(text(g, pruned), (std::vector<std::string>{"compute(F1)", "compute(F2)", "loss",
                                                       "compute(F1, no phantoms)", "compute(B2)", "compute(B1)"}));
  SimResult before = simulate(g, insert_frees(g, ops)), after = simulate(g, insert_frees(g, pruned));
  ASSERT_TRUE(before.valid) << before.reason;
  ASSERT_TRUE(after.valid) << after.reason;
  EXPECT_EQ(after.time, before.time - g.compute[c("F1")].time - g.compute[c("F2")].time);
  EXPECT_LE(after.peak, before.peak);
}

// A recomputation of F1 whose `a` is read (by B2) but whose phantoms are not (F1 runs again for B1
// before it reads them): it keeps no phantoms. First runs and backwards are never touched.
TEST(PruneDeadRecomputations, ARecomputationWhosePhantomsNothingReadsKeepsNone) {
  Graph g = hiremate::testing::two_layer();
  auto c = [&](const char* n) { return *g.find_compute(n); };
  const std::vector<Op> ops{Op::compute(c("F1")), Op::compute(c("F2")), Op::loss_marker(g.loss),
                            Op::compute(c("F1"), true), Op::compute(c("B2")), Op::compute(c("F1"), true),
                            Op::compute(c("B1"))};
  const std::vector<Op> pruned = prune_dead_recomputations(g, ops);
  EXPECT_EQ(text(g, pruned), (std::vector<std::string>{"compute(F1)", "compute(F2)", "loss",
                                                       "compute(F1, no phantoms)", "compute(B2)", "compute(F1)",
                                                       "compute(B1)"}));
  const Schedule sb = insert_frees(g, ops), sa = insert_frees(g, pruned);
  SimResult before = simulate(g, sb), after = simulate(g, sa);
  ASSERT_TRUE(before.valid) << before.reason;
  ASSERT_TRUE(after.valid) << after.reason;
  EXPECT_EQ(after.time, before.time);
  EXPECT_LE(after.peak, before.peak);
  auto second_f1 = [&](const Schedule& s) {  // where F1 runs for B2
    for (size_t i = 0, seen = 0; i < s.ops.size(); ++i)
      if (s.ops[i].kind == Op::Kind::Compute && s.ops[i].node == c("F1") && seen++ == 1) return i;
    return s.ops.size();
  };
  // No second a_ph made there.
  EXPECT_EQ(after.timeline.at(second_f1(sa)).during + 5, before.timeline.at(second_f1(sb)).during);
  // Nothing to prune: the same ops back.
  const std::vector<Op> plain{Op::compute(c("F1")), Op::compute(c("F2")), Op::loss_marker(g.loss),
                              Op::compute(c("B2")), Op::compute(c("B1"))};
  EXPECT_EQ(text(g, prune_dead_recomputations(g, plain)), text(g, plain));
}

// On a generic DAG the first runs follow the fixed order and stay, read or not; a later run of B
// that nothing reads goes, and the run of A that only it read with it.
TEST(PruneDeadRecomputations, FirstRunsOfAGenericDagStay) {
  Graph g = hiremate::testing::diamond();
  auto c = [&](const char* n) { return *g.find_compute(n); };
  const std::vector<Op> ops{Op::compute(c("A")), Op::compute(c("B")), Op::compute(c("C")), Op::compute(c("A")),
                            Op::compute(c("B")), Op::compute(c("D"))};
  EXPECT_EQ(text(g, prune_dead_recomputations(g, ops)), text(g, ops));
  const std::vector<Op> unread{Op::compute(c("A")), Op::compute(c("B")), Op::compute(c("C")), Op::compute(c("D")),
                               Op::compute(c("A")), Op::compute(c("B"))};
  EXPECT_EQ(text(g, prune_dead_recomputations(g, unread)),
            (std::vector<std::string>{"compute(A)", "compute(B)", "compute(C)", "compute(D)"}));
}
