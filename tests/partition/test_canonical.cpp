#include "hiremate/partition/canonical.h"

#include <gtest/gtest.h>

#include "hiremate/graph/generate.h"
#include "support/tiny_graphs.h"

using namespace hiremate;
using hiremate::generate::OpSpec;
using hiremate::partition::Canonical;
using hiremate::partition::Canonicalizer;
using hiremate::partition::ForwardGraph;

namespace {

// A generic DAG of small three-op blocks that all read the op `e`. Block `name`: n0 reads e, n1 reads
// n0, n2 reads n0 or n1 (`fork`); `reader` adds an op outside the block that reads n1; `time1` and
// `bytes1` are n1's.
struct Block {
  std::string name;
  bool fork = false;
  bool reader = true;
  double time1 = 1;
  int64_t bytes1 = 8;
};

Graph blocks(const std::vector<Block>& list) {
  generate::ForwardSpec s;
  s.name = "blocks";
  s.ops.push_back({"e", 1, 8, 0, {}});
  for (const Block& b : list) {
    int n0 = static_cast<int>(s.ops.size());
    s.ops.push_back({b.name + ".n0", 1, 8, 0, {0}});
    s.ops.push_back({b.name + ".n1", b.time1, b.bytes1, 0, {n0}});
    s.ops.push_back({b.name + ".n2", 1, 8, 0, {b.fork ? n0 : n0 + 1}});
    if (b.reader) s.ops.push_back({b.name + ".out", 1, 8, 0, {n0 + 1}});
  }
  generate::BuildOptions o;
  o.training = false;
  return generate::build(s, o);
}

std::vector<int> units(const Graph& g, const ForwardGraph& fg, const std::string& block) {
  std::vector<int> out;
  for (const char* n : {".n0", ".n1", ".n2"}) out.push_back(fg.unit_of(*g.find_compute(block + n)));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(Canonical, IdenticalClustersHaveEqualFormsAndDifferentOnesDoNot) {
  Graph g = blocks({{"x"}, {"same"}, {"fork", true}, {"inner", false, false}, {"slow", false, true, 2},
                    {"big", false, true, 1, 16}});
  ForwardGraph fg(g);
  Canonicalizer canon(fg);
  Canonical x = canon(units(g, fg, "x"));
  Canonical same = canon(units(g, fg, "same"));
  EXPECT_EQ(x.hash, same.hash);
  EXPECT_EQ(x.signature, same.signature);
  for (const char* other : {"fork", "inner", "slow", "big"}) {
    Canonical c = canon(units(g, fg, other));
    EXPECT_NE(x.hash, c.hash) << other;
    EXPECT_NE(x.signature, c.signature) << other;
  }
}

// Each difference alone: an edge (n2 reads n0 instead of n1) with the same nodes and interface roles,
// the interface pattern alone (n1 read outside or not), a time, a size.
TEST(Canonical, TheFormSeesEdgesInterfacesTimesAndSizes) {
  Graph g = blocks({{"x"}, {"fork", true}, {"inner", false, false}});
  ForwardGraph fg(g);
  Canonicalizer canon(fg);
  Canonical x = canon(units(g, fg, "x")), fork = canon(units(g, fg, "fork")), inner = canon(units(g, fg, "inner"));
  EXPECT_EQ(x.interface.output_data.size(), fork.interface.output_data.size());  // same roles ...
  EXPECT_NE(x.signature, fork.signature);                                         // ... other edges
  EXPECT_EQ(x.interface.output_data.size(), 2u);  // n1 (read by x.out) and n2 (read by nobody)
  EXPECT_EQ(inner.interface.output_data.size(), 1u);
  EXPECT_NE(x.signature, inner.signature);
}

TEST(Canonical, LocalListsAndInterfacesOfAOneUnitTrainingCluster) {
  Graph g = hiremate::testing::two_layer();
  ForwardGraph fg(g);
  Canonical f1 = Canonicalizer(fg)({0});
  std::vector<std::string> compute, data;
  for (NodeId c : f1.compute) compute.push_back(g.compute[c].name);
  for (NodeId d : f1.data) data.push_back(g.data[d].name);
  EXPECT_EQ(compute, (std::vector<std::string>{"F1", "B1"}));
  EXPECT_EQ(data, (std::vector<std::string>{"x", "a", "a_ph", "ag", "xg"}));  // by first touch
  EXPECT_EQ(f1.interface.input_data, std::vector<NodeId>{*g.find_data("x")});
  EXPECT_EQ(f1.interface.output_data, std::vector<NodeId>{*g.find_data("a")});
  EXPECT_EQ(f1.interface.output_grad, std::vector<NodeId>{*g.find_data("ag")});  // B2 writes it
  EXPECT_EQ(f1.interface.input_grad, std::vector<NodeId>{*g.find_data("xg")});
  Canonical both = Canonicalizer(fg)({0, 1});
  EXPECT_EQ(both.interface.output_data, std::vector<NodeId>{*g.find_data("b")});
  EXPECT_EQ(both.interface.output_grad, std::vector<NodeId>{*g.find_data("bg")});
  EXPECT_NE(both.hash, f1.hash);
}

TEST(Canonical, RepeatedTransformerLayersAreEquivalentAndNamesDoNotMatter) {
  generate::TransformerParams p;
  p.layers = 4;
  Graph g = generate::transformer(p, {});
  ForwardGraph fg(g);
  Canonicalizer canon(fg);
  auto layer = [&](int l) {
    std::vector<int> out;
    for (int u = 0; u < fg.size(); ++u)
      if (g.compute[fg.forward(u)].name.rfind("layer" + std::to_string(l) + ".", 0) == 0) out.push_back(u);
    return out;
  };
  Canonical first = canon(layer(0));
  for (int l = 1; l < 4; ++l) EXPECT_EQ(canon(layer(l)).signature, first.signature) << l;
  // Two consecutive layers are not one layer.
  std::vector<int> two = layer(1);
  for (int u : layer(2)) two.push_back(u);
  EXPECT_NE(canon(two).hash, first.hash);
}
