// hiremate's own graph format ("format": "hiremate-graph", version 1; docs/graph-format.md).
// It mirrors the Graph model one to one, so it is read and written losslessly: nodes keep their
// order (ids), times are written with round-trip precision, the order is always written.
#include <fmt/format.h>

#include "hiremate/common/error.h"
#include "hiremate/graph/io/formats.h"
#include "hiremate/graph/io/graph_io.h"

namespace hiremate {
namespace io {

static constexpr int kVersion = 1;

// Resolves a list of data names, each failing at its own pointer.
static std::vector<NodeId> data_refs(const Graph& g, const JsonAt& list) {
  std::vector<NodeId> out;
  for (const JsonAt& item : list.elements()) {
    std::string name = item.string();
    auto d = g.find_data(name);
    if (!d) item.fail(fmt::format("unknown data node '{}'; list it in \"data\" or fix the name", name));
    out.push_back(*d);
  }
  return out;
}

static void read_data(Graph& g, const JsonAt& node) {
  node.expect_keys({"name", "kind", "bytes", "source"});
  std::string name = node["name"].name();
  JsonAt kind_at = node["kind"];
  auto kind = data_kind_from_string(kind_at.string());
  if (!kind) kind_at.fail(fmt::format("unknown data kind '{}'; use data, grad or phantoms", kind_at.string()));
  int64_t bytes = node["bytes"].bytes();
  bool source = false;
  if (auto s = node.get("source")) source = s->boolean();
  g.add_data(name, *kind, bytes, source, node.where());
}

static void read_compute(Graph& g, const JsonAt& node) {
  node.expect_keys({"name", "kind", "time", "overhead", "deps", "fake_deps", "outputs", "forward"});
  std::string name = node["name"].name();
  JsonAt kind_at = node["kind"];
  auto kind = compute_kind_from_string(kind_at.string());
  if (!kind) kind_at.fail(fmt::format("unknown compute kind '{}'; use forward, backward or loss", kind_at.string()));
  double time = node["time"].time();
  int64_t overhead = 0;
  if (auto o = node.get("overhead")) overhead = o->bytes();
  std::vector<NodeId> deps = data_refs(g, node["deps"]);
  std::vector<NodeId> fake;
  if (auto f = node.get("fake_deps")) fake = data_refs(g, *f);
  std::vector<NodeId> outputs = data_refs(g, node["outputs"]);
  if (node.has("forward") && *kind != ComputeKind::Backward)
    node["forward"].fail(fmt::format("only backward nodes name a forward; '{}' is a {} node", name, to_string(*kind)));
  g.add_compute(name, *kind, time, overhead, std::move(deps), std::move(outputs), std::move(fake), node.where());
}

Graph parse_own_json(const json& j, const std::string& origin) {
  JsonAt root(j, origin);
  root.expect_keys({"format", "version", "name", "time_unit", "data", "compute", "order", "profile"});
  JsonAt format = root["format"];
  if (format.string() != "hiremate-graph")
    format.fail(fmt::format("format '{}' is not \"hiremate-graph\"", format.string()));
  JsonAt version = root["version"];
  if (!version.value().is_number_integer() || version.value().get<int64_t>() != kVersion)
    version.fail(fmt::format("unknown version {}; this hiremate reads version {}", version.value().dump(), kVersion));

  Graph g;
  if (auto n = root.get("name")) g.name = n->string();
  if (auto u = root.get("time_unit")) g.time_unit = u->name();
  for (const JsonAt& node : root["data"].elements()) read_data(g, node);
  std::vector<JsonAt> compute = root["compute"].elements();
  for (const JsonAt& node : compute) read_compute(g, node);
  // Pairs after every compute node exists: a backward may be listed before its forward.
  for (size_t c = 0; c < compute.size(); ++c) {
    auto f = compute[c].get("forward");
    if (!f) continue;
    std::string name = f->string();
    auto fwd = g.find_compute(name);
    if (!fwd) f->fail(fmt::format("unknown compute node '{}'; name the forward this backward differentiates", name));
    if (g.compute[*fwd].kind != ComputeKind::Forward)
      f->fail(fmt::format("'{}' is a {} node; a backward pairs with a forward node", name, to_string(g.compute[*fwd].kind)));
    if (g.compute[*fwd].pair != kNone)
      f->fail(fmt::format("forward node '{}' is already paired with '{}'; each forward has at most one backward",
                          name, g.compute[g.compute[*fwd].pair].name));
    g.set_pair(*fwd, static_cast<NodeId>(c));
  }
  if (auto order = root.get("order")) {
    for (const JsonAt& item : order->elements()) {
      std::string name = item.string();
      auto c = g.find_compute(name);
      if (!c) item.fail(fmt::format("unknown compute node '{}' in the order", name));
      g.order.push_back(*c);
    }
    if (g.order.empty() && !g.compute.empty()) order->fail("the order is empty; list every compute node or omit \"order\"");
  }
  finalize_from(g, origin);
  return g;
}

}  // namespace io

using ojson = nlohmann::ordered_json;

// Compact dump; invalid UTF-8 in a name (possible only for graphs built in code) is replaced
// rather than thrown on.
static std::string dump(const ojson& j) { return j.dump(-1, ' ', false, ojson::error_handler_t::replace); }

// Each node on one line: small graphs stay readable and diffs show whole nodes.
std::string graph_to_json(const Graph& g) {
  auto names = [](const auto& nodes, const std::vector<NodeId>& ids) {
    ojson a = ojson::array();
    for (NodeId i : ids) a.push_back(nodes[i].name);
    return a;
  };
  std::string out = "{\n";
  out += "  \"format\": \"hiremate-graph\",\n";
  out += fmt::format("  \"version\": {},\n", io::kVersion);
  out += "  \"name\": " + dump(g.name) + ",\n";
  out += "  \"time_unit\": " + dump(g.time_unit) + ",\n";
  out += "  \"data\": [";
  for (size_t d = 0; d < g.data.size(); ++d) {
    const DataNode& n = g.data[d];
    ojson o;
    o["name"] = n.name;
    o["kind"] = to_string(n.kind);
    o["bytes"] = n.bytes;
    if (n.source) o["source"] = true;
    out += (d ? ",\n    " : "\n    ") + dump(o);
  }
  out += g.data.empty() ? "],\n" : "\n  ],\n";
  out += "  \"compute\": [";
  for (size_t c = 0; c < g.compute.size(); ++c) {
    const ComputeNode& n = g.compute[c];
    ojson o;
    o["name"] = n.name;
    o["kind"] = to_string(n.kind);
    o["time"] = n.time;  // nlohmann writes the shortest text that reads back to the same double
    if (n.overhead) o["overhead"] = n.overhead;
    o["deps"] = names(g.data, n.deps);
    if (!n.fake_deps.empty()) o["fake_deps"] = names(g.data, n.fake_deps);
    o["outputs"] = names(g.data, n.outputs);
    if (n.kind == ComputeKind::Backward && n.pair != kNone) o["forward"] = g.compute[n.pair].name;
    out += (c ? ",\n    " : "\n    ") + dump(o);
  }
  out += g.compute.empty() ? "]" : "\n  ]";
  if (!g.order.empty()) out += ",\n  \"order\": " + dump(names(g.compute, g.order));
  out += "\n}\n";
  return out;
}

}  // namespace hiremate
