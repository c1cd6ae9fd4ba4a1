// The executor (research/hiremate.md §7, env-notes §2): runs a Schedule of the captured graph node
// by node on real tensors, one training step at a time.
//
// Storage model. Each group's exports live in `values_` (detached: our references pin storage,
// never autograd graphs). A forward that keeps phantoms runs with grad on inputs re-rooted on
// tensor-free capture sinks and keeps only its outputs' gradient edges (its autograd graph); any
// other forward runs without grad. Deleting a group's data evicts its storages (the StorageImpl's
// data pointer is dropped), so that a copy saved inside an autograd graph is freed with it, as the
// simulator assumes. Recomputing refills every earlier StorageImpl of the data with a non-owning
// pointer to the new storage: saved tensors and views of the old one read the new bytes.
#pragma once
#include <torch/csrc/autograd/function.h>

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "hiremate/graph/graph.h"
#include "hiremate/schedule/schedule.h"
#include "hiremate/torch/capture.h"

namespace hiremate::torchbridge {

// A parameter's gradient end point, called once per group backward that reaches the parameter.
// Two modes. Buffer mode (Executor::step, `target` unset): adds each gradient in place to `buffer`
// (allocated before the step, outside the measured activations; undefined: the gradient is dropped).
// Delivery mode (the Python wrapper, `target` set to the module parameter's own AccumulateGrad):
// the gradient goes through that node, so that .grad, tensor hooks and the post hooks of
// DistributedDataParallel's reducer see it as in plain PyTorch. When nothing is hooked, each
// contribution goes straight in (AccumulateGrad adds it to .grad: no extra bytes). When something
// is hooked, the contributions of the step are summed first and delivered once, after the last
// group that uses the parameter (`remaining` counts them down), as autograd's engine sums a
// parameter's gradient before its AccumulateGrad runs.
class AccumulateSink final : public torch::autograd::Node {
 public:
  explicit AccumulateSink(at::Tensor buffer);
  torch::autograd::variable_list apply(torch::autograd::variable_list&& grads) override;
  // Delivery mode for one step: `node` is the parameter's AccumulateGrad (null: drop gradients).
  void begin_delivery(std::shared_ptr<torch::autograd::Node> node, const at::Tensor& param);
  // Delivers what is still summed (a group that reads the parameter but sent it no gradient), then
  // leaves delivery mode.
  void end_delivery();
  // Leaves delivery mode, dropping what is summed (a step that failed).
  void stop_delivery();
  at::Tensor buffer;
  int uses = 0;  // groups with a backward that read the parameter: contributions per step at most

 private:
  void deliver(at::Tensor g);
  std::shared_ptr<torch::autograd::Node> target_;
  bool hooked_ = false;
  int remaining_ = 0;
  at::Tensor pending_;
};

struct Parameter {
  at::Tensor value;  // shares the module parameter's storage; its gradient goes to `sink`
  std::shared_ptr<AccumulateSink> sink;
};

class Executor {
 public:
  // `cap` and `g` (built from cap by profile_capture) must outlive the executor.
  Executor(const Capture& cap, const Graph& g);
  ~Executor();

  // One step: runs every op; parameter gradients accumulate into parameters()[k].sink->buffer.
  // Returns the loss.
  double step(const Schedule& s);

  // The two halves of a step, for a caller that owns what comes after the model's output (the
  // Python wrapper's autograd.Function, research/hiremate.md §1.3). forward_half runs the ops
  // before the loss marker on `inputs` (shaped as the capture's) and returns the output, an alias
  // the caller may keep: the executor only drops its own references to the output, never evicts
  // it. backward_half seeds the output's gradient with `grad` (ones for loss.backward()), runs the
  // rest, ends the step and drops the inputs. A forward_half whose backward_half never came is
  // abandoned by the next forward_half. Throws Error when the schedule has no loss marker.
  at::Tensor forward_half(const Schedule& s, const std::vector<c10::IValue>& inputs);
  void backward_half(const Schedule& s, const at::Tensor& grad);
  bool in_step() const { return half_done_; }
  std::vector<Parameter>& parameters() { return params_; }
  // Bytes alive after each op of the last step and the peak during it (filled when trace is set;
  // the counter's peak is then reset per op): to set beside the simulator's timeline.
  // trace_cpu: the process CPU seconds each op of the last step took, in sequence (issue 21: beside
  // the profile's per-op times, measured per group in isolation).
  bool trace = false;
  std::vector<int64_t> trace_after, trace_during;
  std::vector<double> trace_cpu;

 private:
  struct Role;
  struct GroupState;
  void forward(int i, bool keep_phantoms);
  void backward(int i);
  void seed_loss();
  void count_draws();
  void order_rng();
  void delete_data(NodeId d);
  void clear_step();

  const Capture& cap_;
  const Graph& g_;
  Interpreter interp_;
  Env statics_;                      // cap's statics with parameters on accumulating sinks
  std::vector<Parameter> params_;
  Env values_;                       // resident exports and the model inputs
  std::unordered_map<const torch::jit::Value*, std::vector<at::Tensor>> grads_;  // per flattened tensor
  std::vector<Role> compute_role_, data_role_;
  std::vector<GroupState> groups_;
  std::vector<bool> need_grad_, has_phantoms_;
  double loss_ = 0;
  bool half_done_ = false;       // forward_half ran, its backward_half has not
  bool external_output_ = false; // the caller holds the output: never evict its storage
};

}  // namespace hiremate::torchbridge
