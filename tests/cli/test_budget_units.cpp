// `solve`'s budget in both units: the graph's bytes (sources counted, as its % of the baseline peak)
// and activations (the sources excluded), the units of `train` and the Python package.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/run_cli.h"

using hiremate::testing::run_cli;

namespace {
const std::string kMlp = std::string(HIREMATE_SOURCE_DIR) + "/examples/mlp4-train.json";
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST(CliBudgetUnits, SolveSaysTheBudgetInActivationsToo) {
  auto r = run_cli("solve " + kMlp + " --budget 60% --solver autograd --json");
  ASSERT_NE(r.out, "") << r.err;
  auto j = nlohmann::json::parse(r.out);
  const int64_t budget = j["budget"], act = j["budget_activations"], sources = j["source_bytes"];
  ASSERT_GT(sources, 0);  // the example's input
  EXPECT_EQ(budget - act, sources);
  const int64_t peak = j["baseline_peak"];
  // 60 % of the peak with the sources is less than 60 % of the activations alone.
  EXPECT_LT(double(act) / double(peak - sources), 0.6);

  auto text = run_cli("solve " + kMlp + " --budget 60% --solver autograd");
  EXPECT_TRUE(has(text.out, "both with the sources")) << text.out;
  EXPECT_TRUE(has(text.out, "B of activations")) << text.out;
  EXPECT_TRUE(has(text.out, "excluded, as train and Python count")) << text.out;
}
