// hiremate's own graph format: the documented example, lossless round trips (hand-made graphs and
// every public benchmark graph), defaults, and errors that name the file and the JSON pointer.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "hiremate/common/error.h"
#include "hiremate/graph/io/graph_io.h"
#include "support/graph_equal.h"
#include "support/shared_data.h"
#include "support/tiny_graphs.h"

using namespace hiremate;
using hiremate::testing::equal_graphs;

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The JSON block that follows `marker` in docs/graph-format.md, so the documented example is tested.
std::string docs_block(const std::string& marker) {
  std::string doc = read(std::string(HIREMATE_SOURCE_DIR) + "/docs/graph-format.md");
  size_t m = doc.find(marker);
  if (m == std::string::npos) return "";
  size_t b = doc.find("```json\n", m);
  size_t e = doc.find("```", b + 8);
  return doc.substr(b + 8, e - b - 8);
}

Graph round_trip(const Graph& g) { return parse_graph(graph_to_json(g), "round-trip.json"); }

// The BadInput message of parsing `text` as "t.json", or "" if it parsed.
std::string error_of(const std::string& text, LoadOptions opt = {}) {
  try {
    parse_graph(text, "t.json", opt);
  } catch (const BadInput& e) {
    return e.what();
  }
  return "";
}

const char* kHeader = R"("format": "hiremate-graph", "version": 1)";

std::string graph_text(const std::string& data, const std::string& compute, const std::string& extra = "") {
  return std::string("{") + kHeader + ", \"data\": [" + data + "], \"compute\": [" + compute + "]" + extra + "}";
}

const char* kA = R"({"name": "a.out", "kind": "data", "bytes": 8})";
const char* kF = R"({"name": "a", "kind": "forward", "time": 1, "deps": [], "outputs": ["a.out"]})";

}  // namespace

TEST(OwnJson, DocumentedExampleParses) {
  std::string text = docs_block("<!-- example: two-layer -->");
  ASSERT_FALSE(text.empty()) << "docs/graph-format.md lost its example";
  Graph g = parse_graph(text, "graph-format.md");
  EXPECT_EQ(g.name, "two-layer");
  ASSERT_EQ(g.compute.size(), 5u);
  ASSERT_EQ(g.data.size(), 7u);
  EXPECT_TRUE(g.is_training());
  EXPECT_TRUE(g.data[*g.find_data("x")].source);
  NodeId f1 = *g.find_compute("F1"), f2 = *g.find_compute("F2");
  EXPECT_EQ(g.data[g.phantoms_of(f1)].name, "F1.phantoms");
  EXPECT_EQ(g.compute[f1].pair, *g.find_compute("B1"));
  EXPECT_EQ(g.compute[f2].pair, *g.find_compute("B2"));
  EXPECT_EQ(g.compute[f2].overhead, 512);
  EXPECT_EQ(g.loss, *g.find_compute("loss"));
  EXPECT_EQ(g.data[*g.find_data("h1.grad")].producers.size(), 2u);
  EXPECT_EQ(g.compute[*g.find_compute("B2")].fake_deps.size(), 1u);
  EXPECT_TRUE(equal_graphs(g, round_trip(g)));
}

TEST(OwnJson, RoundTripOfHandMadeGraphs) {
  for (const Graph& g : {hiremate::testing::two_layer(), hiremate::testing::two_layer(77),
                         hiremate::testing::two_producer_grad(), hiremate::testing::diamond()}) {
    SCOPED_TRACE(g.name);
    EXPECT_TRUE(equal_graphs(g, round_trip(g)));
  }
}

TEST(OwnJson, TimesAreBitExact) {
  const double times[] = {0.1, 1.0 / 3, 1e-300, std::numeric_limits<double>::denorm_min(),
                          std::numeric_limits<double>::max(), 3.0e11 + 0.5, 0.0, 514.0};
  Graph g;
  g.name = "times";
  g.time_unit = "ms";
  NodeId prev = kNone;
  for (size_t i = 0; i < std::size(times); ++i) {
    NodeId d = g.add_data("d" + std::to_string(i), DataKind::Data, int64_t(1) << 40);
    std::vector<NodeId> deps;
    if (prev != kNone) deps.push_back(prev);
    g.add_compute("c" + std::to_string(i), ComputeKind::Forward, times[i], 3, deps, {d});
    prev = d;
  }
  g.finalize();
  Graph back = round_trip(g);
  EXPECT_TRUE(equal_graphs(g, back));
  EXPECT_EQ(back.compute[1].time, 1.0 / 3);
}

TEST(OwnJson, OptionalFieldsTakeTheirDefaults) {
  Graph g = parse_graph(graph_text(kA, kF), "t.json");
  EXPECT_EQ(g.name, "");
  EXPECT_EQ(g.time_unit, "s");
  EXPECT_FALSE(g.data[0].source);
  EXPECT_EQ(g.compute[0].overhead, 0);
  EXPECT_TRUE(g.compute[0].fake_deps.empty());
  EXPECT_EQ(g.order, std::vector<NodeId>{0});
  EXPECT_EQ(g.compute_where[0], "t.json:/compute/0");
  EXPECT_EQ(g.data_where[0], "t.json:/data/0");
}

TEST(OwnJson, IntegralFloatSizesAreAccepted) {
  Graph g = parse_graph(graph_text(R"({"name": "a.out", "kind": "data", "bytes": 4e10})", kF), "t.json");
  EXPECT_EQ(g.data[0].bytes, 40000000000);
}

TEST(OwnJson, BackwardMayBeListedBeforeItsForward) {
  Graph g = parse_graph(graph_text(R"({"name": "a.out", "kind": "data", "bytes": 8},
                                      {"name": "a.grad", "kind": "grad", "bytes": 8})",
                                   R"({"name": "a_bwd", "kind": "backward", "time": 2, "deps": ["a.out"],
                                       "outputs": ["a.grad"], "forward": "a"}, )" + std::string(kF)),
                        "t.json");
  EXPECT_EQ(g.compute[0].pair, 1);
  EXPECT_EQ(g.compute[1].pair, 0);
  EXPECT_EQ(g.order, (std::vector<NodeId>{1, 0}));
}

TEST(OwnJson, ExplicitOrderIsKept) {
  Graph d = hiremate::testing::diamond();
  std::string text = graph_to_json(d);
  // Swap B and C in the written order: still topological, so it must be kept as written.
  size_t at = text.find(R"("order": ["A","B","C","D"])");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, 26, R"("order": ["A","C","B","D"])");
  Graph g = parse_graph(text, "t.json");
  EXPECT_EQ(g.order, (std::vector<NodeId>{0, 2, 1, 3}));
}

TEST(OwnJson, ErrorsNameTheFileAndPointer) {
  struct Bad {
    std::string text, fragment;
  };
  const Bad cases[] = {
      {"[1, 2]", "t.json: the JSON is an array, not a graph"},
      {std::string("{") + kHeader + "}", "t.json: missing required field 'data'"},
      {std::string("{") + kHeader + R"(, "data": {}, "compute": []})", "t.json: /data: expected an array, got an object"},
      {graph_text(R"({"name": "", "kind": "data", "bytes": 8})", kF), "t.json: /data/0/name: expected a non-empty name"},
      {graph_text(R"({"name": "a.out", "kind": "data", "bytes": 18446744073709551615})", kF),
       "/data/0/bytes: 18446744073709551615 does not fit in a signed 64-bit integer"},
      {graph_text(R"({"name": "a.out", "kind": "data", "bytes": 8, "source": "yes"})", kF),
       "/data/0/source: expected true or false, got a string"},
      {graph_text(kA, R"({"name": "a", "kind": "forward", "time": 1, "overhead": -4, "deps": [], "outputs": ["a.out"]})"),
       "/compute/0/overhead: negative size -4 bytes"},
      {graph_text(kA, R"({"name": "a", "kind": "forward", "time": 1, "deps": "x", "outputs": ["a.out"]})"),
       "/compute/0/deps: expected an array, got a string"},
      {graph_text(kA, R"({"name": "a", "kind": "forward", "time": 1, "deps": [], "outputs": ["b"]})"),
       "/compute/0/outputs/0: unknown data node 'b'"},
      {graph_text(kA, R"({"name": "a", "kind": "forward", "time": 1, "deps": [], "outputs": ["a.out"], "forward": "a"})"),
       "/compute/0/forward: only backward nodes name a forward"},
      {graph_text(R"({"name": "a.out", "kind": "data", "bytes": 8}, {"name": "g", "kind": "grad", "bytes": 8},
                     {"name": "g2", "kind": "grad", "bytes": 8})",
                  std::string(kF) + R"(, {"name": "b1", "kind": "backward", "time": 1, "deps": [], "outputs": ["g"], "forward": "a"},
                     {"name": "b2", "kind": "backward", "time": 1, "deps": [], "outputs": ["g2"], "forward": "a"})"),
       "/compute/2/forward: forward node 'a' is already paired with 'b1'"},
      {graph_text(R"({"name": "a.out", "kind": "data", "bytes": 8}, {"name": "g", "kind": "grad", "bytes": 8},
                     {"name": "g2", "kind": "grad", "bytes": 8})",
                  std::string(kF) + R"(, {"name": "b1", "kind": "backward", "time": 1, "deps": [], "outputs": ["g"], "forward": "a"},
                     {"name": "b2", "kind": "backward", "time": 1, "deps": [], "outputs": ["g2"], "forward": "b1"})"),
       "/compute/2/forward: 'b1' is a backward node; a backward pairs with a forward node"},
      {graph_text(kA, kF, R"(, "order": [])"), "/order: the order is empty"},
      {graph_text(kA, kF, R"(, "order": ["a", "a"])"), "the order"},
      {std::string(R"({"format": "hiremate-graph", "version": "1", "data": [], "compute": []})"), "/version: unknown version \"1\""},
      {std::string(R"({"format": "hiremate-schedule", "version": 1, "ops": []})"), "/format: \"hiremate-schedule\" is not a graph format"},
      {"", "t.json: not a graph file (it is empty)"},
  };
  for (const Bad& b : cases) {
    std::string msg = error_of(b.text);
    EXPECT_NE(msg.find(b.fragment), std::string::npos) << "input: " << b.text << "\nmessage: " << msg
                                                        << "\nexpected: " << b.fragment;
  }
}

TEST(OwnJson, FormatSelection) {
  EXPECT_EQ(graph_format_from_string("auto"), GraphFormat::Auto);
  EXPECT_EQ(graph_format_from_string("hiremate"), GraphFormat::Hiremate);
  EXPECT_EQ(graph_format_from_string("node-link"), GraphFormat::NodeLink);
  EXPECT_EQ(graph_format_from_string("premat2"), GraphFormat::PRemat2);
  EXPECT_EQ(graph_format_from_string("json"), std::nullopt);
  std::string text = graph_to_json(hiremate::testing::diamond());
  LoadOptions opt;
  opt.format = GraphFormat::Hiremate;
  EXPECT_EQ(parse_graph(text, "t.json", opt).compute.size(), 4u);
  opt.format = GraphFormat::PRemat2;
  EXPECT_NE(error_of(text, opt).find("expected the header 'p remat2'"), std::string::npos);
  opt.format = GraphFormat::NodeLink;
  EXPECT_NE(error_of(text, opt).find("missing required field 'links'"), std::string::npos);
  LoadOptions training;
  training.training = true;
  EXPECT_NE(error_of(text, training).find("--training applies only to Checkmate-derived node-link graphs"),
            std::string::npos);
}

TEST(OwnJson, SaveAndLoad) {
  Graph g = hiremate::testing::two_producer_grad();
  std::string path = ::testing::TempDir() + "hiremate_own_json_save.json";
  save_graph(g, path);
  EXPECT_TRUE(equal_graphs(g, load_graph(path)));
  std::filesystem::remove(path);
  EXPECT_THROW(save_graph(g, "/nonexistent-dir/x.json"), BadInput);
  try {
    load_graph("/nonexistent-dir/x.json");
    ADD_FAILURE();
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read '/nonexistent-dir/x.json'"), std::string::npos) << e.what();
  }
}

TEST(OwnJson, RoundTripOfEveryBenchmarkGraph) {
  HM_REQUIRE_BENCHMARKS();
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(hiremate::testing::benchmarks_dir() + "/graphs")) {
    std::string path = entry.path().string();
    SCOPED_TRACE(path);
    Graph generic = load_graph(path);
    EXPECT_TRUE(equal_graphs(generic, round_trip(generic)));
    if (entry.path().filename().string().find("-train") != std::string::npos) {
      LoadOptions opt;
      opt.training = true;
      Graph training = load_graph(path, opt);
      EXPECT_TRUE(equal_graphs(training, round_trip(training)));
    }
    ++checked;
  }
  EXPECT_GE(checked, 6);
}
