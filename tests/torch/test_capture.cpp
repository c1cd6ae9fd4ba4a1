// Capture on small models, one feature each (tests/torch/make_models.py): the graph is valid,
// views are free, features are grouped as expected; control flow is rejected with advice.
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

// The captured forward nodes with their info (ops, shapes), in order.
std::vector<std::pair<const ComputeNode*, torchbridge::NodeInfo>> forwards(const torchbridge::ProfiledModel& pm) {
  std::vector<std::pair<const ComputeNode*, torchbridge::NodeInfo>> out;
  for (const auto& info : pm.info) out.emplace_back(&pm.graph.compute.at(*pm.graph.find_compute(info.node)), info);
  return out;
}

int64_t bytes_of(const Graph& g, const std::string& data_name) { return g.data.at(*g.find_data(data_name)).bytes; }

TEST(TorchCapture, MlpHasOneForwardPerLayerAndALoss) {
  const auto& pm = profiled("mlp");
  const Graph& g = pm.graph;
  EXPECT_EQ(count_kind(g, ComputeKind::Forward), 10);  // 4 x (linear, relu), head, cross_entropy
  EXPECT_EQ(count_kind(g, ComputeKind::Loss), 1);
  EXPECT_EQ(count_kind(g, ComputeKind::Backward), 10);
  EXPECT_EQ(pm.parameter_bytes, (4 * (256 * 256 + 256) + 256 * 10 + 10) * 4);
  EXPECT_EQ(g.source_bytes(), 64 * 256 * 4 + 64 * 8);
  // first linear (its input needs no grad), the 3 other 256->256 linears, relu, head, cross_entropy
  EXPECT_EQ(pm.signatures, 5u);
  // relu saves its output for its backward: its backward reads its own data.
  const auto& relu_bwd = g.compute.at(*g.find_compute("1.relu.bwd"));
  EXPECT_NE(std::find(relu_bwd.deps.begin(), relu_bwd.deps.end(), *g.find_data("1.relu")), relu_bwd.deps.end());
}

TEST(TorchCapture, ViewsSplitAndTransposesHangOnTheirStorage) {
  const auto& pm = profiled("views");
  auto fw = forwards(pm);
  ASSERT_FALSE(fw.empty());
  // qkv linear + split + unpack + 3 x (view, transpose) + the transpose of k: one node.
  EXPECT_EQ(fw[0].second.ops.rfind("linear+split", 0), 0u) << fw[0].second.ops;
  EXPECT_NE(fw[0].second.ops.find("transpose"), std::string::npos);
  EXPECT_EQ(bytes_of(pm.graph, fw[0].first->name), 8 * 32 * 192 * 4);  // the linear's storage, once
  for (const auto& [c, info] : fw) {
    for (const char* view : {"view", "transpose", "split", "ListUnpack"})
      EXPECT_NE(info.ops.rfind(view, 0), 0u) << "a view op became its own node: " << info.ops;
  }
  // q, k and v get free view nodes with their own gradients (joined by the split's backward).
  for (int k = 0; k < 3; ++k) {
    std::string view = fw[0].first->name + ".view" + std::to_string(k);
    EXPECT_EQ(bytes_of(pm.graph, view), 0);
    EXPECT_EQ(bytes_of(pm.graph, view + ".grad"), 8 * 32 * 64 * 4);
  }
  EXPECT_EQ(bytes_of(pm.graph, fw[0].first->name + ".grad"), 8 * 32 * 192 * 4);
}

TEST(TorchCapture, InPlaceOpsBecomeFunctional) {
  const auto& pm = profiled("inplace");
  for (const auto& [c, info] : forwards(pm)) EXPECT_EQ(info.ops.find('_'), std::string::npos) << info.ops;
  EXPECT_EQ(count_kind(pm.graph, ComputeKind::Forward), 9);  // 3 linear, add, relu, mul, sub, pow, mean
}

TEST(TorchCapture, TiedWeightsCountOnce) {
  const auto& pm = profiled("tied");
  EXPECT_EQ(pm.parameter_bytes, 100 * 32 * 4);
}

TEST(TorchCapture, DropoutKeepsItsMaskAsPhantoms) {
  const auto& pm = profiled("dropout");
  bool found = false;
  for (const auto& [c, info] : forwards(pm))
    if (info.ops == "dropout") {
      found = true;
      auto ph = pm.graph.phantoms_of(static_cast<NodeId>(c - pm.graph.compute.data()));
      ASSERT_NE(ph, kNone);
      EXPECT_GE(pm.graph.data[ph].bytes, 8 * 32 * 64);  // at least a byte per element
    }
  EXPECT_TRUE(found);
}

TEST(TorchCapture, MultiOutputOpsKeepAllTheirOutputs) {
  const auto& pm = profiled("multi_output");
  auto fw = forwards(pm);
  EXPECT_EQ(fw[0].second.ops, "linear+chunk+ListUnpack");
  bool found = false;
  for (const auto& [c, info] : fw)
    if (info.ops == "max") {
      found = true;
      EXPECT_EQ(bytes_of(pm.graph, c->name), 8 * 32 * 4 + 8 * 32 * 8);  // values (float) + indices (long)
    }
  EXPECT_TRUE(found);
}

TEST(TorchCapture, NonTensorOutputsAreIgnored) {
  const auto& pm = profiled("non_tensor_output");  // forward returns (loss, an int)
  EXPECT_EQ(count_kind(pm.graph, ComputeKind::Forward), 3);  // linear, tanh, sum
}

TEST(TorchCapture, ControlFlowIsRejectedWithAdvice) {
  try {
    torchbridge::profile_model(torchtest::model_path("control_flow"), torchtest::inputs_path("control_flow"));
    FAIL() << "a scripted loop was accepted";
  } catch (const BadInput& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("control flow"), std::string::npos) << msg;
    EXPECT_NE(msg.find("torch.jit.trace"), std::string::npos) << msg;
  }
}

TEST(TorchCapture, UnreadableFilesAreBadInput) {
  EXPECT_THROW(torchbridge::profile_model("/nonexistent.pt", torchtest::inputs_path("mlp")), BadInput);
  EXPECT_THROW(torchbridge::profile_model(torchtest::model_path("mlp"), "/nonexistent.pt"), BadInput);
  // inputs that do not fit forward(): the views model takes one input, mlp's file has two
  EXPECT_THROW(torchbridge::profile_model(torchtest::model_path("views"), torchtest::inputs_path("mlp")), BadInput);
}

}  // namespace
}  // namespace hiremate
