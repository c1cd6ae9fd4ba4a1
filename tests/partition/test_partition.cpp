#include "hiremate/partition/partition.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

#include "hiremate/common/error.h"
#include "hiremate/graph/generate.h"
#include "partition/tree_checks.h"
#include "support/tiny_graphs.h"

using namespace hiremate;
using hiremate::partition::ClusterTree;
using hiremate::partition::PartitionOptions;
using hiremate::testing::check_tree;

namespace {

ClusterTree run(const Graph& g, std::vector<std::string> partitioners) {
  PartitionOptions opt;
  opt.partitioners = std::move(partitioners);
  return partition::partition(g, opt);
}

struct Case {
  std::string name;
  std::function<Graph(bool training)> make;
};

std::vector<Case> generated_graphs() {
  auto opt = [](bool training) {
    generate::BuildOptions o;
    o.training = training;
    return o;
  };
  std::vector<Case> cases;
  cases.push_back({"chain100", [=](bool t) { return generate::chain({100, 1 << 20, 1, 1}, opt(t)); }});
  cases.push_back({"chain1000p3", [=](bool t) { return generate::chain({1000, 1 << 20, 1, 3}, opt(t)); }});
  cases.push_back({"unet", [=](bool t) { return generate::unet({}, opt(t)); }});
  cases.push_back({"unet6x3", [=](bool t) { return generate::unet({6, 3, 1 << 26, 1e-3}, opt(t)); }});
  for (bool parallel : {false, true})
    cases.push_back({parallel ? "gptj12" : "gpt12", [=](bool t) {
                       generate::TransformerParams p;
                       p.layers = 12;
                       p.parallel = parallel;
                       return generate::transformer(p, opt(t));
                     }});
  for (int n : {100, 1000, 5000})
    for (uint64_t seed : {1, 2})
      cases.push_back({"random" + std::to_string(n) + "s" + std::to_string(seed), [=](bool t) {
                         generate::RandomLayeredParams p;
                         p.nodes = n;
                         p.seed = seed;
                         return generate::random_layered(p, opt(t));
                       }});
  // Dense: wide layers reading many earlier nodes (few dominators, many merges rejected or cut).
  cases.push_back({"random_dense800", [=](bool t) {
                     generate::RandomLayeredParams p;
                     p.nodes = 800;
                     p.width = 40;
                     p.max_deps = 6;
                     p.span = 4;
                     p.seed = 7;
                     return generate::random_layered(p, opt(t));
                   }});
  return cases;
}

}  // namespace

// The property test: on every generated graph, with each partitioner and with all three
// together, parts cover each cluster exactly once, every part is convex, each quotient graph is
// acyclic (parts listed in a topological order) and no partitioning exceeds its bound unless it is a
// chain. Training graphs and generic DAGs alike.
TEST(Partition, EveryTreeOfEveryGeneratedGraphHasThePartitionProperties) {
  const std::vector<std::vector<std::string>> configs = {
      {"bottom_to_top"}, {"sequence"}, {"repetitive"}, {"repetitive", "sequence", "bottom_to_top"}};
  for (const Case& c : generated_graphs())
    for (bool training : {true, false}) {
      Graph g = c.make(training);
      for (const auto& config : configs) {
        std::string label = c.name + (training ? " training " : " generic ") + config[0] +
                            (config.size() > 1 ? "+" : "");
        ClusterTree tree = run(g, config);
        EXPECT_TRUE(check_tree(g, tree)) << label;
      }
    }
}

TEST(Partition, BottomToTopRespectsTheSizeBoundsOnLargeUnstructuredGraphs) {
  generate::RandomLayeredParams p;
  p.nodes = 3000;
  Graph g = generate::random_layered(p, {});
  ClusterTree tree = run(g, {"bottom_to_top"});
  ASSERT_TRUE(check_tree(g, tree));
  for (int r : tree.bottom_up())
    for (const auto& part : tree.cluster(r).partitionings) {
      int bound = r == tree.root ? 30 : 20;
      EXPECT_TRUE(part.estimate <= bound || part.chain) << "cluster " << r << " estimate " << part.estimate;
    }
  EXPECT_GT(tree.reachable().size(), 3000u / 20);  // it really is split, not left flat
}

TEST(Partition, SameGraphSameTree) {
  generate::RandomLayeredParams p;
  p.nodes = 1500;
  Graph g = generate::random_layered(p, {});
  for (const char* name : {"bottom_to_top", "sequence", "repetitive"}) {
    ClusterTree a = run(g, {name}), b = run(g, {name});
    ASSERT_EQ(a.clusters.size(), b.clusters.size()) << name;
    for (size_t c = 0; c < a.clusters.size(); ++c) {
      EXPECT_EQ(a.clusters[c].nodes, b.clusters[c].nodes) << name;
      EXPECT_EQ(a.clusters[c].cls, b.clusters[c].cls) << name;
      ASSERT_EQ(a.clusters[c].partitionings.size(), b.clusters[c].partitionings.size()) << name;
      for (size_t k = 0; k < a.clusters[c].partitionings.size(); ++k) {
        const auto &x = a.clusters[c].partitionings[k], &y = b.clusters[c].partitionings[k];
        ASSERT_EQ(x.parts.size(), y.parts.size()) << name;
        for (size_t i = 0; i < x.parts.size(); ++i) {
          EXPECT_EQ(x.parts[i].node, y.parts[i].node);
          EXPECT_EQ(x.parts[i].cluster, y.parts[i].cluster);
        }
      }
    }
  }
}

namespace {

// Forward node names of layer l ("layer7.q", ...), and the layer a name belongs to (-1 for others).
int layer_of(const std::string& name) {
  if (name.rfind("layer", 0) != 0) return -1;
  return std::stoi(name.substr(5, name.find('.') - 5));
}

// The classes whose members each lie inside a single layer, by class: member -> its layer.
std::map<int, std::map<int, int>> per_layer_classes(const Graph& g, const ClusterTree& tree) {
  std::map<int, std::map<int, int>> out;
  for (int c : tree.reachable()) {
    const auto& cl = tree.cluster(c);
    std::set<int> layers;
    for (NodeId n : cl.nodes) layers.insert(layer_of(g.compute[n].name));
    if (layers.size() == 1 && *layers.begin() >= 0) out[cl.cls][c] = *layers.begin();
  }
  return out;
}

std::vector<NodeId> layer_nodes(const Graph& g, int l) {
  std::vector<NodeId> out;
  for (NodeId c : g.order)
    if (g.compute[c].kind == ComputeKind::Forward && layer_of(g.compute[c].name) == l) out.push_back(c);
  return out;
}

}  // namespace

// The acceptance test: 48 identical layers are found as one equivalence class of 48 layer
// clusters (solved once), by repetitive and by bottom_to_top. With one residual per layer (GPT-J /
// PaLM "parallel" layers) a layer is one flow for bottom_to_top.
TEST(Partition, FortyEightTransformerLayersAreOneClassOfLayerClusters) {
  generate::TransformerParams p;
  p.layers = 48;
  p.parallel = true;
  Graph g = generate::transformer(p, {});
  for (const char* name : {"repetitive", "bottom_to_top"}) {
    ClusterTree tree = run(g, {name});
    ASSERT_TRUE(check_tree(g, tree)) << name;
    auto classes = per_layer_classes(g, tree);
    int found = -1;
    for (auto& [cls, members] : classes)
      if (members.size() == 48) found = cls;
    ASSERT_GE(found, 0) << name << ": no class of 48 single-layer clusters";
    std::set<int> layers;
    for (auto [cluster, layer] : classes[found]) {
      EXPECT_EQ(tree.cluster(cluster).nodes, layer_nodes(g, layer)) << name << ": not a whole layer";
      layers.insert(layer);
    }
    EXPECT_EQ(layers.size(), 48u) << name;
    EXPECT_EQ(tree.classes[found].members.size(), 48u) << name;
    // Solved once: the class has one representative in the bottom-up order.
    int reps = 0;
    for (int r : tree.bottom_up()) reps += tree.cluster(r).cls == found;
    EXPECT_EQ(reps, 1) << name;
  }
}

// GPT-2-style layers have two residuals. repetitive still cuts whole layers; bottom_to_top's flows are
// the two residual blocks, found as two classes of 48 that tile the layers.
TEST(Partition, SequentialTransformerLayersAreFoundAsLayersOrAsTwoRepeatedHalves) {
  generate::TransformerParams p;
  p.layers = 48;
  Graph g = generate::transformer(p, {});
  ClusterTree rep = run(g, {"repetitive"});
  ASSERT_TRUE(check_tree(g, rep));
  bool whole_layers = false;
  for (auto& [cls, members] : per_layer_classes(g, rep)) {
    if (members.size() != 48) continue;
    whole_layers = true;
    for (auto [cluster, layer] : members) EXPECT_EQ(rep.cluster(cluster).nodes, layer_nodes(g, layer));
  }
  EXPECT_TRUE(whole_layers);

  ClusterTree b2t = run(g, {"bottom_to_top"});
  ASSERT_TRUE(check_tree(g, b2t));
  std::vector<int> big;
  auto classes = per_layer_classes(g, b2t);
  for (auto& [cls, members] : classes)
    if (members.size() == 48) big.push_back(cls);
  ASSERT_EQ(big.size(), 2u);
  for (int l = 0; l < 48; ++l) {
    std::vector<NodeId> tiled;
    for (int cls : big)
      for (auto [cluster, layer] : classes[cls])
        if (layer == l) tiled.insert(tiled.end(), b2t.cluster(cluster).nodes.begin(), b2t.cluster(cluster).nodes.end());
    std::sort(tiled.begin(), tiled.end());
    std::vector<NodeId> expected = layer_nodes(g, l);
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(tiled, expected) << "layer " << l;
  }
}

TEST(Partition, SeveralPartitionersGiveTheRootSeveralPartitionings) {
  generate::TransformerParams p;
  p.layers = 8;
  Graph g = generate::transformer(p, {});
  ClusterTree tree = run(g, {"repetitive", "bottom_to_top"});
  ASSERT_TRUE(check_tree(g, tree));
  const auto& root = tree.cluster(tree.root);
  ASSERT_EQ(root.partitionings.size(), 2u);
  EXPECT_EQ(root.partitionings[0].partitioner, "repetitive");
  EXPECT_EQ(root.partitionings[1].partitioner, "bottom_to_top");
  EXPECT_EQ(tree.partitioners, (std::vector<std::string>{"repetitive", "bottom_to_top"}));
}

TEST(Partition, SmallClustersGetTheFlatPartitioning) {
  Graph g = hiremate::testing::two_layer();  // two units
  ClusterTree tree = partition::partition(g);
  ASSERT_TRUE(check_tree(g, tree));
  ASSERT_EQ(tree.clusters.size(), 1u);
  ASSERT_EQ(tree.cluster(0).partitionings.size(), 1u);
  EXPECT_EQ(tree.cluster(0).partitionings[0].partitioner, "flat");
  EXPECT_EQ(tree.cluster(0).partitionings[0].parts.size(), 2u);
  EXPECT_EQ(tree.bottom_up(), std::vector<int>{0});
}

TEST(Partition, BadOptionsAreBadInput) {
  Graph g = hiremate::testing::diamond();
  PartitionOptions opt;
  opt.partitioners = {};
  EXPECT_THROW(partition::partition(g, opt), BadInput);
  opt.partitioners = {"bottom_to_top"};
  opt.min_size_to_trigger_partitioning = 1;
  EXPECT_THROW(partition::partition(g, opt), BadInput);
}

TEST(Partition, InterfacesOfTheRootAreTheLossSideAndTheInputs) {
  Graph g = hiremate::testing::two_layer();
  ClusterTree tree = partition::partition(g);
  const auto& in = tree.cluster(tree.root).interface;
  EXPECT_EQ(in.input_data, std::vector<NodeId>{*g.find_data("x")});
  EXPECT_EQ(in.output_data, std::vector<NodeId>{*g.find_data("b")});  // read by the loss
  EXPECT_EQ(in.output_grad, std::vector<NodeId>{*g.find_data("bg")});  // written by the loss
  EXPECT_EQ(in.input_grad, std::vector<NodeId>{*g.find_data("xg")});   // read by nobody
  EXPECT_EQ(in.data_bytes(g), 120);
}

// The checker used above must catch broken trees, or the property test proves nothing.
TEST(Partition, TheTreeCheckerCatchesBrokenTrees) {
  generate::TransformerParams p;
  p.layers = 6;
  p.parallel = true;
  Graph g = generate::transformer(p, {});
  ClusterTree good = run(g, {"bottom_to_top"});
  ASSERT_TRUE(check_tree(g, good));
  auto& root_parts = good.clusters[good.root].partitionings[0].parts;
  {
    ClusterTree t = good;  // parts out of topological order
    std::swap(t.clusters[t.root].partitionings[0].parts[0], t.clusters[t.root].partitionings[0].parts[1]);
    EXPECT_FALSE(check_tree(g, t));
  }
  {
    ClusterTree t = good;  // a unit dropped
    t.clusters[t.root].partitionings[0].parts.pop_back();
    EXPECT_FALSE(check_tree(g, t));
  }
  {
    ClusterTree t = good;  // a unit twice
    t.clusters[t.root].partitionings[0].parts.push_back(root_parts.back());
    EXPECT_FALSE(check_tree(g, t));
  }
  {
    ClusterTree t = good;  // a non-convex sub-cluster: a layer without its middle
    int layer = root_parts[1].cluster;
    auto& nodes = t.clusters[layer].nodes;
    nodes.erase(nodes.begin() + 1);  // layer0.q: ln1 -> q -> scores leaves and comes back
    EXPECT_FALSE(check_tree(g, t));
  }
  {
    ClusterTree t = good;  // over its bound and not a chain
    auto& part = t.clusters[root_parts[1].cluster].partitionings[0];
    part.limit = 5;
    EXPECT_FALSE(check_tree(g, t));
  }
  {
    ClusterTree t = good;  // wrong estimate
    t.clusters[t.root].partitionings[0].estimate += 1;
    EXPECT_FALSE(check_tree(g, t));
  }
}
