// networkx node-link JSON import (docs/graph-format.md, "node-link").
//
// Two schemas occur in the public benchmark graphs: Checkmate-derived (nodes `id`, `name`,
// `cost_cpu`, `cost_ram`, `backward`; links `source`/`target`) and random layered (nodes `name` as
// the id, `duration`, `out_cost`; links `"0"`/`"1"`; graph attribute `order`). Both describe one
// node per operation with one output, so each node becomes a compute node and a data node of the
// same name, at the same index, and each link u -> v a dep of v on u's data.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "hiremate/common/error.h"
#include "hiremate/graph/io/formats.h"

namespace hiremate::io {
namespace {

struct NodeRec {
  json id;
  std::string key;   // the id as dumped JSON ("3", "\"a\""): ids 3 and "3" are different nodes
  std::string name;  // what the compute and data nodes are called
  double time = 0;
  int64_t bytes = 0;
  std::optional<bool> backward;
  bool checkmate = false;  // has the Checkmate fields
};

const JsonAt* first_present(const std::optional<JsonAt>& a, const std::optional<JsonAt>& b) {
  return a ? &*a : b ? &*b : nullptr;
}

JsonAt node_id(const JsonAt& node) {
  auto id = node.get("id");
  if (!id) id = node.get("name");  // the random layered graphs were written with name as the id key
  if (!id) node.fail("missing the node id: expected \"id\" (or \"name\" when there is no \"id\")");
  if (!id->value().is_number_integer() && !id->value().is_string())
    id->fail(fmt::format("a node id must be an integer or a string, got {}", json_type_name(id->value())));
  return *id;
}

std::string id_text(const json& id) { return id.is_string() ? id.get<std::string>() : id.dump(); }

NodeRec read_node(const JsonAt& node) {
  node.expect_object();
  NodeRec r;
  JsonAt id = node_id(node);
  r.id = id.value();
  r.key = r.id.dump();
  auto name = node.get("name");
  r.name = node.has("id") && name && name->value().is_string() ? name->name() : id_text(id.value());
  auto cost_cpu = node.get("cost_cpu"), duration = node.get("duration");
  const JsonAt* time = first_present(cost_cpu, duration);
  if (!time) node.fail("missing the compute cost: expected \"cost_cpu\" (Checkmate) or \"duration\" (random layered)");
  r.time = time->time();
  auto cost_ram = node.get("cost_ram"), out_cost = node.get("out_cost");
  const JsonAt* bytes = first_present(cost_ram, out_cost);
  if (!bytes) node.fail("missing the output size: expected \"cost_ram\" (Checkmate) or \"out_cost\" (random layered)");
  r.bytes = bytes->bytes();
  if (auto b = node.get("backward")) r.backward = b->boolean();
  r.checkmate = cost_cpu && cost_ram && r.backward;
  return r;
}

// A link's endpoint: "source"/"target" (networkx's default) or "0"/"1" (the random layered files).
JsonAt endpoint(const JsonAt& link, const char* key, const char* alt) {
  link.expect_object();
  if (auto e = link.get(key)) return *e;
  if (auto e = link.get(alt)) return *e;
  link.fail(fmt::format("missing the link's {}: expected \"{}\" (or \"{}\")", key, key, alt));
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// --training: kinds from Checkmate's names. "Loss" is the loss, "X_backward" the backward of "X".
ComputeKind training_kind(const NodeRec& r, const JsonAt& node) {
  if (r.name == "Loss") return ComputeKind::Loss;
  bool named_backward = ends_with(r.name, "_backward");
  if (named_backward != *r.backward)
    node.fail(fmt::format("node '{}' has \"backward\": {} but its name {} in _backward; the training import "
                          "pairs X with X_backward by name, so the two must agree",
                          r.name, *r.backward ? "true" : "false", named_backward ? "ends" : "does not end"));
  return named_backward ? ComputeKind::Backward : ComputeKind::Forward;
}

}  // namespace

Graph parse_node_link(const json& j, const std::string& origin, bool training) {
  JsonAt root(j, origin);
  root.expect_object();
  if (auto d = root.get("directed"); d && !d->boolean())
    d->fail("the graph is undirected; a computation graph must be directed (\"directed\": true)");
  if (auto m = root.get("multigraph"); m && m->boolean())
    m->fail("multigraphs are not supported; write each dependency once (\"multigraph\": false)");
  auto links_at = root.get("links");
  if (!links_at) links_at = root.get("edges");  // newer networkx writes "edges"
  if (!links_at) root.fail("missing required field 'links'");
  std::vector<JsonAt> nodes = root["nodes"].elements();
  std::vector<JsonAt> links = links_at->elements();

  Graph g;
  g.time_unit = "cost";  // the files' own cost unit (it differs per model)
  std::optional<JsonAt> order_at;
  if (auto attrs = root.get("graph")) {
    attrs->expect_object();
    if (auto n = attrs->get("name")) g.name = n->value().is_string() ? n->string() : n->value().dump();
    order_at = attrs->get("order");
  }

  std::vector<NodeRec> recs;
  std::unordered_map<std::string, NodeId> by_key;
  for (size_t i = 0; i < nodes.size(); ++i) {
    recs.push_back(read_node(nodes[i]));
    auto [it, fresh] = by_key.emplace(recs.back().key, static_cast<NodeId>(i));
    if (!fresh)
      node_id(nodes[i]).fail(fmt::format("duplicate node id {}, first at /nodes/{}; give each node its own id",
                                         recs.back().key, it->second));
  }
  if (training)
    for (size_t i = 0; i < nodes.size(); ++i)
      if (!recs[i].checkmate)
        nodes[i].fail("--training applies only to Checkmate-derived graphs (nodes with cost_cpu, cost_ram and "
                      "backward); import this graph without --training");

  // Links become deps: deps[v] lists u for each link u -> v, in file order.
  std::vector<std::vector<NodeId>> deps(nodes.size());
  std::vector<std::unordered_map<NodeId, size_t>> seen(nodes.size());
  auto resolve = [&](const JsonAt& e) {
    auto it = by_key.find(e.value().dump());
    if (it == by_key.end()) e.fail(fmt::format("link to unknown node id {}; every link must join two listed nodes", e.value().dump()));
    return it->second;
  };
  for (size_t l = 0; l < links.size(); ++l) {
    NodeId u = resolve(endpoint(links[l], "source", "0"));
    NodeId v = resolve(endpoint(links[l], "target", "1"));
    if (u == v) links[l].fail(fmt::format("self-loop on node '{}'; a computation graph must be acyclic", recs[u].name));
    auto [it, fresh] = seen[v].emplace(u, l);
    if (!fresh)
      links[l].fail(fmt::format("duplicate link '{}' -> '{}', first at /links/{}; list each dependency once",
                                recs[u].name, recs[v].name, it->second));
    deps[v].push_back(u);
  }

  std::vector<ComputeKind> kinds(nodes.size(), ComputeKind::Forward);
  if (training)
    for (size_t i = 0; i < nodes.size(); ++i) kinds[i] = training_kind(recs[i], nodes[i]);
  for (size_t i = 0; i < nodes.size(); ++i) {
    DataKind dk = kinds[i] == ComputeKind::Forward ? DataKind::Data : DataKind::Grad;
    g.add_data(recs[i].name, dk, recs[i].bytes, false, nodes[i].where());
  }
  for (size_t i = 0; i < nodes.size(); ++i)  // data i is the output of compute i
    g.add_compute(recs[i].name, kinds[i], recs[i].time, 0, deps[i], {static_cast<NodeId>(i)}, {}, nodes[i].where());
  if (training)
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (kinds[i] != ComputeKind::Backward) continue;
      std::string fwd_name = recs[i].name.substr(0, recs[i].name.size() - std::string("_backward").size());
      auto f = g.find_compute(fwd_name);
      if (!f || kinds[*f] != ComputeKind::Forward)
        nodes[i].fail(fmt::format("backward node '{}' has no forward node '{}'", recs[i].name, fwd_name));
      g.set_pair(*f, static_cast<NodeId>(i));
    }

  // The fixed order: the graph's "order" attribute, else increasing integer ids, else file order.
  if (order_at) {
    std::vector<bool> listed(nodes.size(), false);
    for (const JsonAt& item : order_at->elements()) {
      auto it = by_key.find(item.value().dump());
      if (it == by_key.end()) item.fail(fmt::format("unknown node id {} in the order", item.value().dump()));
      if (listed[it->second]) item.fail(fmt::format("node id {} is listed twice in the order", item.value().dump()));
      listed[it->second] = true;
      g.order.push_back(it->second);
    }
    if (g.order.size() != nodes.size())
      order_at->fail(fmt::format("the order lists {} of the {} nodes; it must list each node once",
                                 g.order.size(), nodes.size()));
  } else {
    g.order.resize(nodes.size());
    std::iota(g.order.begin(), g.order.end(), 0);
    bool integer_ids = std::all_of(recs.begin(), recs.end(), [](const NodeRec& r) { return r.id.is_number_integer(); });
    if (integer_ids)  // json compares integers numerically, signed and unsigned alike
      std::stable_sort(g.order.begin(), g.order.end(), [&](NodeId a, NodeId b) { return recs[a].id < recs[b].id; });
  }
  finalize_from(g, origin);  // checks the order is topological, reports cycles
  return g;
}

}  // namespace hiremate::io
