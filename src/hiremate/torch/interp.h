// A node-by-node TorchScript interpreter (env-notes §2 (ii)-(iv)): aten ops run through
// Node::getOperation(); the prim container ops, which are interpreter instructions in torch 1.13
// and not operators, are written by hand. Values live in an Env keyed by Value*.
#pragma once
#include <torch/csrc/jit/ir/ir.h>

#include <unordered_map>
#include <vector>

namespace hiremate::torchbridge {

using Env = std::unordered_map<const torch::jit::Value*, c10::IValue>;

// The value of v: first in `local`, then in `shared` (statics); throws if in neither.
const c10::IValue& lookup(const torch::jit::Value* v, const Env& local, const Env* shared);

// Runs one node: reads its inputs from local/shared, writes its outputs into local.
// Operations are cached per node (getOperation is not free).
class Interpreter {
 public:
  void run(torch::jit::Node* n, Env& local, const Env* shared = nullptr);
 private:
  std::unordered_map<torch::jit::Node*, torch::jit::Operation> ops_;
};

// Every tensor inside an IValue (a tensor, or lists and tuples of them, recursively).
void collect_tensors(const c10::IValue& v, std::vector<at::Tensor>& out);

// The first prim::If / prim::Loop (also inside blocks), or nullptr.
torch::jit::Node* find_control_flow(torch::jit::Block* b);

}  // namespace hiremate::torchbridge
