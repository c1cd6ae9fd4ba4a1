// layered_dag(): the public benchmark family of random layered DAGs, and `hiremate generate random
// --width-ratio`.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "hiremate/common/error.h"
#include "hiremate/graph/generate.h"
#include "hiremate/graph/io/graph_io.h"
#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/solver.h"
#include "support/run_cli.h"

using namespace hiremate;

namespace {
generate::BuildOptions generic() {
  generate::BuildOptions o;
  o.training = false;
  return o;
}
size_t edges(const Graph& g) {
  size_t e = 0;
  for (const auto& c : g.compute) e += c.deps.size();
  return e;
}
// Layer of each op from its name "n<id>": ids are placed layer by layer, so the layer of an op is
// the length of the longest path from the source (every op has a predecessor in the layer before).
std::map<std::string, int> depth(const Graph& g) {
  std::map<std::string, int> d;
  for (NodeId c : g.order) {
    int k = 0;
    for (NodeId x : g.compute[c].deps) k = std::max(k, d[g.compute[g.data[x].producers[0]].name] + 1);
    d[g.compute[c].name] = k;
  }
  return d;
}
}  // namespace

TEST(GenerateLayered, SeededDeterministicAndOfTheFamilyShape) {
  generate::LayeredDagParams p;
  p.nodes = 500;
  p.width_ratio = 0.36;  // rl3-n500's parameters
  Graph a = generate::layered_dag(p, generic()), b = generate::layered_dag(p, generic());
  ASSERT_EQ(a.compute.size(), 500u);
  ASSERT_EQ(a.compute.size(), b.compute.size());
  for (size_t c = 0; c < a.compute.size(); ++c) {
    EXPECT_EQ(a.compute[c].name, b.compute[c].name);
    EXPECT_EQ(a.compute[c].deps, b.compute[c].deps);
    EXPECT_EQ(a.data[c].bytes, b.data[c].bytes);
    EXPECT_EQ(a.compute[c].time, b.compute[c].time);
    EXPECT_EQ(a.data[c].bytes % 10, 0);
    EXPECT_GT(a.data[c].bytes, 0);
  }
  // The source comes first (the fixed order is topological), the target last, both of time 0.
  EXPECT_EQ(a.compute[a.order.front()].name, "n0");
  EXPECT_EQ(a.compute[a.order.back()].name, "n1");
  EXPECT_EQ(a.compute[a.order.front()].time, 0);
  // Layers: sqrt(498 (1/0.36 - 1)) = 29.8, so 30 nominal, the interior ones between source and target.
  auto d = depth(a);
  EXPECT_NEAR(d["n1"] - 1, 30, 5);
  // Skip edges (between layers two or more apart) are about 14 % of all, as in the public files.
  size_t skips = 0;
  for (const auto& c : a.compute)
    for (NodeId x : c.deps) {
      const std::string& from = a.compute[a.data[x].producers[0]].name;
      if (c.name != "n1" && from != "n0" && d[c.name] - d[from] >= 2) ++skips;
    }
  EXPECT_NEAR(static_cast<double>(skips) / static_cast<double>(edges(a)), 0.14, 0.03);
  EXPECT_TRUE(simulate(a, keep_all_schedule(a)).valid);
  p.seed = 2;
  Graph c = generate::layered_dag(p, generic());
  bool differ = false;
  for (size_t i = 0; i < c.compute.size(); ++i) differ = differ || c.compute[i].deps != a.compute[i].deps;
  EXPECT_TRUE(differ);
  EXPECT_TRUE(simulate(generate::layered_dag(p, {}), keep_all_schedule(generate::layered_dag(p, {}))).valid);
}

TEST(GenerateLayered, WidthRatioAndDensitiesSetTheDensity) {
  generate::LayeredDagParams p;
  p.nodes = 2000;
  p.width_ratio = 0.49;  // the dense graphs of issue 23 and bench/checkmate_table.py: about 11 edges per node
  const double dense = static_cast<double>(edges(generate::layered_dag(p, generic()))) / p.nodes;
  EXPECT_GT(dense, 9.5);
  EXPECT_LT(dense, 12.5);
  p.width_ratio = 0.31;  // rl4-n1000's (at 2,000 nodes: about 7 per node)
  const double sparse = static_cast<double>(edges(generate::layered_dag(p, generic()))) / p.nodes;
  EXPECT_LT(sparse, 0.8 * dense);
  p.width_ratio = 0.49;
  p.edge_density = 0.1;
  EXPECT_LT(static_cast<double>(edges(generate::layered_dag(p, generic()))) / p.nodes, 0.7 * dense);
  p.edge_density = 0.2;
  p.skip_density = 0;
  EXPECT_LT(static_cast<double>(edges(generate::layered_dag(p, generic()))) / p.nodes, dense);
}

TEST(GenerateLayered, BadParametersAreBadInput) {
  generate::LayeredDagParams p;
  p.width_ratio = 1;
  EXPECT_THROW(generate::layered_dag(p), BadInput);
  p.width_ratio = 0.3;
  p.nodes = 2;
  EXPECT_THROW(generate::layered_dag(p), BadInput);
  p.nodes = 100;
  p.skip_density = 1;
  EXPECT_THROW(generate::layered_dag(p), BadInput);
}

TEST(GenerateLayered, CliOptions) {
  using hiremate::testing::run_cli;
  const std::string a = ::testing::TempDir() + "layered_a.json", b = ::testing::TempDir() + "layered_b.json";
  auto r = run_cli("generate random --dag -n 300 --width-ratio 0.47 --edge-density 0.25 --skip-density 0.1 --seed 7 -o " + a);
  ASSERT_EQ(r.code, 0) << r.err;
  generate::LayeredDagParams p;
  p.nodes = 300;
  p.width_ratio = 0.47;
  p.edge_density = 0.25;
  p.skip_density = 0.1;
  p.seed = 7;
  Graph want = generate::layered_dag(p, generic()), got = load_graph(a);
  ASSERT_EQ(got.compute.size(), want.compute.size());
  EXPECT_EQ(edges(got), edges(want));
  EXPECT_FALSE(got.is_training());
  // The densities need the width ratio (the other random family has none).
  EXPECT_EQ(run_cli("generate random --dag --edge-density 0.3 -o " + b).code, 2);
  EXPECT_EQ(run_cli("generate random --dag --width-ratio 1.5 -o " + b).code, 2);
  std::remove(a.c_str());
}
