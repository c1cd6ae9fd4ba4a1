#include "hiremate/hierarchy/cluster_problem.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "hiremate/common/error.h"

namespace hiremate::hierarchy {

namespace {
NodeId lookup(const std::unordered_map<NodeId, NodeId>& m, NodeId parent) {
  auto it = m.find(parent);
  return it == m.end() ? kNone : it->second;
}

// "loss", or "loss_", "loss__", ... when a cluster node already has that name.
std::string unique_loss_name(const Graph& g) {
  std::string name = "loss";
  while (g.find_compute(name) || g.find_data(name)) name += "_";
  return name;
}
}  // namespace

NodeId ClusterProblem::compute_of(NodeId parent) const { return lookup(compute_from_parent, parent); }
NodeId ClusterProblem::data_of(NodeId parent) const { return lookup(data_from_parent, parent); }

Graph ClusterProblem::interior() const {
  Graph g = graph;
  for (size_t d = 0; d < g.data.size(); ++d)
    if (is_interface[d]) g.data[d].bytes = 0;
  return g;
}

ClusterProblem extract(const Graph& g, const partition::Cluster& c) {
  ClusterProblem out;
  Graph& cg = out.graph;
  cg.name = fmt::format("{}/cluster{}", g.name, c.id);
  cg.time_unit = g.time_unit;

  std::unordered_set<NodeId> inside(c.compute.begin(), c.compute.end());
  for (NodeId k : c.compute) {
    const ComputeNode& node = g.compute.at(k);
    if (node.kind == ComputeKind::Loss)
      throw BadInput(fmt::format("cluster {} holds the loss {}; the loss is outside every cluster", c.id,
                                 g.describe_compute(k)));
    if (node.pair != kNone && !inside.count(node.pair))
      throw BadInput(fmt::format("cluster {} holds {} but not its pair {}", c.id, g.describe_compute(k),
                                 g.describe_compute(node.pair)));
  }
  std::unordered_set<NodeId> input_data(c.interface.input_data.begin(), c.interface.input_data.end());

  // Data: whatever the cluster produces or really reads; input data as sources.
  auto produced_inside = [&](NodeId d) {
    for (NodeId p : g.data[d].producers)
      if (inside.count(p)) return true;
    return false;
  };
  auto read_inside = [&](NodeId d) {
    for (NodeId u : g.data[d].users)
      if (inside.count(u)) return true;
    return false;
  };
  for (NodeId d : c.data) {
    if (!produced_inside(d) && !read_inside(d)) continue;  // a fake dep only
    const DataNode& node = g.data[d];
    bool source = input_data.count(d) > 0;
    if (!source && !produced_inside(d) && node.kind != DataKind::Grad)
      throw BadInput(fmt::format("cluster {} reads {}, written outside it, but its interface does not "
                                 "list it as input data", c.id, g.describe_data(d)));
    std::string where = d < static_cast<NodeId>(g.data_where.size()) ? g.data_where[d] : "";
    NodeId id = cg.add_data(node.name, node.kind, node.bytes, source, where);
    out.data_to_parent.push_back(d);
    out.data_from_parent.emplace(d, id);
  }
  auto map_list = [&](const std::vector<NodeId>& ids, bool drop_missing) {
    std::vector<NodeId> r;
    for (NodeId d : ids) {
      NodeId m = out.data_of(d);
      if (m == kNone) {
        HM_ASSERT(drop_missing, fmt::format("{} is missing from the cluster graph", g.describe_data(d)));
        continue;
      }
      r.push_back(m);
    }
    return r;
  };

  // Computes: forwards (c.compute lists them first, in order), the loss, then backwards.
  auto add = [&](NodeId k) {
    const ComputeNode& node = g.compute[k];
    std::string where = k < static_cast<NodeId>(g.compute_where.size()) ? g.compute_where[k] : "";
    NodeId id = cg.add_compute(node.name, node.kind, node.time, node.overhead, map_list(node.deps, false),
                               map_list(node.outputs, false), map_list(node.fake_deps, true), where);
    out.compute_to_parent.push_back(k);
    out.compute_from_parent.emplace(k, id);
  };
  for (NodeId k : c.compute)
    if (g.compute[k].kind == ComputeKind::Forward) add(k);
  auto sorted = [](std::vector<NodeId> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  out.interface.input_data = sorted(map_list(c.interface.input_data, false));
  out.interface.output_data = sorted(map_list(c.interface.output_data, false));
  out.interface.input_grad = sorted(map_list(c.interface.input_grad, false));
  out.interface.output_grad = sorted(map_list(c.interface.output_grad, false));
  cg.add_compute(unique_loss_name(cg), ComputeKind::Loss, 0, 0, out.interface.output_data,
                 out.interface.output_grad);
  out.compute_to_parent.push_back(kNone);
  for (NodeId k : c.compute)
    if (g.compute[k].kind == ComputeKind::Backward) add(k);
  for (size_t k = 0; k < cg.compute.size(); ++k) {
    NodeId p = out.compute_to_parent[k];
    if (p != kNone && g.compute[p].kind == ComputeKind::Forward && g.compute[p].pair != kNone)
      cg.set_pair(static_cast<NodeId>(k), out.compute_of(g.compute[p].pair));
  }

  out.is_interface.assign(cg.data.size(), 0);
  for (const auto* list : {&out.interface.input_data, &out.interface.output_data, &out.interface.input_grad,
                           &out.interface.output_grad})
    for (NodeId d : *list) out.is_interface[d] = 1;
  cg.finalize();
  return out;
}

}  // namespace hiremate::hierarchy
