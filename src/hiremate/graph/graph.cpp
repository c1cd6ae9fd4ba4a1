#include "hiremate/graph/graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <queue>

#include "hiremate/common/error.h"

namespace hiremate {

const char* to_string(ComputeKind k) {
  switch (k) {
    case ComputeKind::Forward: return "forward";
    case ComputeKind::Backward: return "backward";
    case ComputeKind::Loss: return "loss";
  }
  return "?";
}

const char* to_string(DataKind k) {
  switch (k) {
    case DataKind::Data: return "data";
    case DataKind::Grad: return "grad";
    case DataKind::Phantoms: return "phantoms";
  }
  return "?";
}

std::optional<ComputeKind> compute_kind_from_string(const std::string& s) {
  if (s == "forward") return ComputeKind::Forward;
  if (s == "backward") return ComputeKind::Backward;
  if (s == "loss") return ComputeKind::Loss;
  return std::nullopt;
}

std::optional<DataKind> data_kind_from_string(const std::string& s) {
  if (s == "data") return DataKind::Data;
  if (s == "grad") return DataKind::Grad;
  if (s == "phantoms") return DataKind::Phantoms;
  return std::nullopt;
}

NodeId Graph::add_data(const std::string& n, DataKind kind, int64_t bytes, bool source,
                       const std::string& where) {
  NodeId id = static_cast<NodeId>(data.size());
  data.push_back(DataNode{n, kind, bytes, source, {}, {}});
  data_where.push_back(where);
  data_index_.emplace(n, id);  // keeps the first on duplicates; validate() reports them
  return id;
}

NodeId Graph::add_compute(const std::string& n, ComputeKind kind, double time, int64_t overhead,
                          std::vector<NodeId> deps, std::vector<NodeId> outputs,
                          std::vector<NodeId> fake_deps, const std::string& where) {
  NodeId id = static_cast<NodeId>(compute.size());
  compute.push_back(ComputeNode{n, kind, time, overhead, std::move(deps), std::move(fake_deps),
                                std::move(outputs), kNone});
  compute_where.push_back(where);
  compute_index_.emplace(n, id);
  return id;
}

void Graph::set_pair(NodeId forward, NodeId backward) {
  compute.at(forward).pair = backward;
  compute.at(backward).pair = forward;
}

std::optional<NodeId> Graph::find_compute(const std::string& n) const {
  auto it = compute_index_.find(n);
  if (it == compute_index_.end()) return std::nullopt;
  return it->second;
}

std::optional<NodeId> Graph::find_data(const std::string& n) const {
  auto it = data_index_.find(n);
  if (it == data_index_.end()) return std::nullopt;
  return it->second;
}

static std::string where_suffix(const std::vector<std::string>& where, NodeId i) {
  if (i < 0 || static_cast<size_t>(i) >= where.size() || where[i].empty()) return "";
  return " (" + where[i] + ")";
}

std::string Graph::describe_compute(NodeId c) const {
  return fmt::format("{} node '{}'{}", to_string(compute.at(c).kind), compute.at(c).name,
                     where_suffix(compute_where, c));
}

std::string Graph::describe_data(NodeId d) const {
  return fmt::format("{} node '{}'{}", to_string(data.at(d).kind), data.at(d).name,
                     where_suffix(data_where, d));
}

bool Graph::is_training() const {
  return std::any_of(compute.begin(), compute.end(),
                     [](const ComputeNode& c) { return c.kind != ComputeKind::Forward; });
}

NodeId Graph::phantoms_of(NodeId forward) const {
  for (NodeId d : compute.at(forward).outputs)
    if (data[d].kind == DataKind::Phantoms) return d;
  return kNone;
}

int64_t Graph::source_bytes() const {
  int64_t total = 0;
  for (const auto& d : data)
    if (d.source) total += d.bytes;
  return total;
}

size_t Graph::num_edges() const {
  size_t n = 0;
  for (const auto& c : compute) n += c.deps.size();
  return n;
}

// Kahn's algorithm, always taking the ready node with the smallest index, so that a graph listed
// in topological order keeps its order (stable, deterministic).
static std::vector<NodeId> stable_topological_order(const Graph& g) {
  const size_t n = g.compute.size();
  std::vector<int> indegree(n, 0);
  std::vector<std::vector<NodeId>> succ(n);
  for (size_t c = 0; c < n; ++c)
    for (NodeId d : g.compute[c].deps)
      for (NodeId p : g.data[d].producers) {
        succ[p].push_back(static_cast<NodeId>(c));
        ++indegree[c];
      }
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<NodeId>> ready;
  for (size_t c = 0; c < n; ++c)
    if (indegree[c] == 0) ready.push(static_cast<NodeId>(c));
  std::vector<NodeId> order;
  while (!ready.empty()) {
    NodeId c = ready.top();
    ready.pop();
    order.push_back(c);
    for (NodeId s : succ[c])
      if (--indegree[s] == 0) ready.push(s);
  }
  return order;  // shorter than n when there is a cycle; validate() reports it
}

void Graph::finalize() {
  for (auto& d : data) {
    d.producers.clear();
    d.users.clear();
  }
  loss = kNone;
  for (size_t c = 0; c < compute.size(); ++c) {
    const auto& node = compute[c];
    for (NodeId d : node.deps) {
      HM_ASSERT(d >= 0 && static_cast<size_t>(d) < data.size(), "dep id out of range");
      data[d].users.push_back(static_cast<NodeId>(c));
    }
    for (NodeId d : node.outputs) {
      HM_ASSERT(d >= 0 && static_cast<size_t>(d) < data.size(), "output id out of range");
      data[d].producers.push_back(static_cast<NodeId>(c));
    }
    if (node.kind == ComputeKind::Loss && loss == kNone) loss = static_cast<NodeId>(c);
  }
  compute_where.resize(compute.size());
  data_where.resize(data.size());
  compute_index_.clear();
  data_index_.clear();
  for (size_t c = 0; c < compute.size(); ++c) compute_index_.emplace(compute[c].name, c);
  for (size_t d = 0; d < data.size(); ++d) data_index_.emplace(data[d].name, d);
  if (order.empty()) {
    order = stable_topological_order(*this);
    if (order.size() != compute.size()) order.clear();  // cycle: validate() prints it
  }
  validate();
}

// Finds one cycle among compute nodes (edges producer -> user) and prints it as "a -> b -> a".
static std::string find_cycle(const Graph& g) {
  const size_t n = g.compute.size();
  std::vector<int> state(n, 0);  // 0 new, 1 on stack, 2 done
  std::vector<NodeId> parent(n, kNone);
  std::vector<std::pair<NodeId, size_t>> stack;  // (node, next successor index)
  std::vector<std::vector<NodeId>> succ(n);
  for (size_t c = 0; c < n; ++c)
    for (NodeId d : g.compute[c].deps)
      for (NodeId p : g.data[d].producers) succ[p].push_back(static_cast<NodeId>(c));
  for (size_t root = 0; root < n; ++root) {
    if (state[root]) continue;
    stack.push_back({static_cast<NodeId>(root), 0});
    state[root] = 1;
    while (!stack.empty()) {
      auto& [c, i] = stack.back();
      if (i < succ[c].size()) {
        NodeId s = succ[c][i++];
        if (state[s] == 1) {  // back edge: the cycle is s -> ... -> c -> s
          std::vector<NodeId> cycle{s};
          for (NodeId x = c; x != s; x = parent[x]) cycle.push_back(x);
          std::reverse(cycle.begin() + 1, cycle.end());
          std::string out;
          for (NodeId x : cycle) out += "'" + g.compute[x].name + "' -> ";
          return out + "'" + g.compute[s].name + "'";
        }
        if (state[s] == 0) {
          state[s] = 1;
          parent[s] = c;
          stack.push_back({s, 0});
        }
      } else {
        state[c] = 2;
        stack.pop_back();
      }
    }
  }
  return "";
}

void Graph::validate() const {
  auto fail = [](const std::string& msg) { throw BadInput(msg); };
  std::unordered_map<std::string, NodeId> seen;
  for (size_t c = 0; c < compute.size(); ++c) {
    auto [it, fresh] = seen.emplace(compute[c].name, c);
    if (!fresh)
      fail(fmt::format("duplicate compute node name '{}': {} and {}; give each node its own name",
                       compute[c].name, describe_compute(it->second), describe_compute(c)));
  }
  seen.clear();
  for (size_t d = 0; d < data.size(); ++d) {
    auto [it, fresh] = seen.emplace(data[d].name, d);
    if (!fresh)
      fail(fmt::format("duplicate data node name '{}': {} and {}; give each node its own name",
                       data[d].name, describe_data(it->second), describe_data(d)));
  }
  int64_t total = 0;
  for (size_t d = 0; d < data.size(); ++d) {
    const auto& node = data[d];
    if (node.bytes < 0) fail(fmt::format("{} has negative size {} bytes", describe_data(d), node.bytes));
    if (__builtin_add_overflow(total, node.bytes, &total))
      fail(fmt::format("the data sizes overflow a signed 64-bit byte count at {}; sizes must be bytes",
                       describe_data(d)));
    if (node.source && !node.producers.empty())
      fail(fmt::format("{} is a source but is written by {}; a source has no producer",
                       describe_data(d), describe_compute(node.producers[0])));
    if (!node.source && node.producers.empty())
      fail(fmt::format("{} has no producer and is not a source; add the compute node that writes it "
                       "or mark it \"source\": true", describe_data(d)));
    if (node.kind != DataKind::Grad && node.producers.size() > 1)
      fail(fmt::format("{} is written by {} and {}; only grad nodes may have several producers",
                       describe_data(d), describe_compute(node.producers[0]),
                       describe_compute(node.producers[1])));
    if (node.kind == DataKind::Phantoms) {
      if (node.source) fail(fmt::format("{} is phantoms and cannot be a source", describe_data(d)));
      NodeId p = node.producers[0];
      if (compute[p].kind != ComputeKind::Forward)
        fail(fmt::format("{} is written by {}; phantoms are written by a forward node",
                         describe_data(d), describe_compute(p)));
    }
  }
  int losses = 0;
  for (size_t c = 0; c < compute.size(); ++c) {
    const auto& node = compute[c];
    if (!(node.time >= 0) || std::isinf(node.time))
      fail(fmt::format("{} has time {}; times must be finite and >= 0", describe_compute(c), node.time));
    if (node.overhead < 0)
      fail(fmt::format("{} has negative overhead {} bytes", describe_compute(c), node.overhead));
    // Memory while a node runs is at most all data plus its overhead: keep that sum in range.
    if (int64_t sum; __builtin_add_overflow(total, node.overhead, &sum))
      fail(fmt::format("the data sizes plus the overhead of {} overflow a signed 64-bit byte count; sizes must be "
                       "bytes", describe_compute(c)));
    if (node.kind == ComputeKind::Loss) ++losses;
    if (node.kind == ComputeKind::Backward) {
      if (node.pair == kNone)
        fail(fmt::format("{} has no forward node; pair it with the forward it differentiates",
                         describe_compute(c)));
      if (compute[node.pair].kind != ComputeKind::Forward || compute[node.pair].pair != static_cast<NodeId>(c))
        fail(fmt::format("{} is paired with {}, which is not a forward paired back with it",
                         describe_compute(c), describe_compute(node.pair)));
    }
    if (node.kind == ComputeKind::Forward && node.pair != kNone &&
        compute[node.pair].kind != ComputeKind::Backward)
      fail(fmt::format("{} is paired with {}, which is not a backward node", describe_compute(c),
                       describe_compute(node.pair)));
    for (NodeId d : node.outputs)
      if (data[d].kind == DataKind::Phantoms) {
        for (NodeId u : data[d].users)
          if (u != node.pair)
            fail(fmt::format("{} reads {}, the phantoms of {}; only that forward's backward may read them",
                             describe_compute(u), describe_data(d), describe_compute(c)));
      }
  }
  if (losses > 1) fail(fmt::format("the graph has {} loss nodes; at most one is allowed", losses));
  if (order.size() != compute.size()) {
    std::string cycle = find_cycle(*this);
    if (!cycle.empty()) fail("the graph has a cycle: " + cycle + "; a computation graph must be acyclic");
    fail(fmt::format("the order lists {} compute nodes but the graph has {}", order.size(), compute.size()));
  }
  std::vector<int> position(compute.size(), -1);
  for (size_t i = 0; i < order.size(); ++i) {
    NodeId c = order[i];
    if (c < 0 || static_cast<size_t>(c) >= compute.size() || position[c] != -1)
      fail("the order is not a permutation of the compute nodes (a node is missing or repeated)");
    position[c] = static_cast<int>(i);
  }
  for (size_t c = 0; c < compute.size(); ++c)
    for (NodeId d : compute[c].deps)
      for (NodeId p : data[d].producers)
        if (position[p] >= position[c]) {
          std::string cycle = find_cycle(*this);
          if (!cycle.empty()) fail("the graph has a cycle: " + cycle + "; a computation graph must be acyclic");
          fail(fmt::format("the order is not topological: {} comes before {}, which it reads",
                           describe_compute(c), describe_compute(p)));
        }
}

}  // namespace hiremate
