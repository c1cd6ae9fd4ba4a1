// TW-Remat's "p remat2" text format (docs/graph-format.md, "p remat2"):
//   p remat2 [memlimit N]
//   node ID [deps D1 D2 ...] (cpu C mem M [overhead O] | effectful | pointer) [target] [loss]
// Tokens are separated by any whitespace, so a node may span lines. It describes a generic DAG:
// each node is a forward compute node with one data output. `target` and `loss` (written by
// Rockmate's exporter) only steer TW-Remat; every node of a generic DAG is computed, so they are read
// and ignored.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>
#include <unordered_set>

#include "hiremate/common/error.h"
#include "hiremate/graph/io/formats.h"
#include "hiremate/graph/io/graph_io.h"

namespace hiremate {
namespace {

struct Token {
  std::string text;
  int line;
};

std::vector<Token> tokenize(const std::string& text) {
  std::vector<Token> out;
  int line = 1;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') ++line;
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    size_t b = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    out.push_back({text.substr(b, i - b), line});
  }
  return out;
}

// A cursor over the tokens that fails with "origin:LINE: ...".
class Reader {
 public:
  Reader(std::vector<Token> tokens, const std::string& origin) : t_(std::move(tokens)), origin_(origin) {}
  bool done() const { return i_ >= t_.size(); }
  bool peek(const char* word) const { return !done() && t_[i_].text == word; }
  int line() const { return done() ? (t_.empty() ? 1 : t_.back().line) : t_[i_].line; }
  std::string where() const { return fmt::format("{}:{}", origin_, line()); }
  [[noreturn]] void fail(const std::string& msg) const { throw BadInput(fmt::format("{}: {}", where(), msg)); }
  std::string shown() const { return done() ? "the end of the file" : "'" + t_[i_].text + "'"; }

  void expect(const char* word, const char* context) {
    if (!peek(word)) fail(fmt::format("expected '{}' {}, got {}", word, context, shown()));
    ++i_;
  }
  bool accept(const char* word) {
    if (!peek(word)) return false;
    ++i_;
    return true;
  }
  bool at_natural() const {
    return !done() && !t_[i_].text.empty() &&
           std::all_of(t_[i_].text.begin(), t_[i_].text.end(), [](char c) { return c >= '0' && c <= '9'; });
  }
  // A non-negative integer that fits in int64.
  int64_t natural(const char* what) {
    if (!at_natural()) fail(fmt::format("expected {} (a non-negative integer), got {}", what, shown()));
    int64_t v = 0;
    for (char c : t_[i_].text)
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v))
        fail(fmt::format("{} {} does not fit in a signed 64-bit integer", what, t_[i_].text));
    ++i_;
    return v;
  }

 private:
  std::vector<Token> t_;
  const std::string& origin_;
  size_t i_ = 0;
};

void read_header(Reader& r) {
  if (!r.peek("p")) r.fail(fmt::format("expected the header 'p remat2', got {}", r.shown()));
  r.expect("p", "");
  r.expect("remat2", "after 'p' (the header is 'p remat2')");
}

struct PNode {
  int64_t id;
  int line;
  std::vector<std::pair<int64_t, int>> deps;  // (id, line)
  int64_t cpu = 0, mem = 0, overhead = 0;
};

}  // namespace

std::optional<int64_t> premat2_memlimit(const std::string& text) {
  static const std::string origin = "p remat2 text";
  Reader r(tokenize(text), origin);
  read_header(r);
  if (r.accept("memlimit")) return r.natural("the memory limit");
  return std::nullopt;
}

namespace io {

Graph parse_premat2(const std::string& text, const std::string& origin) {
  Reader r(tokenize(text), origin);
  read_header(r);
  if (r.accept("memlimit")) r.natural("the memory limit");
  std::vector<PNode> nodes;
  std::map<int64_t, size_t> by_id;  // ordered: nodes are added in increasing id
  while (!r.done()) {
    r.expect("node", "to start a node");
    PNode n;
    n.line = r.line();
    n.id = r.natural("a node id");
    if (auto it = by_id.find(n.id); it != by_id.end())
      throw BadInput(fmt::format("{}:{}: node {} is defined twice (first on line {}); give each node its own id",
                                 origin, n.line, n.id, nodes[it->second].line));
    if (r.accept("deps"))
      while (r.at_natural()) {
        int line = r.line();
        n.deps.push_back({r.natural("a dependency id"), line});
      }
    if (r.accept("cpu")) {
      n.cpu = r.natural("the cpu cost");
      r.expect("mem", "after the cpu cost");
      n.mem = r.natural("the memory size");
      if (r.accept("overhead")) n.overhead = r.natural("the overhead");
    } else if (!r.accept("effectful") && !r.accept("pointer")) {
      r.fail(fmt::format("expected 'deps', 'cpu', 'effectful' or 'pointer' in node {}, got {}", n.id, r.shown()));
    }
    while (r.accept("target") || r.accept("loss")) {
    }
    if (!r.done() && !r.peek("node"))
      r.fail(fmt::format("unexpected {} after node {}; expected 'target' or the next 'node'", r.shown(), n.id));
    by_id.emplace(n.id, nodes.size());
    nodes.push_back(std::move(n));
  }
  if (nodes.empty()) r.fail("no nodes; a graph needs at least one 'node' line");

  // Compute and data node k is the k-th smallest id, so Graph::finalize()'s order (Kahn taking the
  // smallest index first) is the topological order that prefers increasing ids.
  Graph g;
  g.time_unit = "cost";
  std::map<int64_t, NodeId> index;
  for (const auto& [id, k] : by_id) {
    NodeId i = static_cast<NodeId>(index.size());
    index.emplace(id, i);
    g.add_data(std::to_string(id), DataKind::Data, nodes[k].mem, false, fmt::format("{}:{}", origin, nodes[k].line));
  }
  for (const auto& [id, k] : by_id) {
    const PNode& n = nodes[k];
    std::vector<NodeId> deps;
    std::unordered_set<NodeId> seen;
    for (const auto& [dep, line] : n.deps) {
      auto it = index.find(dep);
      if (it == index.end())
        throw BadInput(fmt::format("{}:{}: node {} depends on {}, which is not defined; define node {} or fix the id",
                                   origin, line, id, dep, dep));
      if (dep == id)
        throw BadInput(fmt::format("{}:{}: node {} depends on itself (a self-loop); a computation graph must be acyclic",
                                   origin, line, id));
      if (seen.insert(it->second).second) deps.push_back(it->second);  // exporters repeat deps; once is enough
    }
    g.add_compute(std::to_string(id), ComputeKind::Forward, static_cast<double>(n.cpu), n.overhead, std::move(deps),
                  {index.at(id)}, {}, fmt::format("{}:{}", origin, n.line));
  }
  finalize_from(g, origin);
  return g;
}

}  // namespace io

// Ids: the names when they are distinct naturals (a graph read from "p remat2" keeps its ids), else
// each node's position in g.order (reading it back then gives the same order).
static std::vector<int64_t> premat2_ids(const Graph& g) {
  std::vector<int64_t> ids(g.compute.size());
  std::unordered_set<int64_t> used;
  bool names_ok = true;
  for (size_t c = 0; c < g.compute.size() && names_ok; ++c) {
    const std::string& n = g.compute[c].name;
    names_ok = !n.empty() && n.size() < 19 && std::all_of(n.begin(), n.end(), [](char ch) { return ch >= '0' && ch <= '9'; }) &&
               (n == "0" || n[0] != '0');
    if (names_ok) {
      ids[c] = std::stoll(n);
      names_ok = used.insert(ids[c]).second;
    }
  }
  if (!names_ok)
    for (size_t i = 0; i < g.order.size(); ++i) ids[g.order[i]] = static_cast<int64_t>(i);
  return ids;
}

std::string graph_to_premat2(const Graph& g, std::optional<int64_t> memlimit) {
  auto fail = [&](NodeId c, const std::string& why) {
    throw BadInput(fmt::format("cannot write {} as 'p remat2': {}; the format holds generic DAGs only",
                               g.describe_compute(c), why));
  };
  HM_ASSERT(g.order.size() == g.compute.size(), "graph_to_premat2 needs a finalized graph");
  for (size_t d = 0; d < g.data.size(); ++d)
    if (g.data[d].source)
      throw BadInput(fmt::format("cannot write {} as 'p remat2': it is a source, and every node of the format is "
                                 "computed", g.describe_data(d)));
  std::vector<int64_t> ids = premat2_ids(g);
  std::ostringstream out;
  out << "p remat2\n";
  if (memlimit) out << "memlimit " << *memlimit << "\n";
  for (size_t c = 0; c < g.compute.size(); ++c) {
    const ComputeNode& n = g.compute[c];
    NodeId ci = static_cast<NodeId>(c);
    if (n.kind != ComputeKind::Forward) fail(ci, "it is not a forward node");
    if (n.outputs.size() != 1 || g.data[n.outputs[0]].kind != DataKind::Data) fail(ci, "it does not have exactly one data output");
    if (!n.fake_deps.empty()) fail(ci, "it has fake deps");
    if (!(n.time < 9.2e18) || n.time != static_cast<double>(static_cast<int64_t>(n.time))) fail(ci, fmt::format("its time {} is not an integer", n.time));
    out << "node " << ids[c];
    if (!n.deps.empty()) {
      out << " deps";
      for (NodeId d : n.deps) out << " " << ids[g.data[d].producers.at(0)];
    }
    out << " cpu " << static_cast<int64_t>(n.time) << " mem " << g.data[n.outputs[0]].bytes;
    if (n.overhead) out << " overhead " << n.overhead;  // Rockmate's extension; TW-Remat itself has none
    if (g.data[n.outputs[0]].users.empty()) out << " target";
    out << "\n";
  }
  return out.str();
}

}  // namespace hiremate
