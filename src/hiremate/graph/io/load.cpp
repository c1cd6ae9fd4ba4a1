// Format detection and file access for graphs (graph_io.h).
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "hiremate/common/error.h"
#include "hiremate/graph/io/formats.h"
#include "hiremate/graph/io/graph_io.h"

namespace hiremate {

std::optional<GraphFormat> graph_format_from_string(const std::string& s) {
  if (s == "auto") return GraphFormat::Auto;
  if (s == "hiremate") return GraphFormat::Hiremate;
  if (s == "node-link") return GraphFormat::NodeLink;
  if (s == "premat2") return GraphFormat::PRemat2;
  return std::nullopt;
}

const char* to_string(GraphFormat f) {
  switch (f) {
    case GraphFormat::Auto: return "auto";
    case GraphFormat::Hiremate: return "hiremate";
    case GraphFormat::NodeLink: return "node-link";
    case GraphFormat::PRemat2: return "premat2";
  }
  return "?";
}

static const char* kKnownFormats =
    "the known formats are hiremate JSON (\"format\": \"hiremate-graph\"), networkx node-link JSON "
    "(\"nodes\" and \"links\") and TW-Remat text (starting with \"p remat2\")";

// The first two words are "p remat2" (any whitespace between them, as the tokenizer allows).
static bool starts_with_premat2(const std::string& text) {
  std::istringstream in(text.substr(0, 64));
  std::string p, remat2;
  in >> p >> remat2;
  return p == "p" && remat2 == "remat2";
}

static GraphFormat detect(const io::json& j, const std::string& origin) {
  if (j.is_object()) {
    auto f = j.find("format");
    if (f != j.end()) {
      if (*f == "hiremate-graph") return GraphFormat::Hiremate;
      throw BadInput(fmt::format("{}: /format: {} is not a graph format; {}", origin, f->dump(), kKnownFormats));
    }
    if (j.contains("nodes") && (j.contains("links") || j.contains("edges"))) return GraphFormat::NodeLink;
  }
  if (j.is_object())
    throw BadInput(fmt::format("{}: a JSON object with neither \"format\" nor \"nodes\" and \"links\" is not a "
                               "known graph; {}", origin, kKnownFormats));
  throw BadInput(fmt::format("{}: the JSON is {}, not a graph; {}", origin, io::json_type_name(j), kKnownFormats));
}

static void reject_training(const std::string& origin, GraphFormat format) {
  throw BadInput(fmt::format("{}: --training applies only to Checkmate-derived node-link graphs, not to {} input; "
                             "drop --training", origin, to_string(format)));
}

// A file with no compute node is a mistake (every solver would "plan" nothing), whatever its format.
static Graph non_empty(Graph g, const std::string& origin) {
  if (g.compute.empty()) throw BadInput(fmt::format("{}: the graph has no compute nodes; nothing to plan", origin));
  return g;
}

static Graph parse_any(const std::string& text, const std::string& origin, const LoadOptions& opt);

Graph parse_graph(const std::string& text, const std::string& origin, const LoadOptions& opt) {
  return non_empty(parse_any(text, origin, opt), origin);
}

static Graph parse_any(const std::string& text, const std::string& origin, const LoadOptions& opt) {
  GraphFormat format = opt.format;
  if (format == GraphFormat::Auto && starts_with_premat2(text)) format = GraphFormat::PRemat2;
  if (format == GraphFormat::PRemat2) {
    if (opt.training) reject_training(origin, format);
    return io::parse_premat2(text, origin);
  }
  if (format == GraphFormat::Auto) {
    size_t first = text.find_first_not_of(" \t\r\n", text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0);  // skip a BOM
    if (first == std::string::npos || (text[first] != '{' && text[first] != '['))
      throw BadInput(fmt::format("{}: not a graph file (it is {}); {}", origin,
                                 first == std::string::npos ? "empty" : "neither JSON nor \"p remat2\" text",
                                 kKnownFormats));
  }
  io::json j = io::parse_json_text(text, origin);
  if (format == GraphFormat::Auto) format = detect(j, origin);
  if (opt.training && format != GraphFormat::NodeLink) reject_training(origin, format);
  if (format == GraphFormat::Hiremate) return io::parse_own_json(j, origin);
  return io::parse_node_link(j, origin, opt.training);
}

static std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BadInput(fmt::format("cannot read '{}': {}; check the path", path, std::strerror(errno)));
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw BadInput(fmt::format("cannot read '{}': read error", path));
  return s.str();
}

Graph load_graph(const std::string& path, const LoadOptions& opt) { return parse_graph(read_file(path), path, opt); }

void save_graph(const Graph& g, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw BadInput(fmt::format("cannot write '{}': {}; check the folder exists and is writable", path,
                                       std::strerror(errno)));
  out << graph_to_json(g);
  out.close();
  if (!out) throw BadInput(fmt::format("cannot write '{}': write error (disk full?)", path));
}

}  // namespace hiremate
