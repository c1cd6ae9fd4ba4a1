// The per-format readers behind parse_graph (internal to graph/io). Each builds the Graph, calls
// finalize() and throws BadInput with file and position.
#pragma once
#include <string>

#include "hiremate/common/error.h"
#include "hiremate/graph/graph.h"
#include "hiremate/graph/io/json_reader.h"

namespace hiremate::io {

// Graph::finalize(), with the file named in messages that do not name it already (a cycle, a bad
// order): every message of a reader says which file is wrong.
inline void finalize_from(Graph& g, const std::string& origin) {
  try {
    g.finalize();
  } catch (const BadInput& e) {
    std::string msg = e.what();
    if (msg.find(origin) == std::string::npos) throw BadInput(origin + ": " + msg);
    throw;
  }
}

Graph parse_own_json(const json& root, const std::string& origin);
Graph parse_node_link(const json& root, const std::string& origin, bool training);
Graph parse_premat2(const std::string& text, const std::string& origin);

}  // namespace hiremate::io
