// Capture (research/hiremate.md §2.1-2.3, 2.6): a traced TorchScript module becomes a list of
// groups, each one real computation (a node that allocates new storage) plus the views, in-place
// updates and size arithmetic hanging on its storage. Memory is per storage: views never count.
//
// How: copy the forward graph, Inline, EliminateDeadCode, RemoveTensorMutation; then run it once
// on the example inputs, node by node, with autograd on, and classify each node by what it did:
//  - static: constants, module attributes, non-tensor values (the trace fixed every shape, so size
//    arithmetic is folded) and tensors computed from statics alone without grad: the init step;
//  - a new group: it allocated storage (or mutates storage while reading several groups);
//  - attached to group G: it only aliases storage and reads G (views, split, unpacking);
//  - inlined: it only aliases and reads several groups or the inputs, or views a parameter;
//    free to run, it is copied into each group that uses it.
#pragma once
#include <torch/script.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "hiremate/torch/interp.h"
#include "hiremate/torch/sinks.h"

namespace hiremate::torchbridge {

// Whose a group input is: a group id (>= 0) or a model input (source_of(k) = -1 - k).
inline int source_of(int k) { return -1 - k; }

struct Group {
  std::vector<torch::jit::Node*> own;    // its nodes, the main (allocating) node first
  std::vector<torch::jit::Node*> code;   // own nodes plus inlined ones, in run order
  std::vector<const torch::jit::Value*> inputs;   // values from other groups or model inputs
  std::vector<int> input_owner;                   // per input: group id or source_of(k)
  std::vector<const torch::jit::Value*> exports;  // its values read by other groups or the output
  bool requires_grad = false;  // some export requires grad
  std::string ops, shapes, signature;
};

struct Capture {
  torch::jit::Module module;
  std::shared_ptr<torch::jit::Graph> graph;  // the inlined, mutation-free forward graph
  Env statics;   // constants, attributes (parameters re-rooted on drop sinks), folded values
  Env values;    // the value of every model input and group value from the capture run (detached)
  std::unordered_map<const torch::jit::Value*, bool> requires_grad;
  std::vector<Group> groups;
  std::vector<const torch::jit::Value*> sources;  // model inputs (graph inputs after self)
  const torch::jit::Value* loss = nullptr;
  int loss_group = -1;
  size_t torchscript_nodes = 0;
  int64_t parameter_bytes = 0, static_bytes = 0;
  std::vector<const c10::StorageImpl*> static_storages;
  std::vector<std::shared_ptr<GradSink>> param_sinks;  // kept alive with the aliases
};

// Throws BadInput for control flow, a non-scalar loss, or inputs that do not fit forward().
// With `any_output`, forward() may return any one tensor that requires grad (the Python wrapper
// seeds its gradient from outside); `loss` is then that output, and a tuple is refused.
std::unique_ptr<Capture> capture(torch::jit::Module module, const std::vector<c10::IValue>& inputs,
                                 const std::string& origin, bool any_output = false);

// A short description of an IValue's type and shape, never its data ("T[4,64]{64,1}+0:Float:rg").
std::string describe(const c10::IValue& v, bool with_grad = true);

}  // namespace hiremate::torchbridge

namespace hiremate::torchbridge {

// torch::jit::load with a readable BadInput; inputs: a list (or tuple, or one tensor) saved by
// torch.save. Both are moved to `device` when given.
torch::jit::Module load_module(const std::string& path);
std::vector<c10::IValue> load_inputs(const std::string& path);
// The device of the first input tensor (CPU when none): it selects the CPU or the CUDA path.
c10::Device input_device(const std::vector<c10::IValue>& inputs);

}  // namespace hiremate::torchbridge
