// TW-Remat "p remat2" import and export.
#include <gtest/gtest.h>

#include <map>

#include "hiremate/common/error.h"
#include "hiremate/graph/io/graph_io.h"
#include "support/graph_equal.h"
#include "support/shared_data.h"
#include "support/tiny_graphs.h"

using namespace hiremate;
using hiremate::testing::equal_graphs;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse_graph(text, "g.txt");
  } catch (const BadInput& e) {
    return e.what();
  }
  return "";
}

// Tokens spread over lines, deps on later ids, all three weights, target and Rockmate's loss marker.
const char* kSample =
    "p remat2\n"
    "memlimit 1000\n"
    "node 5 deps 2 3 cpu 7 mem 30 overhead 4 target\n"
    "node 2 deps 0 cpu 2 mem 20\n"
    "node 3 deps\n  0 2 2\n  effectful loss\n"
    "node 0 cpu 1\n mem 10\n";

}  // namespace

TEST(PRemat2, ImportsAGenericDag) {
  Graph g = parse_graph(kSample, "g.txt");
  ASSERT_EQ(g.compute.size(), 4u);
  EXPECT_FALSE(g.is_training());
  EXPECT_EQ(g.time_unit, "cost");
  // Nodes are stored by increasing id.
  std::vector<std::string> names;
  for (const auto& c : g.compute) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"0", "2", "3", "5"}));
  NodeId n5 = *g.find_compute("5"), n3 = *g.find_compute("3"), n0 = *g.find_compute("0");
  EXPECT_EQ(g.compute[n5].time, 7);
  EXPECT_EQ(g.compute[n5].overhead, 4);
  EXPECT_EQ(g.data[g.compute[n5].outputs[0]].bytes, 30);
  EXPECT_EQ(g.data[g.compute[n0].outputs[0]].bytes, 10);
  // effectful and pointer nodes weigh nothing; a repeated dep counts once.
  EXPECT_EQ(g.compute[n3].time, 0);
  EXPECT_EQ(g.data[g.compute[n3].outputs[0]].bytes, 0);
  EXPECT_EQ(g.compute[n3].deps.size(), 2u);
  EXPECT_EQ(g.num_edges(), 5u);
  EXPECT_EQ(g.compute_where[n3], "g.txt:5");
  EXPECT_EQ(premat2_memlimit(kSample), 1000);
  EXPECT_EQ(premat2_memlimit("p remat2 node 0 pointer"), std::nullopt);
  EXPECT_THROW(premat2_memlimit("node 0 pointer"), BadInput);
}

TEST(PRemat2, OrderPrefersIncreasingIds) {
  // 4 must precede 1; among ready nodes the smaller id goes first: 0, 2, 4, 1, 3.
  Graph g = parse_graph("p remat2 node 3 deps 1 cpu 1 mem 1 node 1 deps 4 cpu 1 mem 1 "
                        "node 4 cpu 1 mem 1 node 0 pointer node 2 deps 0 cpu 1 mem 1",
                        "g.txt");
  std::vector<std::string> order;
  for (NodeId c : g.order) order.push_back(g.compute[c].name);
  EXPECT_EQ(order, (std::vector<std::string>{"0", "2", "4", "1", "3"}));
}

TEST(PRemat2, RoundTrip) {
  Graph g = parse_graph(kSample, "g.txt");
  std::string text = graph_to_premat2(g, 1000);
  EXPECT_EQ(premat2_memlimit(text), 1000);
  Graph back = parse_graph(text, "g.txt");
  EXPECT_TRUE(equal_graphs(g, back));
  EXPECT_EQ(graph_to_premat2(back, 1000), text);
  // Sinks are targets.
  EXPECT_NE(text.find("node 5 deps 2 3 cpu 7 mem 30 overhead 4 target\n"), std::string::npos) << text;
}

TEST(PRemat2, NonNumericNamesAreNumberedInOrder) {
  Graph d = hiremate::testing::diamond();
  std::string text = graph_to_premat2(d);
  EXPECT_EQ(text,
            "p remat2\n"
            "node 0 cpu 1 mem 4\n"
            "node 1 deps 0 cpu 2 mem 2\n"
            "node 2 deps 0 cpu 3 mem 3\n"
            "node 3 deps 1 2 cpu 4 mem 1 target\n");
}

TEST(PRemat2, RejectsWhatItCannotExpress) {
  EXPECT_THROW(graph_to_premat2(hiremate::testing::two_layer()), BadInput);
  Graph g;
  NodeId x = g.add_data("x", DataKind::Data, 1, true);
  NodeId y = g.add_data("y", DataKind::Data, 1);
  g.add_compute("f", ComputeKind::Forward, 0.5, 0, {x}, {y});
  g.finalize();
  try {
    graph_to_premat2(g);
    ADD_FAILURE();
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("it is a source"), std::string::npos) << e.what();
  }
}

// The names of the deps of compute node c, in order.
static std::vector<std::string> dep_names(const Graph& g, NodeId c) {
  std::vector<std::string> out;
  for (NodeId d : g.compute[c].deps) out.push_back(g.compute[g.data[d].producers.at(0)].name);
  return out;
}

TEST(PRemat2, BenchmarkGraphsSurviveExport) {
  HM_REQUIRE_BENCHMARKS();
  // rl1's names are numbers, so they are the ids (its order is not carried: the format has none).
  Graph rl = load_graph(hiremate::testing::benchmark_graph("rl1-n100"));
  Graph rl_back = parse_graph(graph_to_premat2(rl), "rl1.txt");
  ASSERT_EQ(rl_back.compute.size(), rl.compute.size());
  EXPECT_EQ(rl_back.num_edges(), rl.num_edges());
  for (size_t c = 0; c < rl.compute.size(); ++c) {
    NodeId b = *rl_back.find_compute(rl.compute[c].name);
    EXPECT_EQ(rl_back.compute[b].time, rl.compute[c].time);
    EXPECT_EQ(rl_back.data[rl_back.compute[b].outputs[0]].bytes, rl.data[rl.compute[c].outputs[0]].bytes);
    EXPECT_EQ(dep_names(rl_back, b), dep_names(rl, static_cast<NodeId>(c)));
  }
  // Checkmate names are not numbers, so the ids are positions in the order, which survives.
  for (const char* name : {"fcn8-b32-train", "resnet50-b256-train"}) {
    SCOPED_TRACE(name);
    Graph g = load_graph(hiremate::testing::benchmark_graph(name));
    Graph back = parse_graph(graph_to_premat2(g), "export.txt");
    ASSERT_EQ(back.compute.size(), g.compute.size());
    EXPECT_EQ(back.num_edges(), g.num_edges());
    std::map<std::string, std::string> renamed;  // original name -> id
    for (size_t i = 0; i < g.order.size(); ++i) renamed[g.compute[g.order[i]].name] = std::to_string(i);
    for (size_t i = 0; i < g.order.size(); ++i) {
      NodeId a = g.order[i], b = back.order[i];
      EXPECT_EQ(back.compute[b].name, std::to_string(i));
      EXPECT_EQ(back.compute[b].time, g.compute[a].time);
      EXPECT_EQ(back.data[back.compute[b].outputs[0]].bytes, g.data[g.compute[a].outputs[0]].bytes);
      std::vector<std::string> expected;
      for (const std::string& d : dep_names(g, a)) expected.push_back(renamed[d]);
      EXPECT_EQ(dep_names(back, b), expected);
    }
  }
}

TEST(PRemat2, Errors) {
  const std::map<std::string, std::string> cases = {
      {"", "not a graph file (it is empty)"},
      {"p remat3\nnode 0 pointer", "not a graph file"},
      {"p remat2\nmemlimit lots\nnode 0 pointer", "g.txt:2: expected the memory limit (a non-negative integer), got 'lots'"},
      {"p remat2\n", "g.txt:1: no nodes"},
      {"p remat2\nnode 0 cpu 1 mem 1\nedge 0 1", "g.txt:3: unexpected 'edge' after node 0"},
      {"p remat2\nnode -1 cpu 1 mem 1", "g.txt:2: expected a node id (a non-negative integer), got '-1'"},
      {"p remat2\nnode 0 cpu 1 mem 99999999999999999999", "g.txt:2: the memory size 99999999999999999999 does not fit"},
      {"p remat2\nnode 0 deps cpu 1 mem 1 node 1 target", "g.txt:2: expected 'deps', 'cpu', 'effectful' or 'pointer' in node 1, got 'target'"},
      {"p remat2\nnode 0 cpu 1 cost 2", "g.txt:2: expected 'mem' after the cpu cost, got 'cost'"},
  };
  for (const auto& [text, fragment] : cases) {
    std::string msg = error_of(text);
    EXPECT_NE(msg.find(fragment), std::string::npos) << "input: " << text << "\nmessage: " << msg;
  }
  LoadOptions opt;
  opt.format = GraphFormat::PRemat2;
  try {
    parse_graph("node 0 pointer", "g.txt", opt);
    ADD_FAILURE();
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("g.txt:1: expected the header 'p remat2', got 'node'"), std::string::npos)
        << e.what();
  }
  opt.training = true;
  EXPECT_THROW(parse_graph(kSample, "g.txt", opt), BadInput);
}
