// Capture on small models, one feature each: the graph is valid, views are free, the features
// are grouped as expected; control flow is rejected with advice.
#include <gtest/gtest.h>

#include "hiremate/common/error.h"
#include "hiremate/solvers/solver.h"
#include "torch_test_util.h"

namespace hiremate {
namespace {

using torchtest::profiled;

int count_kind(const Graph& g, ComputeKind k) {
  int n = 0;
  for (const auto& c : g.compute) n += c.kind == k;
  return n;
}

TEST(TorchCapture, MlpHasOneForwardPerLayerAndALoss) {
  const auto& pm = profiled("mlp");
  const Graph& g = pm.graph;
  // 4 x (linear, relu) + head linear + cross_entropy
  EXPECT_EQ(count_kind(g, ComputeKind::Forward), 10);
  EXPECT_EQ(count_kind(g, ComputeKind::Loss), 1);
  EXPECT_EQ(count_kind(g, ComputeKind::Backward), 10);
  EXPECT_EQ(pm.parameter_bytes, (4 * (256 * 256 + 256) + 256 * 10 + 10) * 4);
  EXPECT_GT(baseline(g).peak, g.source_bytes());
}

}  // namespace
}  // namespace hiremate
