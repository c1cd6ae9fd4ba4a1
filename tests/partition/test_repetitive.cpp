#include "hiremate/partition/repetitive.h"

#include <gtest/gtest.h>

#include "hiremate/common/error.h"
#include "hiremate/graph/generate.h"
#include "hiremate/partition/partition.h"
#include "partition/tree_checks.h"

using namespace hiremate;
using hiremate::partition::ClusterGraph;
using hiremate::partition::ForwardGraph;
using hiremate::partition::RepetitiveConfig;

namespace {
partition::Repeats repeats(const Graph& g, const RepetitiveConfig& cfg = {}) {
  ForwardGraph fg(g);
  std::vector<int> all(fg.size());
  for (int i = 0; i < fg.size(); ++i) all[i] = i;
  return partition::find_repeats(ClusterGraph(fg, all), cfg);
}
}  // namespace

TEST(Repetitive, FindsTheLayersOfATransformer) {
  for (bool parallel : {false, true}) {
    generate::TransformerParams p;
    p.layers = 20;
    p.parallel = parallel;
    Graph g = generate::transformer(p, {});
    auto r = repeats(g);
    const int layer = parallel ? 12 : 14;
    ASSERT_EQ(r.length, layer);  // not layer - 1, which repeats as often (ties go to the longer)
    ASSERT_EQ(r.starts.size(), 20u);
    for (int l = 0; l < 20; ++l) EXPECT_EQ(r.starts[l], 1 + l * layer);  // after the embedding
  }
}

TEST(Repetitive, NeedsEnoughCoverageAndFewEnoughBlocks) {
  generate::TransformerParams p;
  p.layers = 4;  // 4 x 14 of 59 units: 95 % covered
  Graph g = generate::transformer(p, {});
  EXPECT_EQ(repeats(g).starts.size(), 4u);
  RepetitiveConfig strict;
  strict.min_percentage_covered_required = 0.97;
  EXPECT_TRUE(repeats(g, strict).starts.empty());
  RepetitiveConfig few;
  few.strict_max_number_of_top_level_nodes = 5;  // 4 repeats + embed + tail = 6 blocks: too many,
  auto pairs = repeats(g, few);                  // but 2 repeats of 2 layers make 4 blocks
  EXPECT_EQ(pairs.length, 28);
  EXPECT_EQ(pairs.starts, (std::vector<int>{1, 29}));
  few.strict_max_number_of_top_level_nodes = 3;
  EXPECT_TRUE(repeats(g, few).starts.empty());
  // Random sizes: nothing repeats.
  generate::RandomLayeredParams rp;
  rp.nodes = 300;
  EXPECT_TRUE(repeats(generate::random_layered(rp, {})).starts.empty());
}

TEST(Repetitive, LargeClustersTryTheLikelyPeriodsOnly) {
  generate::TransformerParams p;
  p.layers = 40;  // 40 x 14 + 3 = 563 units
  Graph g = generate::transformer(p, {});
  RepetitiveConfig sampled;
  sampled.exhaustive_up_to = 100;
  auto a = repeats(g), b = repeats(g, sampled);
  EXPECT_EQ(a.length, b.length);
  EXPECT_EQ(a.starts, b.starts);
  EXPECT_EQ(b.starts.size(), 40u);
}

TEST(Repetitive, BlocksAreLayersAndWithoutRepeatsBottomToTopTakesOver) {
  generate::TransformerParams p;
  p.layers = 6;
  Graph g = generate::transformer(p, {});
  partition::PartitionOptions opt;
  opt.partitioners = {"repetitive"};
  auto tree = partition::partition(g, opt);
  ASSERT_TRUE(hiremate::testing::check_tree(g, tree));
  const auto& top = tree.cluster(tree.root).partitionings.at(0);
  EXPECT_EQ(top.partitioner, "repetitive");
  EXPECT_EQ(top.parts.size(), 1u + 6 + 1);  // embed, 6 layers, ln_f + head
  EXPECT_EQ(top.limit, 100);
  generate::RandomLayeredParams rp;
  rp.nodes = 300;
  Graph r = generate::random_layered(rp, {});
  auto fallback = partition::partition(r, opt);
  ASSERT_TRUE(hiremate::testing::check_tree(r, fallback));
  EXPECT_EQ(fallback.cluster(fallback.root).partitionings.at(0).partitioner, "bottom_to_top");
}

TEST(Repetitive, IntermediatesCanGoWithTheFollowingRepeat) {
  generate::TransformerParams p;
  p.layers = 6;
  Graph g = generate::transformer(p, {});
  RepetitiveConfig cfg;
  cfg.put_intermediates_with_preceding_block = false;
  partition::Repetitive rep(cfg);
  partition::ClusterTree tree = partition::partition(g, {&rep});
  EXPECT_TRUE(hiremate::testing::check_tree(g, tree));
  EXPECT_THROW(cfg.set("min_percentage_covered_required", "1.5"), BadInput);
  EXPECT_THROW(cfg.set("patterns", "3"), BadInput);
}
