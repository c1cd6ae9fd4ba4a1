// Properties every cluster tree must have, checked from the Graph alone (not through the partition
// library's own helpers): parts cover each cluster exactly once, every part is convex, the parts are
// listed in a topological order of the quotient graph (hence it is acyclic), the estimate and chain
// flags are right, no partitioning exceeds its bound unless it is a chain, only representatives carry
// partitionings and bottom_up() puts every representative after the ones it needs.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "hiremate/graph/graph.h"
#include "hiremate/partition/cluster.h"

namespace hiremate::testing {

// The forward DAG over compute ids: succ[c] = forwards that read an output of forward c.
struct ForwardDag {
  std::vector<std::vector<NodeId>> succ;
  std::vector<int> position;  // in g.order
  explicit ForwardDag(const Graph& g) : succ(g.compute.size()), position(g.compute.size(), -1) {
    for (size_t i = 0; i < g.order.size(); ++i) position[g.order[i]] = static_cast<int>(i);
    for (size_t c = 0; c < g.compute.size(); ++c) {
      if (g.compute[c].kind != ComputeKind::Forward) continue;
      for (NodeId d : g.compute[c].deps)
        for (NodeId p : g.data[d].producers)
          if (g.compute[p].kind == ComputeKind::Forward) succ[p].push_back(static_cast<NodeId>(c));
    }
  }
  // No path leaves `set` and comes back (only nodes before the set's last one can lead back).
  bool convex(const std::vector<NodeId>& set) const {
    std::set<NodeId> in(set.begin(), set.end());
    int last = 0;
    for (NodeId c : set) last = std::max(last, position[c]);
    std::set<NodeId> seen;
    std::vector<NodeId> stack;
    for (NodeId c : set)
      for (NodeId s : succ[c])
        if (!in.count(s) && seen.insert(s).second) stack.push_back(s);
    while (!stack.empty()) {
      NodeId x = stack.back();
      stack.pop_back();
      if (position[x] > last) continue;
      for (NodeId s : succ[x]) {
        if (in.count(s)) return false;
        if (seen.insert(s).second) stack.push_back(s);
      }
    }
    return true;
  }
};

inline ::testing::AssertionResult check_tree(const Graph& g, const partition::ClusterTree& tree) {
  auto fail = [](const std::string& what) { return ::testing::AssertionFailure() << what; };
  ForwardDag dag(g);
  std::vector<NodeId> forwards;
  for (NodeId c : g.order)
    if (g.compute[c].kind == ComputeKind::Forward) forwards.push_back(c);
  if (tree.root < 0 || tree.cluster(tree.root).nodes != forwards) return fail("the root does not hold every forward");
  std::vector<int> reachable = tree.reachable();
  for (int id : reachable) {
    const partition::Cluster& c = tree.cluster(id);
    std::string at = "cluster " + std::to_string(id) + ": ";
    if (c.level < 0) return fail(at + "no level");
    if (!std::is_sorted(c.nodes.begin(), c.nodes.end(),
                        [&](NodeId a, NodeId b) { return dag.position[a] < dag.position[b]; }))
      return fail(at + "nodes not in topological order");
    const bool rep = tree.is_representative(id);
    if (!rep && !c.partitionings.empty()) return fail(at + "a copy carries partitionings");
    if (rep && c.size() >= 2 && c.partitionings.empty()) return fail(at + "a representative without partitioning");
    if (id != tree.root && c.size() < 2) return fail(at + "a sub-cluster of fewer than 2 units");
    if (!dag.convex(c.nodes)) return fail(at + "not convex");
    for (const partition::Partitioning& p : c.partitionings) {
      std::string where = at + p.partitioner + ": ";
      std::map<NodeId, size_t> part_of;
      int leaves = 0, subs = 0;
      for (size_t i = 0; i < p.parts.size(); ++i) {
        const partition::Part& part = p.parts[i];
        std::vector<NodeId> units;
        if (part.leaf()) {
          units = {part.node};
          ++leaves;
        } else {
          units = tree.cluster(part.cluster).nodes;
          ++subs;
          if (!dag.convex(units)) return fail(where + "part " + std::to_string(i) + " is not convex");
        }
        for (NodeId u : units)
          if (!part_of.emplace(u, i).second) return fail(where + "a unit is in two parts");
      }
      std::vector<NodeId> covered;
      for (auto& [u, i] : part_of) covered.push_back(u);
      std::vector<NodeId> expected = c.nodes;
      std::sort(expected.begin(), expected.end());
      if (covered != expected) return fail(where + "parts do not cover the cluster exactly once");
      // Quotient edges go forward in the listed order (so the quotient is acyclic); collect them.
      std::set<std::pair<size_t, size_t>> edges;
      for (NodeId u : c.nodes)
        for (NodeId v : dag.succ[u]) {
          auto it = part_of.find(v);
          if (it == part_of.end()) continue;
          size_t a = part_of[u], b = it->second;
          if (a > b) return fail(where + "the parts are not in a topological order of the quotient");
          if (a != b) edges.insert({a, b});
        }
      std::vector<int> outdeg(p.parts.size(), 0), indeg(p.parts.size(), 0);
      for (auto [a, b] : edges) {
        ++outdeg[a];
        ++indeg[b];
      }
      bool chain = true;
      for (size_t i = 0; i + 1 < p.parts.size(); ++i) chain = chain && edges.count({i, i + 1});
      chain = chain && edges.size() + 1 == p.parts.size();
      if (chain != p.chain) return fail(where + "wrong chain flag");
      if (p.estimate != leaves + 2 * subs) return fail(where + "wrong estimate");
      if (!p.chain && p.estimate > p.limit)
        return fail(where + "estimate " + std::to_string(p.estimate) + " over its limit " + std::to_string(p.limit) +
                    " and not a chain");
    }
  }
  // Classes: members share the class, the representative is a member; bottom_up is a post-order.
  for (size_t k = 0; k < tree.classes.size(); ++k) {
    const auto& cls = tree.classes[k];
    if (cls.members.empty() || cls.members.front() != cls.representative)
      return fail("class without its representative");
    for (int m : cls.members) {
      if (tree.cluster(m).cls != static_cast<int>(k)) return fail("a member of another class");
      if (tree.cluster(m).compute.size() != tree.cluster(cls.representative).compute.size() ||
          tree.cluster(m).size() != tree.cluster(cls.representative).size())
        return fail("class members of different sizes");
    }
  }
  std::vector<int> order = tree.bottom_up();
  std::map<int, size_t> at;
  for (size_t i = 0; i < order.size(); ++i) {
    if (!tree.is_representative(order[i])) return fail("bottom_up lists a copy");
    at[order[i]] = i;
  }
  for (int r : order)
    for (const auto& p : tree.cluster(r).partitionings)
      for (const auto& part : p.parts)
        if (!part.leaf()) {
          auto it = at.find(tree.representative_of(part.cluster));
          if (it == at.end() || it->second >= at[r]) return fail("bottom_up lists a cluster before its parts");
        }
  if (order.empty() || order.back() != tree.root) return fail("bottom_up does not end at the root");
  return ::testing::AssertionSuccess();
}

}  // namespace hiremate::testing
