// One libFuzzer entry per graph importer: the format is forced (no auto-detection) so each target
// stays inside its own parser. Rejections must be BadInput; anything else escaping (another
// exception, a crash, a sanitizer report) is a finding. An accepted graph must also survive a
// round trip through hiremate's own JSON, which exercises Graph::finalize()'s guarantees.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "hiremate/common/error.h"
#include "hiremate/graph/io/graph_io.h"

namespace hiremate::fuzz {

inline void check_round_trip(const Graph& g) {
  Graph back = parse_graph(graph_to_json(g), "round-trip", {GraphFormat::Hiremate, false});
  if (back.compute.size() != g.compute.size() || back.data.size() != g.data.size()) __builtin_trap();
}

inline void parse_forced(const uint8_t* data, size_t size, GraphFormat format, bool training) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    check_round_trip(parse_graph(text, "fuzz-input", {format, training}));
  } catch (const BadInput&) {
  }
}

}  // namespace hiremate::fuzz
