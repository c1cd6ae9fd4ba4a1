#include "hiremate/graph/generate.h"

#include <gtest/gtest.h>

#include "hiremate/common/error.h"
#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/solver.h"

using namespace hiremate;

namespace {
int count(const Graph& g, ComputeKind k) {
  int n = 0;
  for (const auto& c : g.compute) n += c.kind == k;
  return n;
}
generate::BuildOptions generic() {
  generate::BuildOptions o;
  o.training = false;
  return o;
}
// The keep-all schedule runs: every generated graph is a valid graph the simulator accepts.
bool runs(const Graph& g) { return simulate(g, keep_all_schedule(g)).valid; }
}  // namespace

TEST(Generate, ChainsAsTrainingGraphsAndAsGenericDags) {
  Graph t = generate::chain({10, 100, 1, 2}, {});
  EXPECT_EQ(count(t, ComputeKind::Forward), 10);
  EXPECT_EQ(count(t, ComputeKind::Backward), 10);
  EXPECT_EQ(count(t, ComputeKind::Loss), 1);
  EXPECT_TRUE(t.data[*t.find_data("input")].source);
  EXPECT_EQ(t.data[*t.find_data("op1")].bytes, 200);  // period 2: 1 + 1 % 2
  EXPECT_EQ(t.compute[*t.find_compute("op1.backward")].time, 4);  // 2 x forward time 2
  EXPECT_TRUE(runs(t));
  Graph d = generate::chain({10, 100, 1, 1}, generic());
  EXPECT_FALSE(d.is_training());
  EXPECT_EQ(d.compute.size(), 10u);
  EXPECT_EQ(d.data.size(), 10u);  // no source: the first op reads nothing
  EXPECT_TRUE(d.compute[0].deps.empty());
  EXPECT_TRUE(runs(d));
}

TEST(Generate, TrainingGraphsAccumulateGradsAndFeedTheLossWithTheSinks) {
  generate::ForwardSpec s;
  s.input_bytes = 4;
  s.ops = {{"a", 1, 8, 2, {generate::kInput}}, {"b", 1, 8, 0, {0}}, {"c", 1, 8, 0, {0}}, {"d", 1, 8, 0, {1}}};
  Graph g = generate::build(s);
  NodeId ag = *g.find_data("a.grad");
  EXPECT_EQ(g.data[ag].producers.size(), 2u);  // b and c both read a
  const auto& loss = g.compute[g.loss];
  EXPECT_EQ(loss.deps, (std::vector<NodeId>{*g.find_data("c"), *g.find_data("d")}));  // c and d: nobody reads them
  NodeId ab = *g.find_compute("a.backward");
  EXPECT_EQ(g.compute[ab].pair, *g.find_compute("a"));
  EXPECT_NE(std::find(g.compute[ab].deps.begin(), g.compute[ab].deps.end(), *g.find_data("a.phantoms")),
            g.compute[ab].deps.end());
  EXPECT_EQ(g.compute[ab].outputs, std::vector<NodeId>{*g.find_data("input.grad")});
  EXPECT_TRUE(runs(g));
}

TEST(Generate, UNetHasItsSkipConnections) {
  Graph g = generate::unet({3, 2, 1 << 20, 1e-3}, generic());
  // stem, 3 x (2 convs + pool), 2 bottleneck convs, 3 x (upsample, concat, 2 convs), head
  EXPECT_EQ(g.compute.size(), 1u + 3 * 3 + 2 + 3 * 4 + 1);
  const auto& concat = g.compute[*g.find_compute("up0.concat")];
  EXPECT_EQ(concat.deps, (std::vector<NodeId>{*g.find_data("up0.upsample"), *g.find_data("down0.conv1")}));
  EXPECT_EQ(g.data[*g.find_data("down1.conv0")].bytes, (1 << 20) / 2);
  EXPECT_TRUE(runs(g));
  EXPECT_TRUE(runs(generate::unet({}, {})));
}

TEST(Generate, TransformerLayersInBothStyles) {
  generate::TransformerParams p;
  p.layers = 3;
  Graph g = generate::transformer(p, {});
  EXPECT_EQ(count(g, ComputeKind::Forward), 1 + 3 * 14 + 2);
  EXPECT_EQ(g.data[*g.find_data("layer1.scores")].bytes, 8 * 12 * 512 * 512 * 4);
  EXPECT_EQ(g.compute[*g.find_compute("layer2.add1")].deps,
            (std::vector<NodeId>{*g.find_data("layer1.add2"), *g.find_data("layer2.proj")}));
  EXPECT_TRUE(runs(g));
  p.parallel = true;
  Graph j = generate::transformer(p, {});
  EXPECT_EQ(count(j, ComputeKind::Forward), 1 + 3 * 12 + 2);
  EXPECT_EQ(j.compute[*j.find_compute("layer0.add")].deps.size(), 3u);
  EXPECT_TRUE(runs(j));
}

TEST(Generate, RandomLayeredDagsAreSeededAndLayered) {
  generate::RandomLayeredParams p;
  p.nodes = 200;
  p.width = 10;
  p.span = 2;
  Graph a = generate::random_layered(p, generic()), b = generate::random_layered(p, generic());
  ASSERT_EQ(a.compute.size(), 200u);
  for (size_t c = 0; c < a.compute.size(); ++c) {
    EXPECT_EQ(a.compute[c].deps, b.compute[c].deps);
    EXPECT_EQ(a.data[c].bytes, b.data[c].bytes);
    int layer = static_cast<int>(c) / 10;
    for (NodeId d : a.compute[c].deps) {
      int from = d / 10;  // generic: data node i is op i's output
      EXPECT_TRUE(from < layer && from >= layer - 2) << c << " reads " << d;
    }
    if (layer > 0) {
      EXPECT_FALSE(a.compute[c].deps.empty());
    }
  }
  p.seed = 2;
  Graph c = generate::random_layered(p, generic());
  bool differ = false;
  for (size_t i = 0; i < c.compute.size(); ++i) differ = differ || c.compute[i].deps != a.compute[i].deps;
  EXPECT_TRUE(differ);
  EXPECT_TRUE(runs(generate::random_layered(p, {})));
}

TEST(Generate, BadSpecsAreBadInput) {
  generate::ForwardSpec s;
  s.ops = {{"a", 1, 8, 0, {1}}, {"b", 1, 8, 0, {}}};
  EXPECT_THROW(generate::build(s), BadInput);  // reads a later op
  s.ops = {{"a", 1, 8, 0, {}}, {"a", 1, 8, 0, {0}}};
  EXPECT_THROW(generate::build(s), BadInput);  // the name repeats
  generate::RandomLayeredParams p;
  p.max_deps = 0;
  EXPECT_THROW(generate::random_layered(p), BadInput);
}
