// The lowest feasible budget in the user's units: `info` names it (bytes, activations, % of the
// keep-all activation peak, the node that sets it), `solve --budget min` plans there, and one byte
// below, the infeasibility names it and its node.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/run_cli.h"

using hiremate::testing::run_cli;

namespace {

const std::string kMlp = std::string(HIREMATE_SOURCE_DIR) + "/examples/mlp4-train.json";
const std::string kDag = std::string(HIREMATE_SOURCE_DIR) + "/examples/unet-dag.json";

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

nlohmann::json run_json(const std::string& args, int expected_code) {
  auto r = run_cli(args + " --json");
  EXPECT_EQ(r.code, expected_code) << args << ": " << r.err;
  return r.out.empty() ? nlohmann::json() : nlohmann::json::parse(r.out);
}

int64_t source_bytes(const std::string& path) {
  std::ifstream f(path);
  nlohmann::json g = nlohmann::json::parse(f);
  int64_t total = 0;
  for (const auto& d : g["data"])
    if (d.value("source", false)) total += d["bytes"].get<int64_t>();
  return total;
}

// "83.9 %": the one-decimal percentage the outputs print.
std::string fmt_percent(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", p);
  return buf;
}

}  // namespace

TEST(CliMinBudget, InfoGivesItInActivationsAndPercentWithTheNode) {
  auto i = run_json("info " + kMlp, 0);
  const int64_t sources = source_bytes(kMlp);
  ASSERT_GT(sources, 0);  // the example's input: the two conventions differ by it
  // Activation bytes, as every budget: the sources excluded from the floor and from the peak.
  const int64_t act = i["min_budget"], peak = i["baseline_peak"];
  EXPECT_EQ(i["source_bytes"].get<int64_t>(), sources);
  EXPECT_NEAR(i["min_budget_percent"].get<double>(), 100.0 * double(act) / double(peak), 1e-9);
  EXPECT_GT(i["min_budget_percent"].get<double>(), 0.0);
  EXPECT_LT(i["min_budget_percent"].get<double>(), 100.0);
  const std::string node = i["min_budget_node"];
  EXPECT_TRUE(has(i["min_budget_why"], "'" + node + "'")) << i["min_budget_why"];
  EXPECT_TRUE(has(i["min_budget_why"], "overhead")) << i["min_budget_why"];

  auto text = run_cli("info " + kMlp);
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_TRUE(has(text.out, "% of the keep-all activation peak, inputs excluded")) << text.out;
  EXPECT_TRUE(has(text.out, fmt_percent(i["min_budget_percent"].get<double>()))) << text.out;
  EXPECT_TRUE(has(text.out, "'" + node + "'")) << text.out;
}

// "min" plans at the floor (on this training graph a plan exists there).
TEST(CliMinBudget, SolveAtMinPlansThere) {
  auto i = run_json("info " + kMlp, 0);
  const int64_t min = i["min_budget"];
  auto at = run_json("solve " + kMlp + " --budget min --time-limit 20", 0);
  EXPECT_EQ(at["budget"].get<int64_t>(), min);
  EXPECT_EQ(at["valid"], true);
  EXPECT_LE(at["peak"].get<int64_t>(), min);
}

// One byte below the floor is a proof of infeasibility that names the floor, its node and its
// percentage, and does not suggest more time.
TEST(CliMinBudget, OneByteBelowNamesTheFloorAndItsNode) {
  for (const auto& graph : {kMlp, kDag}) {
    auto i = run_json("info " + graph, 0);
    const int64_t min = i["min_budget"];

    auto below = run_cli("solve " + graph + " --budget " + std::to_string(min - 1) + " --time-limit 20");
    EXPECT_EQ(below.code, 3) << graph << ": " << below.err;
    const std::string node = i["min_budget_node"];
    EXPECT_TRUE(has(below.err, "the floor below which no schedule exists")) << below.err;
    EXPECT_TRUE(has(below.err, "'" + node + "'")) << below.err;
    EXPECT_TRUE(has(below.err, fmt_percent(i["min_budget_percent"].get<double>()) + " of the keep-all activation peak"))
        << below.err;
    EXPECT_FALSE(has(below.err, "time limit")) << below.err;  // no time can help below the floor
  }
}
