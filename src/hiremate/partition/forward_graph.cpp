#include "hiremate/partition/forward_graph.h"

#include <algorithm>
#include <cstring>

#include "hiremate/common/error.h"

namespace hiremate::partition {

void Csr::push_row(const std::vector<int>& row) {
  items.insert(items.end(), row.begin(), row.end());
  begin.push_back(static_cast<int>(items.size()));
}

uint64_t mix_hash(uint64_t seed, uint64_t value) {
  uint64_t z = seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static uint64_t double_bits(double x) {
  uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

static void sort_unique(std::vector<int>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Hash of one compute node by its own attributes (not its neighbours, not its name).
static uint64_t compute_hash(const Graph& g, NodeId c) {
  const ComputeNode& node = g.compute[c];
  uint64_t h = mix_hash(static_cast<uint64_t>(node.kind), double_bits(node.time));
  h = mix_hash(h, static_cast<uint64_t>(node.overhead));
  h = mix_hash(h, node.deps.size());
  h = mix_hash(h, node.fake_deps.size());
  for (NodeId d : node.outputs) {
    h = mix_hash(h, static_cast<uint64_t>(g.data[d].kind));
    h = mix_hash(h, static_cast<uint64_t>(g.data[d].bytes));
  }
  return h;
}

ForwardGraph::ForwardGraph(const Graph& g) : g_(&g), training_(g.is_training()) {
  HM_ASSERT(g.order.size() == g.compute.size(), "the graph is not finalized");
  unit_of_.assign(g.compute.size(), -1);
  for (NodeId c : g.order)
    if (g.compute[c].kind == ComputeKind::Forward) {
      unit_of_[c] = size();
      forward_.push_back(c);
    }
  for (size_t c = 0; c < g.compute.size(); ++c)
    if (g.compute[c].kind == ComputeKind::Backward) unit_of_[c] = unit_of_[g.compute[c].pair];

  const size_t nd = g.data.size();
  producer_.assign(nd, -1);
  graph_output_.assign(nd, 0);
  auto relevant = [&](NodeId d) { return !g.data[d].source && g.data[d].kind == DataKind::Data; };
  for (int u = 0; u < size(); ++u)
    for (NodeId d : g.compute[forward_[u]].outputs)
      if (relevant(d)) producer_[d] = u;

  std::vector<int> row;
  for (size_t d = 0; d < nd; ++d) {
    row.clear();
    bool outside = g.data[d].users.empty();
    for (NodeId c : g.data[d].users) {
      if (unit_of_[c] < 0) outside = true;
      else row.push_back(unit_of_[c]);
    }
    sort_unique(row);
    graph_output_[d] = outside;
    readers_.push_row(row);
  }

  requires_grad_.resize(size());
  unit_hash_.resize(size());
  std::vector<int> preds;
  std::vector<std::vector<int>> succ_lists(size());
  for (int u = 0; u < size(); ++u) {
    const ComputeNode& f = g.compute[forward_[u]];
    requires_grad_[u] = !training_ || f.pair != kNone;
    preds.clear();
    for (NodeId d : f.deps)
      if (producer_[d] >= 0) preds.push_back(producer_[d]);
    sort_unique(preds);
    for (int p : preds) succ_lists[p].push_back(u);
    preds_.push_row(preds);

    row.clear();
    auto add_reads = [&](NodeId c) {
      for (NodeId d : g.compute[c].deps)
        if (relevant(d) && producer_[d] != u) row.push_back(d);
    };
    add_reads(forward_[u]);
    if (f.pair != kNone) add_reads(f.pair);
    sort_unique(row);
    reads_.push_row(row);

    row.clear();
    for (NodeId d : f.outputs)
      if (relevant(d)) row.push_back(d);
    writes_.push_row(row);

    uint64_t h = compute_hash(g, forward_[u]);
    if (f.pair != kNone) h = mix_hash(h, compute_hash(g, f.pair));
    unit_hash_[u] = h;
  }
  for (int u = 0; u < size(); ++u) succs_.push_row(succ_lists[u]);  // built in increasing u: sorted
}

}  // namespace hiremate::partition
