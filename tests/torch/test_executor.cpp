// The executor against plain PyTorch (issue 8): plans at 100 %, 70 % and 50 % of the keep-all
// activation peak, 5 SGD steps each beside a plain copy of the model with the same seeds.
// Gradients match to 1e-6 relative (bit-identical when nothing is recomputed), losses match step
// by step (dropout replays its mask on recomputation), and the counted activation peak stays under
// the budget and within 5 % of the simulated one.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "hiremate/torch/train.h"
#include "torch_test_util.h"

namespace hiremate {
namespace {

using Case = std::tuple<std::string, std::string, std::string>;  // model, budget, solver

class TorchExecutor : public ::testing::TestWithParam<Case> {};

TEST_P(TorchExecutor, MatchesPlainPyTorchWithinTheBudget) {
  auto [model, budget, solver] = GetParam();
  torchbridge::TrainOptions o;
  o.profile = torchtest::test_options();
  o.profile.runs = 3;
  o.budget = budget;
  o.solver = solver;
  o.steps = 5;
  o.time_limit = 10;
  o.lr = 0.05;
  auto r = torchbridge::train_model(torchtest::model_path(model), torchtest::inputs_path(model), o);
  std::string what = model + " at " + budget + " with " + solver;
  EXPECT_LE(r.simulated_peak, r.budget) << what;
  if (budget != "1.0") {
    EXPECT_GT(r.recomputations, 0u) << what << ": a plan that recomputes nothing tests little";
  }
  EXPECT_LE(r.buffer_diff, 1e-6) << what << ": batch-norm statistics are updated once per step";
  ASSERT_EQ(r.steps.size(), 5u);
  for (size_t k = 0; k < r.steps.size(); ++k) {
    const auto& s = r.steps[k];
    std::string at = what + ", step " + std::to_string(k);
    EXPECT_LE(s.grad_diff, 1e-6) << at;
    if (r.recomputations == 0) {
      EXPECT_TRUE(s.grads_identical) << at;
    }
    EXPECT_LE(std::abs(s.loss - s.plain_loss), 1e-6 * std::max(1.0, std::abs(s.plain_loss))) << at;
    // Even at 100 %, where the budget is the simulated keep-all peak itself: recomputations without
    // grad, gradients accumulated into resident ones and backwards that autograd lets free what
    // they read are all charged.
    EXPECT_LE(s.peak, r.budget) << at;
    EXPECT_LE(std::abs(double(s.peak - r.simulated_peak)), 0.05 * double(r.simulated_peak))
        << at << ": measured " << s.peak << " B, simulated " << r.simulated_peak << " B";
    std::cerr << at << ": measured " << s.peak << " B, simulated " << r.simulated_peak << " B, budget " << r.budget
              << " B, plain " << s.plain_peak << " B; grad diff " << s.grad_diff << "; time " << s.time * 1e3
              << " ms, plain " << s.plain_time * 1e3 << " ms\n";
  }
}

// mlp and dropout have a node that alone needs more than 50 % (70 % for mlp): they run at their
// lowest feasible budgets; TW-Remat reaches 54 % on resnet_small, so it runs at 55 %.
INSTANTIATE_TEST_SUITE_P(
    Budgets, TorchExecutor,
    ::testing::Values(Case{"gpt2_small", "1.0", "autograd"}, Case{"gpt2_small", "0.7", "twremat"},
                      Case{"gpt2_small", "0.5", "twremat"}, Case{"resnet_small", "1.0", "autograd"},
                      Case{"resnet_small", "0.7", "twremat"}, Case{"resnet_small", "0.55", "twremat"},
                      Case{"mlp", "1.0", "autograd"}, Case{"dropout", "0.75", "twremat"}),
    [](const auto& info) {
      std::string b = std::get<1>(info.param);
      return std::get<0>(info.param) + "_" + b.replace(b.find('.'), 1, "") + "_" + std::get<2>(info.param);
    });

}  // namespace
}  // namespace hiremate
