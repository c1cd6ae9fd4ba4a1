// `hiremate partition`: the tree as text and as JSON, exit codes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "hiremate/graph/generate.h"
#include "hiremate/graph/io/graph_io.h"
#include "support/run_cli.h"
#include "support/shared_data.h"

using hiremate::testing::benchmark_graph;
using hiremate::testing::run_cli;

namespace {
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A 12-layer parallel transformer written to a temporary file.
std::string transformer_file() {
  static std::string path;
  if (path.empty()) {
    hiremate::generate::TransformerParams p;
    p.layers = 12;
    p.parallel = true;
    path = ::testing::TempDir() + "hiremate_partition_gptj12_" + std::to_string(getpid()) + ".json";
    hiremate::save_graph(hiremate::generate::transformer(p, {}), path);
  }
  return path;
}
}  // namespace

TEST(CliPartition, PrintsTheTreeAsJson) {
  auto r = run_cli("partition " + transformer_file() + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["type"], "training");
  EXPECT_EQ(j["units"], 1 + 12 * 12 + 2);
  EXPECT_EQ(j["partitioners"], nlohmann::json::array({"bottom_to_top"}));
  EXPECT_GE(j["seconds"].get<double>(), 0.0);
  EXPECT_EQ(j["classes"], 2);           // the root and the 12 identical layers
  EXPECT_EQ(j["representatives"], 2);  // solved once each
  EXPECT_EQ(j["clusters"], 13);
  ASSERT_EQ(j["levels"].size(), 2u);
  EXPECT_EQ(j["levels"][1]["clusters"], 12);
  EXPECT_EQ(j["levels"][1]["classes"], 1);
  EXPECT_EQ(j["largest_cluster"]["size"], 12);
  EXPECT_GT(j["largest_cluster"]["interface_bytes"].get<int64_t>(), 0);
  EXPECT_EQ(j["largest_partitioning"]["partitioner"], "bottom_to_top");
  ASSERT_EQ(j["tree"].size(), 13u);
  const auto& root = j["tree"][0];
  EXPECT_EQ(root["level"], 0);
  EXPECT_EQ(root["partitionings"][0]["chain"], true);
  EXPECT_EQ(root["partitionings"][0]["parts"][0]["node"], "embed");
  // A copy has no partitionings and names its representative.
  EXPECT_TRUE(j["tree"][2]["partitionings"].empty());
  EXPECT_EQ(j["tree"][2]["representative"], j["tree"][1]["cluster"]);
}

TEST(CliPartition, TextNamesLevelsClassesAndTheLargestCluster) {
  auto r = run_cli("partition " + transformer_file() + " --partitioner repetitive --partitioner sequence");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* part : {"partitioners     repetitive, sequence", "levels", "largest cluster", "time",
                           "(12 identical)", "repetitive:", "sequence:"})
    EXPECT_TRUE(has(r.out, part)) << part << "\n" << r.out;
}

TEST(CliPartition, BadPartitionersExitTwoAndListTheKnownOnes) {
  auto r = run_cli("partition " + transformer_file() + " --partitioner nope");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "unknown partitioner 'nope'; known: bottom_to_top, sequence, repetitive")) << r.err;
  r = run_cli("partition " + transformer_file() + " --partitioner bottom_to_top:size=3");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "max_estimate_per_sub_graph")) << r.err;
  EXPECT_EQ(run_cli("partition /nonexistent.json").code, 2);
  r = run_cli("partition --help");
  EXPECT_EQ(r.code, 0);
  for (const char* opt : {"--partitioner", "--json", "--depth", "--training"}) EXPECT_TRUE(has(r.out, opt)) << opt;
}

TEST(CliPartition, BenchmarkGraphBothImports) {
  HM_REQUIRE_BENCHMARKS();
  for (const char* flags : {"", " --training"}) {
    auto r = run_cli("partition " + benchmark_graph("resnet50-b256-train") + flags + " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["units"], *flags ? 176 : 353) << flags;  // forwards only, or every node as a forward
    EXPECT_GT(j["clusters"].get<int>(), 1) << flags;
  }
}
