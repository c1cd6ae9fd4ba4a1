// The measured graph against plain PyTorch on the same model and inputs (research/hiremate.md
// §2.5): the keep-all schedule's simulated activation peak (the graph's peak minus the inputs)
// against the counting allocator's peak over forward + loss.backward(), and the sum of node times
// against the step's time. Parameters and their gradients are excluded on both sides: the graph
// has none, and the reference drops each parameter gradient as soon as autograd produces it.
#include <gtest/gtest.h>

#include <cmath>

#include "hiremate/solvers/solver.h"
#include "torch_test_util.h"

namespace hiremate {
namespace {

using torchtest::profiled;

int64_t activation_peak(const Graph& g) { return baseline(g).peak - g.source_bytes(); }

double relative(double a, double b) { return (a - b) / b; }

torchbridge::Reference reference(const std::string& name) {
  return torchbridge::measure_reference(torchtest::model_path(name), torchtest::inputs_path(name),
                                        torchtest::test_options());
}

class TorchPeakAgreement : public ::testing::TestWithParam<std::string> {};

TEST_P(TorchPeakAgreement, KeepAllPeakWithinOnePercentOfPlainPyTorch) {
  const std::string name = GetParam();
  int64_t sim = activation_peak(profiled(name).graph);
  int64_t ref = reference(name).peak;
  EXPECT_LE(std::abs(relative(double(sim), double(ref))), 0.01) << name << ": graph " << sim << " B, PyTorch " << ref << " B";
}

INSTANTIATE_TEST_SUITE_P(Models, TorchPeakAgreement,
                         ::testing::Values("mlp", "gpt2_small", "resnet_small", "gpt2", "resnet", "inplace", "tied",
                                           "dropout", "multi_output", "non_tensor_output"));

// q @ k^T and att @ v on transposed views: the gradient reaching the transposed view arrives
// contiguous in isolation but in the reader's layout in PyTorch, and the backward's copy for the
// batched matmul is measured as overhead that PyTorch does not pay here. The graph over-estimates.
TEST(TorchViewGradients, PeakIsAnUpperBoundWithin15Percent) {
  int64_t sim = activation_peak(profiled("views").graph);
  int64_t ref = reference("views").peak;
  EXPECT_GE(sim, ref);
  EXPECT_LE(relative(double(sim), double(ref)), 0.15) << "graph " << sim << " B, PyTorch " << ref << " B";
}

// Times. The agreement of the sum of node times with the step is a measurement, and lives in the
// benchmark (bench/torch/agreement.py -> bench/results/torch_agreement.md: -12.5 .. +9.0 %): under
// ctest -j on a shared 2-core machine the profile and the reference run beside other tests, and a
// factor of two between them was once a matter of load (issue 24). What a unit test can assert
// without the machine's load deciding it: every node is timed, and the profile measures the same
// work as the step to within an order of magnitude, which a load of two jobs on two cores cannot
// break and a unit slip (ms for s, us for s: 1e3 and more) cannot pass.
class TorchTimeAgreement : public ::testing::TestWithParam<std::string> {};
TEST_P(TorchTimeAgreement, EveryNodeTimedAndTheSumOfTheStepsOrderOfMagnitude) {
  const std::string name = GetParam();
  auto pm = torchbridge::profile_model(torchtest::model_path(name), torchtest::inputs_path(name), torchtest::test_options());
  double sum = 0;
  for (const auto& c : pm.graph.compute) {
    EXPECT_TRUE(std::isfinite(c.time) && c.time >= 0) << name << ": node time " << c.time;
    sum += c.time;
  }
  auto ref = reference(name);
  std::cerr << name << ": sum of node times " << sum * 1e3 << " ms, PyTorch step " << ref.time * 1e3
            << " ms (fastest " << ref.best_time * 1e3 << " ms)\n";
  EXPECT_GE(sum, 0.1 * ref.best_time) << name;
  EXPECT_LE(sum, 10.0 * ref.time) << name;
}
INSTANTIATE_TEST_SUITE_P(Models, TorchTimeAgreement, ::testing::Values("gpt2", "resnet"));

}  // namespace
}  // namespace hiremate
