#include "hiremate/hierarchy/cluster_problem.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "hiremate/common/error.h"
#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/solver.h"
#include "hierarchy/cluster_support.h"
#include "support/tiny_graphs.h"

using namespace hiremate;
using hiremate::testing::cluster_of;
using hiremate::testing::compute_id;
using hiremate::testing::data_id;

namespace {

std::vector<NodeId> names_to_parent(const hierarchy::ClusterProblem& cg, const std::vector<NodeId>& ids) {
  std::vector<NodeId> r;
  for (NodeId d : ids) r.push_back(cg.data_to_parent.at(d));
  std::sort(r.begin(), r.end());
  return r;
}

std::vector<NodeId> sorted(std::vector<NodeId> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Everything an extracted graph must satisfy, whatever the cluster.
void check_extracted(const Graph& g, const partition::Cluster& c, const hierarchy::ClusterProblem& cg) {
  SCOPED_TRACE(cg.graph.name);
  const Graph& x = cg.graph;
  ASSERT_TRUE(x.is_training());
  ASSERT_NE(x.loss, kNone);
  EXPECT_EQ(x.compute.size(), c.compute.size() + 1);  // the cluster's nodes and the synthetic loss
  EXPECT_EQ(cg.compute_to_parent[x.loss], kNone);
  for (size_t k = 0; k < x.compute.size(); ++k) {
    NodeId p = cg.compute_to_parent[k];
    if (p == kNone) continue;
    EXPECT_EQ(x.compute[k].name, g.compute[p].name);
    EXPECT_EQ(x.compute[k].kind, g.compute[p].kind);
    EXPECT_EQ(x.compute[k].time, g.compute[p].time);
    EXPECT_EQ(cg.compute_of(p), static_cast<NodeId>(k));
  }
  for (size_t d = 0; d < x.data.size(); ++d) {
    NodeId p = cg.data_to_parent[d];
    EXPECT_EQ(x.data[d].bytes, g.data[p].bytes);
    EXPECT_EQ(cg.data_of(p), static_cast<NodeId>(d));
    // Sources are exactly the interface input data.
    EXPECT_EQ(x.data[d].source, std::binary_search(cg.interface.input_data.begin(),
                                                   cg.interface.input_data.end(), static_cast<NodeId>(d)));
  }
  // The four interface lists map back onto the cluster's own.
  EXPECT_EQ(names_to_parent(cg, cg.interface.input_data), sorted(c.interface.input_data));
  EXPECT_EQ(names_to_parent(cg, cg.interface.output_data), sorted(c.interface.output_data));
  EXPECT_EQ(names_to_parent(cg, cg.interface.input_grad), sorted(c.interface.input_grad));
  EXPECT_EQ(names_to_parent(cg, cg.interface.output_grad), sorted(c.interface.output_grad));
  EXPECT_EQ(cg.interface.data_bytes(x), c.interface.data_bytes(g));
  // The synthetic loss hands the output data's grads to the backward.
  EXPECT_EQ(sorted(x.compute[x.loss].deps), cg.interface.output_data);
  EXPECT_EQ(sorted(x.compute[x.loss].outputs), cg.interface.output_grad);
  // The interior weighs exactly the interface less.
  Graph in = cg.interior();
  int64_t all = 0, inner = 0;
  for (size_t d = 0; d < x.data.size(); ++d) {
    all += x.data[d].bytes;
    inner += in.data[d].bytes;
  }
  int64_t iface = 0;
  for (size_t d = 0; d < x.data.size(); ++d)
    if (cg.is_interface[d]) iface += x.data[d].bytes;
  EXPECT_EQ(all - inner, iface);
  // Its keep-all schedule runs.
  SimResult r = simulate(x, keep_all_schedule(x));
  EXPECT_TRUE(r.valid) << r.reason;
}

TEST(ClusterProblem, LastLayerOfTwoLayer) {
  Graph g = hiremate::testing::two_layer();
  auto c = cluster_of(g, {compute_id(g, "F2")});
  hierarchy::ClusterProblem cg = hierarchy::extract(g, c);
  check_extracted(g, c, cg);
  const Graph& x = cg.graph;
  // a is handed in (a source here), b goes out, bg comes back from the loss, ag goes back.
  EXPECT_TRUE(x.data[cg.data_of(data_id(g, "a"))].source);
  EXPECT_EQ(x.data[cg.data_of(data_id(g, "bg"))].producers, std::vector<NodeId>{x.loss});
  EXPECT_EQ(x.data[cg.data_of(data_id(g, "ag"))].producers,
            std::vector<NodeId>{cg.compute_of(compute_id(g, "B2"))});
  EXPECT_EQ(cg.data_of(data_id(g, "x")), kNone);  // not touched by F2/B2
  EXPECT_EQ(cg.compute_of(compute_id(g, "F1")), kNone);
  // B2 keeps its fake dep on b, which the cluster produces.
  EXPECT_EQ(x.compute[cg.compute_of(compute_id(g, "B2"))].fake_deps,
            std::vector<NodeId>{cg.data_of(data_id(g, "b"))});
}

TEST(ClusterProblem, FirstLayerKeepsItsPhantomsInside) {
  Graph g = hiremate::testing::two_layer();
  auto c = cluster_of(g, {compute_id(g, "F1")});
  hierarchy::ClusterProblem cg = hierarchy::extract(g, c);
  check_extracted(g, c, cg);
  NodeId aph = cg.data_of(data_id(g, "a_ph"));
  ASSERT_NE(aph, kNone);
  EXPECT_FALSE(cg.is_interface[aph]);
  EXPECT_EQ(cg.interior().data[aph].bytes, 5);
  EXPECT_EQ(cg.interior().data[cg.data_of(data_id(g, "a"))].bytes, 0);  // output data: interface
  EXPECT_TRUE(cg.graph.data[cg.data_of(data_id(g, "x"))].source);
}

// The root cluster is the whole graph with its loss replaced: same keep-all peak and time.
TEST(ClusterProblem, RootReproducesTheGraph) {
  for (Graph g : {hiremate::testing::two_layer(3), hiremate::testing::two_producer_grad()}) {
    auto c = cluster_of(g, [&] {
      std::vector<NodeId> f;
      for (NodeId k : g.order)
        if (g.compute[k].kind == ComputeKind::Forward) f.push_back(k);
      return f;
    }());
    hierarchy::ClusterProblem cg = hierarchy::extract(g, c);
    check_extracted(g, c, cg);
    SimResult parent = simulate(g, keep_all_schedule(g));
    SimResult mine = simulate(cg.graph, keep_all_schedule(cg.graph));
    ASSERT_TRUE(mine.valid) << mine.reason;
    EXPECT_EQ(mine.peak, parent.peak) << g.name;
    EXPECT_EQ(mine.time, parent.time) << g.name;
    EXPECT_EQ(mine.bytes_at_loss, parent.bytes_at_loss) << g.name;
  }
}

// F3 stays outside: ag gets one contribution from B2 inside and one, through the loss, from outside.
TEST(ClusterProblem, GradAccumulatedAcrossTheBoundary) {
  Graph g = hiremate::testing::two_producer_grad();
  auto c = cluster_of(g, {compute_id(g, "F1"), compute_id(g, "F2")});
  hierarchy::ClusterProblem cg = hierarchy::extract(g, c);
  check_extracted(g, c, cg);
  const Graph& x = cg.graph;
  NodeId ag = cg.data_of(data_id(g, "ag"));
  EXPECT_EQ(sorted(x.data[ag].producers), sorted({x.loss, cg.compute_of(compute_id(g, "B2"))}));
  EXPECT_TRUE(std::binary_search(cg.interface.output_data.begin(), cg.interface.output_data.end(),
                                 cg.data_of(data_id(g, "a"))));
}

TEST(ClusterProblem, RefusesAClusterWithoutItsPairs) {
  Graph g = hiremate::testing::two_layer();
  auto c = cluster_of(g, {compute_id(g, "F2")});
  c.compute.pop_back();  // drop B2
  EXPECT_THROW(hierarchy::extract(g, c), BadInput);
}

TEST(ClusterProblem, EveryClusterOfGeneratedGraphs) {
  for (const Graph& g : hiremate::testing::generated_graphs()) {
    auto clusters = hiremate::testing::all_clusters(g);
    EXPECT_GT(clusters.size(), 2u) << g.name << ": the partition should nest clusters";
    for (const auto& c : clusters) {
      hierarchy::ClusterProblem cg = hierarchy::extract(g, c);
      check_extracted(g, c, cg);
    }
  }
}

}  // namespace
