// Autograd end points that hold no tensor (env-notes §2, "executor design that gives exact memory").
// A tensor re-rooted on a sink (reroot()) is a non-leaf whose gradient ends in the sink instead of
// an AccumulateGrad: parameters' gradients are dropped at once (they are outside the graph's
// memory), a node's input gradients are captured as that node's backward outputs. Sinks carry the
// highest sequence number, like AccumulateGrad, so the engine runs them as soon as they are ready.
#pragma once
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/variable.h>

#include <cstdint>
#include <limits>
#include <memory>

namespace hiremate::torchbridge {

class GradSink final : public torch::autograd::Node {
 public:
  explicit GradSink(bool capture) : Node(std::numeric_limits<uint64_t>::max()), capture_(capture) {}
  torch::autograd::variable_list apply(torch::autograd::variable_list&& grads) override {
    if (capture_ && !grads.empty()) grad = grads[0];
    return {};
  }
  at::Tensor grad;  // the captured gradient (capture sinks only)
 private:
  bool capture_;
};

// A tensor sharing t's storage whose gradient ends in `sink` (one sink per tensor: a sink runs
// only when all its inputs are ready, so a shared sink would hold gradients back).
inline at::Tensor reroot(const at::Tensor& t, const std::shared_ptr<GradSink>& sink) {
  at::Tensor alias = t.detach();
  uint32_t nr = sink->add_input_metadata(alias);
  torch::autograd::impl::set_gradient_edge(alias, torch::autograd::Edge(sink, nr));
  return alias;
}

}  // namespace hiremate::torchbridge
