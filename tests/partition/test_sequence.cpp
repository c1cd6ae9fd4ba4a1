#include "hiremate/partition/sequence.h"

#include <gtest/gtest.h>

#include "hiremate/graph/generate.h"
#include "hiremate/partition/partition.h"
#include "partition/tree_checks.h"
#include "support/tiny_graphs.h"

using namespace hiremate;
using hiremate::partition::ClusterGraph;
using hiremate::partition::ForwardGraph;

namespace {
std::vector<int> cuts(const Graph& g) {
  ForwardGraph fg(g);
  std::vector<int> all(fg.size());
  for (int i = 0; i < fg.size(); ++i) all[i] = i;
  return partition::cutting_points(ClusterGraph(fg, all));
}
generate::BuildOptions generic() {
  generate::BuildOptions o;
  o.training = false;
  return o;
}
}  // namespace

TEST(Sequence, CuttingPointsOfSmallGraphs) {
  EXPECT_EQ(cuts(generate::chain({4, 8, 1, 1}, generic())), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(cuts(hiremate::testing::diamond()), (std::vector<int>{0, 3}));  // A and D, not B or C
  // Two entry ops feeding a third: the entries are parallel, only the join and what follows cut.
  generate::ForwardSpec s;
  s.ops = {{"a", 1, 8, 0, {}}, {"b", 1, 8, 0, {}}, {"c", 1, 8, 0, {0, 1}}, {"d", 1, 8, 0, {2}}};
  EXPECT_EQ(cuts(generate::build(s, generic())), (std::vector<int>{2, 3}));
  // A skip edge over the middle: no cut inside it.
  s.ops = {{"a", 1, 8, 0, {}}, {"b", 1, 8, 0, {0}}, {"c", 1, 8, 0, {1}}, {"d", 1, 8, 0, {0, 2}}};
  EXPECT_EQ(cuts(generate::build(s, generic())), (std::vector<int>{0, 3}));
}

TEST(Sequence, BlocksOfATransformerAreItsResidualBlocks) {
  generate::TransformerParams p;
  p.layers = 4;
  Graph g = generate::transformer(p, {});
  partition::PartitionOptions opt;
  opt.partitioners = {"sequence"};
  auto tree = partition::partition(g, opt);
  ASSERT_TRUE(hiremate::testing::check_tree(g, tree));
  const auto& top = tree.cluster(tree.root).partitionings.at(0);
  EXPECT_EQ(top.partitioner, "sequence");
  EXPECT_TRUE(top.chain);
  EXPECT_EQ(top.limit, 0);  // no bound but the chain
  // embed, then per layer: attention block (ln1 .. add1) and MLP block (ln2 .. add2), then ln_f, head.
  ASSERT_EQ(top.parts.size(), 1u + 4 * 2 + 2);
  EXPECT_TRUE(top.parts[0].leaf());
  const auto& attention = tree.cluster(top.parts[1].cluster);
  EXPECT_EQ(g.compute[attention.nodes.front()].name, "layer0.ln1");
  EXPECT_EQ(g.compute[attention.nodes.back()].name, "layer0.add1");
  // The blocks are equivalent across layers, and each is split by bottom_to_top (small: flat).
  EXPECT_EQ(tree.classes[attention.cls].members.size(), 4u);
  EXPECT_EQ(attention.partitionings.at(0).partitioner, "bottom_to_top");
}

TEST(Sequence, WithOneBlockTheSubPartitionerTakesTheCluster) {
  generate::ForwardSpec s;  // a skip edge from the first op to the last: a single block
  for (int i = 0; i < 40; ++i) s.ops.push_back({"n" + std::to_string(i), 1, 8, 0, {i == 0 ? generate::kInput : i - 1}});
  s.ops.push_back({"last", 1, 8, 0, {0, 39}});
  s.input_bytes = 8;
  Graph g = generate::build(s, generic());
  ForwardGraph fg(g);
  std::vector<int> all(fg.size());
  for (int i = 0; i < fg.size(); ++i) all[i] = i;
  partition::Sequence seq;
  auto d = seq.split(fg, all, true);
  ASSERT_TRUE(d.has_value());  // cut at n0 and last: [n0], [n1 .. last]
  partition::PartitionOptions opt;
  opt.partitioners = {"sequence"};
  auto tree = partition::partition(g, opt);
  EXPECT_TRUE(hiremate::testing::check_tree(g, tree));
}
