#include "hiremate/partition/forward_graph.h"

#include <gtest/gtest.h>

#include "hiremate/graph/generate.h"
#include "support/tiny_graphs.h"

using namespace hiremate;
using hiremate::partition::ForwardGraph;

namespace {
std::vector<int> list(partition::IntRange r) { return {r.begin(), r.end()}; }
}  // namespace

TEST(ForwardGraph, TrainingGraphUnitsAreForwardsWithTheirBackwards) {
  Graph g = hiremate::testing::two_layer();
  ForwardGraph fg(g);
  ASSERT_EQ(fg.size(), 2);
  EXPECT_TRUE(fg.training());
  EXPECT_EQ(g.compute[fg.forward(0)].name, "F1");
  EXPECT_EQ(g.compute[fg.forward(1)].name, "F2");
  EXPECT_EQ(fg.backward(1), *g.find_compute("B2"));
  EXPECT_EQ(fg.unit_of(*g.find_compute("B1")), 0);
  EXPECT_EQ(fg.unit_of(*g.find_compute("B2")), 1);
  EXPECT_EQ(fg.unit_of(*g.find_compute("loss")), -1);
  EXPECT_EQ(list(fg.preds(1)), std::vector<int>{0});
  EXPECT_EQ(list(fg.succs(0)), std::vector<int>{1});
  EXPECT_TRUE(fg.preds(0).empty());  // reads only the source x
  // Interface data: sources, grads and phantoms are not; a unit does not "read" its own output.
  NodeId a = *g.find_data("a"), b = *g.find_data("b");
  EXPECT_TRUE(fg.reads(0).empty());
  EXPECT_EQ(list(fg.reads(1)), std::vector<int>{a});  // F2 and B2 read a
  EXPECT_EQ(list(fg.writes(0)), std::vector<int>{a});  // not a_ph
  EXPECT_EQ(fg.producer(a), 0);
  EXPECT_EQ(fg.producer(*g.find_data("x")), -1);
  EXPECT_EQ(list(fg.readers(a)), (std::vector<int>{1}));  // F2 and B2, both unit 1
  EXPECT_TRUE(fg.graph_output(b));                        // read by the loss
  EXPECT_FALSE(fg.graph_output(a));
}

TEST(ForwardGraph, GenericDagUnitsAreAllNodesAndAllRequireGrad) {
  Graph g = hiremate::testing::diamond();
  ForwardGraph fg(g);
  ASSERT_EQ(fg.size(), 4);
  EXPECT_FALSE(fg.training());
  EXPECT_EQ(list(fg.succs(0)), (std::vector<int>{1, 2}));
  EXPECT_EQ(list(fg.preds(3)), (std::vector<int>{1, 2}));
  for (int u = 0; u < 4; ++u) EXPECT_TRUE(fg.requires_grad(u));
  EXPECT_TRUE(fg.graph_output(*g.find_data("D")));  // read by nothing
}

TEST(ForwardGraph, ForwardsWithoutBackwardDoNotRequireGrad) {
  Graph g;
  NodeId x = g.add_data("x", DataKind::Data, 4, true);
  NodeId m = g.add_data("mask", DataKind::Data, 4);
  NodeId y = g.add_data("y", DataKind::Data, 4);
  NodeId yg = g.add_data("yg", DataKind::Grad, 4);
  NodeId xg = g.add_data("xg", DataKind::Grad, 4);
  g.add_compute("make_mask", ComputeKind::Forward, 1, 0, {x}, {m});
  NodeId f = g.add_compute("F", ComputeKind::Forward, 1, 0, {x, m}, {y});
  g.add_compute("loss", ComputeKind::Loss, 0, 0, {y}, {yg});
  NodeId b = g.add_compute("B", ComputeKind::Backward, 1, 0, {yg, m}, {xg});
  g.set_pair(f, b);
  g.finalize();
  ForwardGraph fg(g);
  EXPECT_FALSE(fg.requires_grad(0));
  EXPECT_TRUE(fg.requires_grad(1));
}

TEST(ForwardGraph, RepeatedLayersHashAlikeWhateverTheirNames) {
  generate::TransformerParams p;
  p.layers = 3;
  Graph g = generate::transformer(p, {});
  ForwardGraph fg(g);
  auto unit = [&](const std::string& name) { return fg.unit_of(*g.find_compute(name)); };
  EXPECT_EQ(fg.unit_hash(unit("layer0.fc1")), fg.unit_hash(unit("layer2.fc1")));
  EXPECT_EQ(fg.unit_hash(unit("layer1.q")), fg.unit_hash(unit("layer1.k")));  // same op, same sizes
  EXPECT_NE(fg.unit_hash(unit("layer0.fc1")), fg.unit_hash(unit("layer0.fc2")));
  EXPECT_NE(fg.unit_hash(unit("layer0.scores")), fg.unit_hash(unit("layer0.softmax")));
}
