// `hiremate train --trace` per-op times (issue 21): per op of the plan, the profile's time beside the
// executor's CPU time in sequence (median over the steps after the first), as "op-time" lines on stderr.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "hiremate/torch/train.h"
#include "torch_test_util.h"

namespace hiremate {
namespace {

TEST(TraceTimes, OneLinePerOpWithTheProfilesAndTheMeasuredTime) {
  torchbridge::TrainOptions o;
  o.profile = torchtest::test_options();
  o.budget = "0.5";
  o.solver = "twremat";
  o.steps = 3;
  o.time_limit = 10;
  o.trace = true;
  testing::internal::CaptureStderr();
  auto r = torchbridge::train_model(torchtest::model_path("gpt2_small"), torchtest::inputs_path("gpt2_small"), o);
  std::string err = testing::internal::GetCapturedStderr();
  ASSERT_GT(r.recomputations, 0u);

  std::istringstream in(err);
  std::string line;
  size_t next = 0, computes = 0, no_grad = 0;
  double measured = 0;
  while (std::getline(in, line)) {
    if (line.rfind("op-time\t", 0) != 0) continue;
    std::vector<std::string> f;
    std::istringstream ls(line);
    for (std::string x; std::getline(ls, x, '\t');) f.push_back(x);
    ASSERT_EQ(f.size(), 6u) << line;
    EXPECT_EQ(std::stoul(f[1]), next++) << line;
    double sim = std::stod(f[4]), cpu = std::stod(f[5]);
    EXPECT_GE(cpu, 0.0) << line;
    measured += cpu;
    if (f[2].rfind("compute(", 0) == 0) {
      ++computes;
      if (f[2].find(", no phantoms") != std::string::npos) {
        ++no_grad;
        EXPECT_EQ(f[3], "0") << line;
      }
    } else {
      EXPECT_EQ(sim, 0.0) << line << ": only compute ops have a profiled time";
    }
  }
  EXPECT_GT(computes, 0u);
  EXPECT_GT(no_grad, 0u) << "a plan at 50 % recomputes some forwards without their phantoms";
  // The ops of one step take at most the step's CPU time (medians per op: allow the steps' spread).
  double most = 0;
  for (size_t k = 1; k < r.steps.size(); ++k) most = std::max(most, r.steps[k].cpu_time);
  EXPECT_LE(measured, 1.5 * most);
  EXPECT_GT(measured, 0.0);
}

}  // namespace
}  // namespace hiremate
