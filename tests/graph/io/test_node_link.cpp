// networkx node-link import: the public benchmark graphs (counts, order, fields, training pairs)
// and small inline graphs for the rules the benchmarks do not exercise.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "hiremate/common/error.h"
#include "hiremate/graph/io/graph_io.h"
#include "support/shared_data.h"

using namespace hiremate;
using hiremate::testing::benchmark_graph;

namespace {

struct Counts {
  size_t nodes, edges;
};

// From shared/benchmarks/README.md.
const std::map<std::string, Counts> kBenchmarks = {
    {"rl1-n100", {100, 236}},          {"rl2-n250", {250, 944}},
    {"rl3-n500", {500, 2461}},         {"rl4-n1000", {1000, 5875}},
    {"fcn8-b32-train", {73, 149}},     {"resnet50-b256-train", {353, 751}},
    {"mobilenet-b512-train", {185, 367}}, {"vgg16-b256-train", {45, 87}},
    {"vgg19-b256-train", {51, 99}},    {"vgg-unet-b32-train", {71, 148}},
    {"segnet-b32-train", {77, 151}},
};

nlohmann::json raw(const std::string& name) {
  std::ifstream in(benchmark_graph(name));
  return nlohmann::json::parse(in);
}

bool is_train(const std::string& name) { return name.find("-train") != std::string::npos; }

Graph training_import(const std::string& path) {
  LoadOptions opt;
  opt.training = true;
  return load_graph(path, opt);
}

std::string error_of(const std::string& text, bool training = false) {
  LoadOptions opt;
  opt.training = training;
  try {
    parse_graph(text, "nl.json", opt);
  } catch (const BadInput& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(NodeLink, BenchmarkCountsGeneric) {
  HM_REQUIRE_BENCHMARKS();
  for (const auto& [name, counts] : kBenchmarks) {
    SCOPED_TRACE(name);
    Graph g = load_graph(benchmark_graph(name));
    EXPECT_EQ(g.compute.size(), counts.nodes);
    EXPECT_EQ(g.data.size(), counts.nodes);
    EXPECT_EQ(g.num_edges(), counts.edges);
    EXPECT_EQ(g.num_edges(), raw(name)["links"].size());
    EXPECT_FALSE(g.is_training());
    EXPECT_EQ(g.time_unit, "cost");
    for (size_t c = 0; c < g.compute.size(); ++c) {
      ASSERT_EQ(g.compute[c].outputs, std::vector<NodeId>{static_cast<NodeId>(c)});
      EXPECT_EQ(g.data[c].name, g.compute[c].name);
      EXPECT_EQ(g.data[c].kind, DataKind::Data);
      EXPECT_FALSE(g.data[c].source);
    }
  }
}

TEST(NodeLink, RandomLayeredFieldsAndOrder) {
  HM_REQUIRE_BENCHMARKS();
  nlohmann::json j = raw("rl1-n100");
  Graph g = load_graph(benchmark_graph("rl1-n100"));
  EXPECT_EQ(g.name, "random_layered_n100_w0.27_nlv0.75_ed0.2_scd0.14");
  const auto& order = j["graph"]["order"];
  ASSERT_EQ(g.order.size(), order.size());
  for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(g.compute[g.order[i]].name, order[i].dump());
  for (size_t i = 0; i < j["nodes"].size(); ++i) {
    const auto& n = j["nodes"][i];
    EXPECT_EQ(g.compute[i].name, n["name"].dump());
    EXPECT_EQ(g.compute[i].time, n["duration"].get<double>());
    EXPECT_EQ(g.data[i].bytes, n["out_cost"].get<int64_t>());
  }
  // Each link u -> v is a dep of v on u's output.
  const auto& l = j["links"][0];
  NodeId v = *g.find_compute(l["1"].dump());
  EXPECT_EQ(g.compute[v].deps.front(), *g.find_data(l["0"].dump()));
}

TEST(NodeLink, CheckmateFieldsAndIdOrder) {
  HM_REQUIRE_BENCHMARKS();
  nlohmann::json j = raw("fcn8-b32-train");
  Graph g = load_graph(benchmark_graph("fcn8-b32-train"));
  for (size_t i = 0; i < j["nodes"].size(); ++i) {
    const auto& n = j["nodes"][i];
    ASSERT_EQ(n["id"].get<size_t>(), i);
    EXPECT_EQ(g.compute[i].name, n["name"].get<std::string>());
    EXPECT_EQ(g.compute[i].time, n["cost_cpu"].get<double>());
    EXPECT_EQ(g.data[i].bytes, n["cost_ram"].get<int64_t>());
    EXPECT_EQ(g.order[i], static_cast<NodeId>(i));
  }
  EXPECT_EQ(g.compute[*g.find_compute("block1_conv2")].time, 298366009344.0);
}

TEST(NodeLink, TrainingImportPairsEveryBackward) {
  HM_REQUIRE_BENCHMARKS();
  for (const auto& [name, counts] : kBenchmarks) {
    if (!is_train(name)) continue;
    SCOPED_TRACE(name);
    Graph g = training_import(benchmark_graph(name));
    EXPECT_TRUE(g.is_training());
    EXPECT_EQ(g.num_edges(), counts.edges);
    ASSERT_NE(g.loss, kNone);
    EXPECT_EQ(g.compute[g.loss].name, "Loss");
    size_t forwards = 0, backwards = 0, losses = 0;
    for (size_t c = 0; c < g.compute.size(); ++c) {
      const ComputeNode& n = g.compute[c];
      DataKind out = g.data[n.outputs.at(0)].kind;
      switch (n.kind) {
        case ComputeKind::Forward: {
          ++forwards;
          EXPECT_EQ(out, DataKind::Data);
          auto b = g.find_compute(n.name + "_backward");
          ASSERT_TRUE(b) << n.name;  // in these graphs every forward has a backward
          EXPECT_EQ(n.pair, *b);
          EXPECT_EQ(g.compute[*b].pair, static_cast<NodeId>(c));
          break;
        }
        case ComputeKind::Backward:
          ++backwards;
          EXPECT_EQ(out, DataKind::Grad);
          ASSERT_NE(n.pair, kNone);
          EXPECT_EQ(g.compute[n.pair].name + "_backward", n.name);
          break;
        case ComputeKind::Loss:
          ++losses;
          EXPECT_EQ(out, DataKind::Grad);
          break;
      }
    }
    EXPECT_EQ(losses, 1u);
    EXPECT_EQ(forwards, backwards);
    EXPECT_EQ(forwards + backwards + losses, counts.nodes);
  }
}

TEST(NodeLink, TrainingRejectedForRandomLayered) {
  HM_REQUIRE_BENCHMARKS();
  try {
    training_import(benchmark_graph("rl1-n100"));
    ADD_FAILURE();
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("/nodes/0: --training applies only to Checkmate-derived graphs"),
              std::string::npos)
        << e.what();
  }
}

TEST(NodeLink, StringIdsEdgesKeyAndListingOrder) {
  // String ids: no numeric order, so the file's listing order is the order; "edges" is accepted.
  Graph g = parse_graph(R"({"directed": true, "nodes": [
      {"id": "in", "cost_cpu": 1, "cost_ram": 4, "extra": [1]},
      {"id": "mid", "cost_cpu": 2.5, "cost_ram": 4},
      {"id": "out", "cost_cpu": 3, "cost_ram": 2}],
    "edges": [{"source": "in", "target": "mid", "weight": 3}, {"source": "mid", "target": "out"},
              {"source": "in", "target": "out"}]})",
                        "nl.json");
  EXPECT_EQ(g.compute[1].name, "mid");
  EXPECT_EQ(g.compute[1].time, 2.5);
  EXPECT_EQ(g.order, (std::vector<NodeId>{0, 1, 2}));
  EXPECT_EQ(g.compute[2].deps, (std::vector<NodeId>{1, 0}));
  EXPECT_EQ(g.compute_where[2], "nl.json:/nodes/2");
}

TEST(NodeLink, IntegerIdsOrderNumerically) {
  Graph g = parse_graph(R"({"nodes": [{"id": 10, "cost_cpu": 1, "cost_ram": 1},
                                      {"id": 2, "cost_cpu": 1, "cost_ram": 1},
                                      {"id": 7, "cost_cpu": 1, "cost_ram": 1}],
                           "links": [{"source": 2, "target": 7}, {"source": 7, "target": 10}]})",
                        "nl.json");
  EXPECT_EQ(g.compute[0].name, "10");  // no "name": the id names the node
  EXPECT_EQ(g.order, (std::vector<NodeId>{1, 2, 0}));
}

TEST(NodeLink, TrainingRules) {
  auto graph = [](const std::string& nodes, const std::string& links) {
    return R"({"directed": true, "multigraph": false, "graph": {}, "nodes": [)" + nodes + R"(], "links": [)" +
           links + "]}";
  };
  auto node = [](int id, const std::string& name, bool backward) {
    return "{\"id\": " + std::to_string(id) + ", \"name\": \"" + name + "\", \"cost_cpu\": 1, \"cost_ram\": 8, " +
           "\"backward\": " + (backward ? "true" : "false") + "}";
  };
  std::string ok = graph(node(0, "f", false) + "," + node(1, "Loss", true) + "," + node(2, "f_backward", true),
                         R"({"source": 0, "target": 1}, {"source": 1, "target": 2}, {"source": 0, "target": 2})");
  LoadOptions opt;
  opt.training = true;
  Graph g = parse_graph(ok, "nl.json", opt);
  EXPECT_EQ(g.loss, 1);
  EXPECT_EQ(g.compute[0].pair, 2);
  EXPECT_EQ(g.data[1].kind, DataKind::Grad);
  // The same file without --training is a generic DAG.
  EXPECT_FALSE(parse_graph(ok, "nl.json").is_training());

  std::string orphan = graph(node(0, "f", false) + "," + node(1, "g_backward", true), R"({"source": 0, "target": 1})");
  EXPECT_NE(error_of(orphan, true).find("nl.json: /nodes/1: backward node 'g_backward' has no forward node 'g'"),
            std::string::npos)
      << error_of(orphan, true);
  std::string flag = graph(node(0, "f", true), "");
  EXPECT_NE(error_of(flag, true).find("/nodes/0: node 'f' has \"backward\": true but its name does not end in _backward"),
            std::string::npos)
      << error_of(flag, true);
  std::string generic = R"({"nodes": [{"id": 0, "cost_cpu": 1, "cost_ram": 1}], "links": []})";
  EXPECT_NE(error_of(generic, true).find("--training applies only to Checkmate-derived graphs"), std::string::npos);
}

TEST(NodeLink, StructuralErrors) {
  EXPECT_NE(error_of(R"({"nodes": [{"id": 0.5, "cost_cpu": 1, "cost_ram": 1}], "links": []})")
                .find("/nodes/0/id: a node id must be an integer or a string"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"nodes": [{"id": 0, "cost_cpu": 1, "cost_ram": 1}], "links": [{"source": 0}]})")
                .find("/links/0: missing the link's target"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"nodes": [{"cost_cpu": 1, "cost_ram": 1}], "links": []})").find("/nodes/0: missing the node id"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"nodes": [{"id": 0, "cost_cpu": 1}], "links": []})").find("/nodes/0: missing the output size"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"graph": {"order": [0]}, "nodes": [{"id": 0, "cost_cpu": 1, "cost_ram": 1},
                                   {"id": 1, "cost_cpu": 1, "cost_ram": 1}], "links": []})")
                .find("/graph/order: the order lists 1 of the 2 nodes"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"graph": {"order": [0, 0]}, "nodes": [{"id": 0, "cost_cpu": 1, "cost_ram": 1},
                                   {"id": 1, "cost_cpu": 1, "cost_ram": 1}], "links": []})")
                .find("/graph/order/1: node id 0 is listed twice"),
            std::string::npos);
}
