// One budget convention in every command (solvers/min_budget.h): activation bytes, the graph's
// sources (a profiled model's inputs) excluded; a fraction or percentage is of the keep-all
// activation peak. `solve`, `info` and `simulate` give the same bytes for the same budget, and say so;
// a graph without sources (the public benchmark graphs) reads as its baseline peak.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/run_cli.h"

using hiremate::testing::run_cli;

namespace {
const std::string kMlp = std::string(HIREMATE_SOURCE_DIR) + "/examples/mlp4-train.json";  // has an input
const std::string kDag = std::string(HIREMATE_SOURCE_DIR) + "/examples/unet-dag.json";    // no sources
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
nlohmann::json json_of(const std::string& args) {
  auto r = run_cli(args + " --json");
  EXPECT_NE(r.out, "") << args << ": " << r.err;
  return r.out.empty() ? nlohmann::json() : nlohmann::json::parse(r.out);
}
}  // namespace

TEST(CliBudgetUnits, APercentageIsOfTheActivationPeakInputsExcluded) {
  auto info = json_of("info " + kMlp);
  const int64_t sources = info["source_bytes"], keep_all = info["baseline_peak"];
  ASSERT_GT(sources, 0);  // the example's input: the conventions would differ by it
  auto j = json_of("solve " + kMlp + " --budget 80% --solver checkmate --time-limit 20");
  EXPECT_EQ(j["source_bytes"].get<int64_t>(), sources);
  EXPECT_EQ(j["baseline_peak"].get<int64_t>(), keep_all);  // the keep-all activation peak, in both
  // ceil(0.8 x the keep-all activation peak): the same bytes as info's 80 % budget.
  EXPECT_EQ(j["budget"].get<int64_t>(), (keep_all * 80 + 99) / 100);
  EXPECT_EQ(j["budget"], info["budgets"]["80"]);
  EXPECT_NEAR(j["budget_percent"].get<double>(), 80.0, 1e-3);
  ASSERT_EQ(j["valid"], true) << j.dump();
  EXPECT_LE(j["peak"].get<int64_t>(), j["budget"].get<int64_t>());  // the peak in the same unit
  EXPECT_TRUE(has(j["units"], "inputs excluded")) << j["units"];
  // Bytes are activation bytes too: the budget printed is the one given.
  EXPECT_EQ(json_of("solve " + kMlp + " --budget 40000000 --solver autograd")["budget"], 40000000);
  // min: the floor in activations, as info gives it.
  EXPECT_EQ(json_of("solve " + kMlp + " --budget min --solver checkmate --time-limit 20")["budget"], info["min_budget"]);

  auto text = run_cli("solve " + kMlp + " --budget 80% --solver checkmate --time-limit 20");
  EXPECT_TRUE(has(text.out, "bytes of activations")) << text.out;
  EXPECT_TRUE(has(text.out, "of the keep-all activation peak, inputs excluded")) << text.out;
  EXPECT_TRUE(has(text.out, "the inputs' ")) << text.out;  // what the graph holds on top
  auto info_text = run_cli("info " + kMlp);
  EXPECT_TRUE(has(info_text.out, "inputs excluded")) << info_text.out;
}

TEST(CliBudgetUnits, SimulateCountsAsSolve) {
  const std::string sched = ::testing::TempDir() + "units_" + std::to_string(getpid()) + ".json";
  auto j = json_of("solve " + kMlp + " --budget 80% --solver checkmate --time-limit 20 --schedule-out " + sched);
  auto sim = json_of("simulate " + kMlp + " " + sched);
  EXPECT_EQ(sim["peak"], j["peak"]);
  EXPECT_EQ(sim["baseline_peak"], j["baseline_peak"]);
  EXPECT_EQ(sim["bytes_at_loss"], j["bytes_at_loss"]);
  auto text = run_cli("simulate " + kMlp + " " + sched);
  EXPECT_TRUE(has(text.out, "of activations, inputs excluded")) << text.out;
}

// A graph without sources: every byte is an activation, and the budget is p x its baseline peak.
TEST(CliBudgetUnits, AGraphWithoutSourcesReadsAsItsBaselinePeak) {
  auto info = json_of("info " + kDag);
  ASSERT_EQ(info["source_bytes"].get<int64_t>(), 0);
  const int64_t peak = info["baseline_peak"];
  auto j = json_of("solve " + kDag + " --budget 90% --solver checkmate --time-limit 20");
  EXPECT_EQ(j["budget"].get<int64_t>(), (peak * 90 + 99) / 100);
  EXPECT_EQ(j["budget"], info["budgets"]["90"]);
  auto text = run_cli("solve " + kDag + " --budget 90% --solver checkmate --time-limit 20");
  EXPECT_FALSE(has(text.out, "the inputs' ")) << text.out;
}

// `info` on a training graph gives, per budget it prints, the least overhead any plan can have
// (schedule/lower_bound.h): never above a plan's, never lower at a tighter budget; none on a DAG.
TEST(CliBudgetUnits, InfoSaysTheLeastOverheadOfEveryPlanPerBudget) {
  auto info = json_of("info " + kMlp);
  ASSERT_TRUE(info.contains("least_overhead_percent")) << info.dump();
  const auto& least = info["least_overhead_percent"];
  EXPECT_GE(least["70"].get<double>(), least["80"].get<double>());
  EXPECT_GE(least["80"].get<double>(), least["90"].get<double>());
  EXPECT_GE(least["90"].get<double>(), 0.0);
  for (const char* p : {"90", "80", "70"}) {
    auto j = json_of("solve " + kMlp + " --budget " + p + "% --solver checkmate --time-limit 20");
    ASSERT_EQ(j["valid"], true) << j.dump();
    EXPECT_LE(least[p].get<double>(), j["overhead_percent"].get<double>() + 1e-9) << p << " %";
  }
  EXPECT_TRUE(has(run_cli("info " + kMlp).out, "every plan at least +"));
  EXPECT_FALSE(json_of("info " + kDag).contains("least_overhead_percent"));
}
