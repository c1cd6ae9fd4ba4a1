// The profile's charges for what a node holds in a step beyond its isolated run (measure.cpp,
// profile.cpp): a forward recomputed without grad holds what the grad forward saves as a
// transient, and a backward whose input gradient another producer filled first holds its own
// contribution beside it until it is added in. The executor tests check the resulting peaks.
#include <gtest/gtest.h>

#include "torch_test_util.h"

namespace hiremate {
namespace {

using torchtest::profiled;

const ComputeNode& node(const Graph& g, const std::string& name) {
  auto id = g.find_compute(name);
  EXPECT_TRUE(id.has_value()) << name;
  return g.compute.at(*id);
}

TEST(TorchProfile, DropoutRecomputedWithoutGradHoldsItsMask) {
  const Graph& g = profiled("dropout").graph;
  for (NodeId c = 0; c < NodeId(g.compute.size()); ++c) {
    const auto& f = g.compute[c];
    if (f.kind != ComputeKind::Forward || f.name.find("dropout") == std::string::npos) continue;
    NodeId ph = g.phantoms_of(c);
    ASSERT_NE(ph, kNone);
    // Without grad the float mask is made, multiplied in and freed: a transient of its bytes.
    EXPECT_GE(f.overhead, g.data[ph].bytes) << f.name;
    return;
  }
  FAIL() << "no dropout node";
}

TEST(TorchProfile, BackwardsAccumulatingIntoAResidentGradientHoldTheirContribution) {
  const Graph& g = profiled("gpt2_small").graph;
  int residual_norms = 0;
  for (const auto& b : g.compute) {
    if (b.kind != ComputeKind::Backward) continue;
    bool add = b.name.find(".add.bwd") != std::string::npos;
    bool norm = b.name.find(".layer_norm.bwd") != std::string::npos;
    for (NodeId d : b.outputs) {
      if (g.data[d].producers.size() < 2) continue;
      // x + f(layer_norm(x)): the add's backward gives x its gradient first (passing its own on,
      // allocating nothing); the layer norm's, later, allocates its contribution beside it.
      if (add) {
        EXPECT_EQ(b.overhead, 0) << b.name << " runs first and passes its gradient on";
      }
      if (norm) {
        EXPECT_GE(b.overhead, g.data[d].bytes) << b.name << " adds into " << g.data[d].name;
        ++residual_norms;
      }
    }
  }
  EXPECT_GE(residual_norms, 4);  // two blocks, two norms each on the residual stream
  // The final norm's input gradient has a single producer: nothing to add into.
  EXPECT_LT(node(g, "35.layer_norm.bwd").overhead, node(g, "30.layer_norm.bwd").overhead);
}

}  // namespace
}  // namespace hiremate
