#include "hiremate/partition/translate.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "hiremate/common/error.h"
#include "hiremate/graph/generate.h"
#include "hiremate/partition/partition.h"

using namespace hiremate;

namespace {
std::string without_layer(const std::string& name) {
  return name.rfind("layer", 0) == 0 ? name.substr(name.find('.')) : name;
}
}  // namespace

// Every copy of a transformer layer maps onto the representative node by node: same role (name up
// to the layer number), and the deps and outputs of a translated compute are the translated deps
// and outputs.
TEST(Translator, MapsARepresentativeOntoEachCopyNodeByNode) {
  generate::TransformerParams p;
  p.layers = 6;
  Graph g = generate::transformer(p, {});
  partition::PartitionOptions opt;
  opt.partitioners = {"repetitive"};
  partition::ClusterTree tree = partition::partition(g, opt);
  const partition::EquivalenceClass* layers = nullptr;
  for (const auto& cls : tree.classes)
    if (cls.members.size() == 6) layers = &cls;
  ASSERT_NE(layers, nullptr);
  const partition::Cluster& rep = tree.cluster(layers->representative);
  for (int m : layers->members) {
    partition::Translator t(tree, rep.id, m);
    const partition::Cluster& copy = tree.cluster(m);
    for (NodeId c : rep.compute) {
      NodeId x = t.compute(c);
      EXPECT_EQ(without_layer(g.compute[c].name), without_layer(g.compute[x].name));
      std::vector<NodeId> deps;
      for (NodeId d : g.compute[c].deps) deps.push_back(t.data(d));
      EXPECT_EQ(deps, g.compute[x].deps) << g.compute[c].name;
      std::vector<NodeId> outs;
      for (NodeId d : g.compute[c].outputs) outs.push_back(t.data(d));
      EXPECT_EQ(outs, g.compute[x].outputs);
      if (g.compute[c].pair != kNone) {
        EXPECT_EQ(t.compute(g.compute[c].pair), g.compute[x].pair);
      }
    }
    std::vector<NodeId> in;
    for (NodeId d : rep.interface.input_data) in.push_back(t.data(d));
    std::sort(in.begin(), in.end());
    EXPECT_EQ(in, copy.interface.input_data);
    EXPECT_FALSE(t.has_compute(*g.find_compute("embed")));
  }
}

TEST(Translator, RefusesClustersOfDifferentClasses) {
  generate::TransformerParams p;
  p.layers = 3;
  Graph g = generate::transformer(p, {});
  partition::PartitionOptions opt;
  opt.partitioners = {"repetitive"};
  partition::ClusterTree tree = partition::partition(g, opt);
  int other = -1;
  for (const auto& c : tree.clusters)
    if (c.cls != tree.cluster(tree.root).cls) other = c.id;
  ASSERT_GE(other, 0);
  EXPECT_THROW(partition::Translator(tree, tree.root, other), Error);
}
