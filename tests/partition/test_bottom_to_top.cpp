#include "hiremate/partition/bottom_to_top.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "hiremate/common/error.h"
#include "hiremate/graph/generate.h"
#include "hiremate/partition/partition.h"
#include "partition/tree_checks.h"

using namespace hiremate;
using hiremate::partition::BottomToTop;
using hiremate::partition::BottomToTopConfig;
using hiremate::partition::ClusterTree;
using hiremate::partition::Draft;
using hiremate::partition::ForwardGraph;

namespace {

std::vector<int> all_units(const ForwardGraph& fg) {
  std::vector<int> u(fg.size());
  for (int i = 0; i < fg.size(); ++i) u[i] = i;
  return u;
}

ClusterTree with(const Graph& g, const BottomToTopConfig& cfg) {
  BottomToTop b2t(cfg);
  return partition::partition(g, {&b2t});
}

// A generic DAG of `blocks` residual blocks, each: in -> a1 -> a2 -> a3 -> join(a3, in), plus a
// 1-op side branch in -> s -> join. Every op writes `bytes` except the joins, which write `join_bytes`.
Graph residual_blocks(int blocks, int64_t bytes, int64_t join_bytes) {
  generate::ForwardSpec s;
  s.name = "residual";
  s.ops.push_back({"stem", 1, join_bytes, 0, {}});
  int in = 0;
  for (int b = 0; b < blocks; ++b) {
    std::string p = "b" + std::to_string(b) + ".";
    int base = static_cast<int>(s.ops.size());
    s.ops.push_back({p + "a1", 1, bytes, 0, {in}});
    s.ops.push_back({p + "a2", 1, bytes, 0, {base}});
    s.ops.push_back({p + "a3", 1, bytes, 0, {base + 1}});
    s.ops.push_back({p + "s", 1, bytes, 0, {in}});
    s.ops.push_back({p + "join", 1, join_bytes, 0, {base + 2, base + 3, in}});
    in = base + 4;
  }
  generate::BuildOptions o;
  o.training = false;
  return generate::build(s, o);
}

}  // namespace

TEST(BottomToTop, ASmallClusterStaysFlat) {
  Graph g = residual_blocks(5, 100, 10);  // 26 units: fits the top bound of 30
  ForwardGraph fg(g);
  Draft d = *BottomToTop().split(fg, all_units(fg), true);
  EXPECT_EQ(d.parts.size(), 26u);
  for (const Draft& part : d.parts) EXPECT_EQ(part.units.size(), 1u);
  EXPECT_EQ(d.limit, 30);
  // The same cluster as a sub-cluster (bound 20) is split.
  Draft sub = *BottomToTop().split(fg, all_units(fg), false);
  EXPECT_LT(sub.parts.size(), 26u);
  EXPECT_EQ(sub.limit, 20);
}

// Blocks whose boundary is cheap (joins write 10 bytes, the inside 100) are grouped block by block:
// no group spans two blocks, and the top level is the chain of blocks.
TEST(BottomToTop, GroupsAlongCheapBoundaries) {
  Graph g = residual_blocks(20, 100, 10);
  ClusterTree tree = partition::partition(g);
  ASSERT_TRUE(hiremate::testing::check_tree(g, tree));
  const auto& top = tree.cluster(tree.root).partitionings.at(0);
  EXPECT_TRUE(top.chain);
  int groups = 0;
  for (const auto& part : top.parts) {
    if (part.leaf()) continue;
    ++groups;
    std::set<std::string> blocks;
    for (NodeId c : tree.cluster(part.cluster).nodes) {
      const std::string& name = g.compute[c].name;
      blocks.insert(name.substr(0, name.find('.')));
    }
    EXPECT_EQ(blocks.size(), 1u) << "a group spans blocks";
  }
  EXPECT_EQ(groups, 20);
  // All 20 blocks alike: one class, solved once.
  EXPECT_EQ(tree.classes[tree.cluster(top.parts[1].cluster).cls].members.size(), 20u);
}

TEST(BottomToTop, MainGraphAsAnyOtherBoundsTheTopBySubGraphBound) {
  generate::RandomLayeredParams p;
  p.nodes = 600;
  Graph g = generate::random_layered(p, {});
  BottomToTopConfig cfg;
  cfg.main_graph_as_any_other = true;
  cfg.can_use_rotor = false;
  ClusterTree tree = with(g, cfg);
  ASSERT_TRUE(hiremate::testing::check_tree(g, tree));
  for (int r : tree.bottom_up())
    for (const auto& part : tree.cluster(r).partitionings) EXPECT_LE(part.estimate, 20);
}

TEST(BottomToTop, WithoutRotorEvenAChainIsCut) {
  Graph chain = generate::chain({200, 1 << 20, 1, 1}, {});
  ClusterTree rotor = partition::partition(chain);
  ASSERT_EQ(rotor.cluster(rotor.root).partitionings.at(0).parts.size(), 200u);  // a chain: Rotor takes it
  EXPECT_TRUE(rotor.cluster(rotor.root).partitionings.at(0).chain);
  BottomToTopConfig cfg;
  cfg.can_use_rotor = false;
  ClusterTree tree = with(chain, cfg);
  ASSERT_TRUE(hiremate::testing::check_tree(chain, tree));
  for (int r : tree.bottom_up())
    for (const auto& part : tree.cluster(r).partitionings)
      EXPECT_LE(part.estimate, r == tree.root ? 30 : 20);
}

TEST(BottomToTop, RepeatsFirstKeepsBoundaryLayersIdentical) {
  generate::TransformerParams p;
  p.layers = 16;
  p.parallel = true;
  Graph g = generate::transformer(p, {});
  auto largest_class = [&](const ClusterTree& t) {
    size_t best = 0;
    for (const auto& cls : t.classes) best = std::max(best, cls.members.size());
    return best;
  };
  EXPECT_EQ(largest_class(partition::partition(g)), 16u);
  // Upstream's ranking: the first layer swallows the embedding and the last the final norm.
  BottomToTopConfig upstream;
  upstream.repeats_first = false;
  EXPECT_EQ(largest_class(with(g, upstream)), 14u);
}

TEST(BottomToTop, SlowRoundsHandOverToTheIntervalFallback) {
  generate::RandomLayeredParams p;
  p.nodes = 2000;
  Graph g = generate::random_layered(p, {});
  ClusterTree tree = partition::partition(g);
  ASSERT_TRUE(hiremate::testing::check_tree(g, tree));
  int depth = 0;
  for (int c : tree.reachable()) depth = std::max(depth, tree.cluster(c).level);
  EXPECT_LE(depth, 8);  // O(log n) levels, not O(n / 20)
  // Without the fallback, rounds that barely shrink the top level go on; the tree is still valid.
  BottomToTopConfig cfg;
  cfg.min_round_shrink = 0;
  p.nodes = 400;
  Graph small = generate::random_layered(p, {});
  ClusterTree slow = with(small, cfg);
  EXPECT_TRUE(hiremate::testing::check_tree(small, slow));
}

// A 50-layer encoder-decoder reaches the interval fallback with a top level of many layer groups.
// Its last cuts leave the root at least min_top_fill of its bound (the cuts with the least bytes
// alone left 3 parts, estimate 6 of 30, for its H-ILP to combine).
TEST(BottomToTop, TheFallbackLeavesTheRootAtLeastHalfItsBound) {
  generate::TransformerParams p;
  p.layers = 50;
  Graph g = generate::encoder_decoder(p);
  BottomToTopConfig cfg;
  cfg.can_use_rotor = false;
  ClusterTree tree = with(g, cfg);
  ASSERT_TRUE(hiremate::testing::check_tree(g, tree));
  const auto& root = tree.cluster(tree.root);
  ASSERT_EQ(root.partitionings.size(), 1u);
  const auto& top = root.partitionings[0];
  EXPECT_LE(top.estimate, cfg.max_estimate_for_main_graph);
  EXPECT_GE(top.estimate, cfg.min_top_fill * cfg.max_estimate_for_main_graph) << top.parts.size() << " parts";
  // With no floor, the least bytes among the cuts that fit (here the old cuts).
  cfg.min_top_fill = 0;
  ClusterTree coarse = with(g, cfg);
  EXPECT_LT(coarse.cluster(coarse.root).partitionings[0].estimate, top.estimate);
}

TEST(BottomToTop, ParametersAreSetByNameAndCheckedOnTheWay) {
  BottomToTopConfig cfg;
  cfg.set("max_estimate_per_sub_graph", "10");
  cfg.set("can_use_rotor", "false");
  cfg.set("value_power_total_size", "1.5");
  EXPECT_EQ(cfg.max_estimate_per_sub_graph, 10);
  EXPECT_FALSE(cfg.can_use_rotor);
  EXPECT_EQ(cfg.value_power_total_size, 1.5);
  EXPECT_THROW(cfg.set("max_estimate_per_sub_graph", "1"), BadInput);
  EXPECT_THROW(cfg.set("can_use_rotor", "maybe"), BadInput);
  EXPECT_THROW(cfg.set("max_len_seq", "-3"), BadInput);
  try {
    cfg.set("max_size", "3");
    FAIL();
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("max_estimate_per_sub_graph"), std::string::npos) << e.what();
  }
}
