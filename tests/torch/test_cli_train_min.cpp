// `hiremate train --budget min`: plans at the floor (in activation bytes), and one byte below it the
// error names the floor and the node that sets it.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "torch_test_util.h"

namespace hiremate {
namespace {

std::pair<int, std::string> run(const std::string& cmd, bool with_stderr) {
  std::array<char, 4096> buf;
  std::string out;
  FILE* p = popen((cmd + (with_stderr ? " 2>&1" : " 2>/dev/null")).c_str(), "r");
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int rc = pclose(p);
  return {WEXITSTATUS(rc), out};
}

TEST(TorchCli, TrainAtTheMinBudgetAndOneByteBelow) {
  const std::string train = std::string(HIREMATE_CLI) + " train " + torchtest::model_path("dropout") + " --inputs " +
                            torchtest::inputs_path("dropout") + " --steps 1 --time-limit 10 --threads 1";
  auto [rc, out] = run(train + " --budget min --json", false);
  ASSERT_EQ(rc, 0) << out;
  auto j = nlohmann::json::parse(out);
  const int64_t min = j["budget"];
  EXPECT_GT(min, 0);
  EXPECT_LT(min, j["keep_all_peak"].get<int64_t>());
  EXPECT_LE(j["simulated_peak"].get<int64_t>(), min);

  auto [rc_below, err] = run(train + " --budget " + std::to_string(min - 1), true);
  EXPECT_EQ(rc_below, 3) << err;
  EXPECT_NE(err.find("the floor below which no schedule exists"), std::string::npos) << err;
  EXPECT_NE(err.find("node '"), std::string::npos) << err;
}

}  // namespace
}  // namespace hiremate
