// Clusters for the H-ILP tests: hand-picked unit sets of a graph, every cluster of a partition, and
// what an option holds at the loss.
#pragma once
#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "hiremate/graph/generate.h"
#include "hiremate/hierarchy/cluster_problem.h"
#include "hiremate/hierarchy/option.h"
#include "hiremate/partition/canonical.h"
#include "hiremate/partition/forward_graph.h"
#include "hiremate/partition/partition.h"
#include "hiremate/schedule/simulate.h"

namespace hiremate::testing {

// The cluster of the units whose forwards are `forwards`, canonicalized as the partitioner does it.
inline partition::Cluster cluster_of(const Graph& g, const std::vector<NodeId>& forwards, int id = 0) {
  partition::ForwardGraph fg(g);
  std::vector<int> units;
  for (NodeId f : forwards) units.push_back(fg.unit_of(f));
  std::sort(units.begin(), units.end());
  partition::Canonical can = partition::Canonicalizer(fg)(units);
  partition::Cluster c;
  c.id = id;
  for (int u : units) c.nodes.push_back(fg.forward(u));
  c.compute = can.compute;
  c.data = can.data;
  c.interface = can.interface;
  return c;
}

inline NodeId compute_id(const Graph& g, const char* name) { return *g.find_compute(name); }
inline NodeId data_id(const Graph& g, const char* name) { return *g.find_data(name); }

// Small generated training graphs that partition into several levels of clusters.
inline std::vector<Graph> generated_graphs() {
  std::vector<Graph> out;
  generate::ChainParams chain;
  chain.n = 40;
  chain.bytes = 1000;
  chain.period = 3;
  out.push_back(generate::chain(chain));
  generate::TransformerParams tr;
  tr.layers = 3;
  tr.batch = 1;
  tr.seq = 16;
  tr.dim = 32;
  tr.heads = 2;
  tr.vocab = 64;
  out.push_back(generate::transformer(tr));
  return out;
}

// Every cluster of g's cluster tree reachable from the root, the root included. Small sub-graph
// limits and no chain shortcut (Rotor's), so that chains nest too.
inline std::vector<partition::Cluster> all_clusters(const Graph& g) {
  partition::PartitionOptions opt;
  opt.partitioners = {
      "bottom_to_top:max_estimate_per_sub_graph=8,max_estimate_for_main_graph=8,can_use_rotor=false"};
  partition::ClusterTree tree = partition::partition(g, opt);
  std::vector<partition::Cluster> out;
  for (int c : tree.reachable()) out.push_back(tree.cluster(c));
  return out;
}

// The bytes an option's cluster schedule holds at the loss (the simulator's), expecting it valid.
inline int64_t option_at_loss(const hierarchy::ClusterProblem& cg, const hierarchy::Option& o) {
  SimResult r = simulate(cg.graph, hierarchy::cluster_schedule(cg, o));
  EXPECT_TRUE(r.valid) << r.reason;
  return r.bytes_at_loss;
}

}  // namespace hiremate::testing
