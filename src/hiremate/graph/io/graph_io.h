// Reading and writing Graphs (DESIGN §1: the import arrow). Three input formats, one output format:
//  - hiremate's own JSON ("format": "hiremate-graph"), read and written losslessly;
//  - networkx node-link JSON, both schemas of the public benchmark graphs (Checkmate-derived and
//    random layered), imported as a generic DAG or, with `training`, as a training graph;
//  - TW-Remat's "p remat2" text, imported as a generic DAG.
// docs/graph-format.md says field by field how each maps to the model and what is rejected.
//
// Every reader resolves names, converts and then calls Graph::finalize(), so a returned Graph is
// valid. Every error is a BadInput saying the file, the position (a JSON pointer such as
// /compute/3/deps/1 or /nodes/12, or a line number for "p remat2"), what is wrong and what to do.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "hiremate/graph/graph.h"

namespace hiremate {

enum class GraphFormat { Auto, Hiremate, NodeLink, PRemat2 };

// "auto", "hiremate", "node-link", "premat2"; nullopt for anything else.
std::optional<GraphFormat> graph_format_from_string(const std::string& s);
const char* to_string(GraphFormat f);

struct LoadOptions {
  // Auto: text starting with "p remat2" is PRemat2; a JSON object with "format": "hiremate-graph"
  // is Hiremate; a JSON object with "nodes" and "links" is NodeLink; anything else is rejected.
  GraphFormat format = GraphFormat::Auto;
  // Node-link only, Checkmate-derived graphs only: "Loss" becomes the loss node, "X_backward" the
  // backward of "X", their outputs grads. Rejected for any other format or schema.
  bool training = false;
};

// Reads the file at `path` and parses it as parse_graph does, with `path` as the origin.
Graph load_graph(const std::string& path, const LoadOptions& opt = {});
// Parses `text`; `origin` names it in messages (usually the file name).
Graph parse_graph(const std::string& text, const std::string& origin, const LoadOptions& opt = {});

// hiremate's own format, pretty-printed (one node per line). parse_graph(graph_to_json(g)) equals
// g: same nodes in the same order, kinds, bytes, bit-exact times, deps, fake deps, outputs, pairs,
// sources, order, name and time unit.
std::string graph_to_json(const Graph& g);
// Writes graph_to_json(g) to `path`; BadInput if the file cannot be written.
void save_graph(const Graph& g, const std::string& path);

// The "memlimit N" of a "p remat2" text, nullopt when it has none. BadInput without the header.
std::optional<int64_t> premat2_memlimit(const std::string& text);
// A "p remat2" text for a generic DAG (forward nodes only, one data output each, no sources, integer
// times). Node ids are the node names when all are distinct non-negative integers, else positions in
// g.order, so that reading it back gives the same order. Sinks are marked "target". BadInput for a
// graph this format cannot express.
std::string graph_to_premat2(const Graph& g, std::optional<int64_t> memlimit = std::nullopt);

}  // namespace hiremate
