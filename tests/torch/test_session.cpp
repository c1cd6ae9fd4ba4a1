// The Python package's session (src/hiremate/torch/session.h): the plan's two halves give plain
// PyTorch's loss and parameter gradients, with the output's gradient seeded from outside; a plan
// file round-trips and is refused for another model.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "hiremate/common/error.h"
#include "hiremate/schedule/schedule_json.h"
#include "hiremate/torch/session.h"
#include "torch_test_util.h"

namespace hiremate {
namespace {

using torchbridge::Session;

std::vector<c10::IValue> inputs_of(const std::string& name) {
  return torchbridge::load_inputs(torchtest::inputs_path(name));
}

std::unique_ptr<Session> planned(const std::string& name, torch::jit::Module m, const std::string& budget) {
  auto s = std::make_unique<Session>(m, inputs_of(name), name);
  auto o = torchtest::test_options();
  o.runs = 2;
  s->profile(o);
  s->plan(budget, "twremat", 10);
  return s;
}

TEST(TorchSession, HalvesGivePlainLossAndGradients) {
  auto module = torchbridge::load_module(torchtest::model_path("gpt2_small"));
  auto s = planned("gpt2_small", module, "0.5");
  EXPECT_LE(s->summary().simulated_peak, s->summary().budget);
  EXPECT_GT(s->summary().recomputations, 0u);

  // Gradients go through each given leaf's AccumulateGrad: into its .grad, through its hooks.
  std::vector<at::Tensor> leaves;
  std::vector<int> hook_calls(s->parameters().size(), 0);
  for (const auto& p : s->parameters()) {
    leaves.push_back(p.detach().clone().requires_grad_(true));
    int& calls = hook_calls[leaves.size() - 1];
    leaves.back().register_hook([&calls](const at::Tensor&) { ++calls; });
  }
  at::manual_seed(7);
  at::Tensor out = s->forward_half(inputs_of("gpt2_small"));
  EXPECT_TRUE(s->in_step());
  s->backward_half(at::full_like(out, 2.0), leaves);  // d(2 * loss)
  for (size_t k = 0; k < hook_calls.size(); ++k) EXPECT_EQ(hook_calls[k], 1) << "parameter " << k;
  EXPECT_FALSE(s->in_step());

  at::manual_seed(7);
  at::Tensor loss = module.forward(inputs_of("gpt2_small")).toTensor();
  EXPECT_NEAR(out.item<double>(), loss.item<double>(), 1e-6 * std::abs(loss.item<double>()));
  (2 * loss).backward();
  auto params = s->parameters();
  std::set<size_t> matched;  // module.parameters() yields the tied weight twice
  for (const auto& p : module.parameters()) {
    for (size_t k = 0; k < params.size(); ++k) {
      if (params[k].data_ptr() != p.data_ptr()) continue;
      double scale = p.grad().abs().max().item<double>();
      ASSERT_TRUE(leaves[k].grad().defined()) << "parameter " << k;
      EXPECT_LE((leaves[k].grad() - p.grad()).abs().max().item<double>(), 1e-6 * scale) << "parameter " << k;
      matched.insert(k);
      break;
    }
  }
  EXPECT_EQ(matched.size(), params.size());
}

TEST(TorchSession, PlanFileRoundTrips) {
  auto module = torchbridge::load_module(torchtest::model_path("gpt2_small"));
  auto s = planned("gpt2_small", module, "0.6");
  std::string text = s->plan_text();

  Session loaded(module, inputs_of("gpt2_small"), "gpt2_small");
  loaded.load(text, "plan.json");
  EXPECT_TRUE(loaded.summary().loaded);
  EXPECT_EQ(loaded.summary().simulated_peak, s->summary().simulated_peak);
  EXPECT_EQ(loaded.summary().budget, s->summary().budget);
  EXPECT_EQ(schedule_to_string(loaded.graph(), loaded.schedule()), schedule_to_string(s->graph(), s->schedule()));

  Session other(torchbridge::load_module(torchtest::model_path("mlp")), inputs_of("mlp"), "mlp");
  EXPECT_THROW(other.load(text, "plan.json"), BadInput);
  Session fresh(module, inputs_of("gpt2_small"), "gpt2_small");
  EXPECT_THROW(fresh.load("{\"format\": \"something\"}", "plan.json"), BadInput);
}

}  // namespace
}  // namespace hiremate
