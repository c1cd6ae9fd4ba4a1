#include "hiremate/torch/group_backward.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/engine.h>
#include <torch/csrc/autograd/function.h>

#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "hiremate/common/error.h"

namespace hiremate::torchbridge {
namespace {

using torch::autograd::Edge;
using torch::autograd::edge_list;
using torch::autograd::Node;
using torch::autograd::variable_list;

// InputBuffer::add of torch 1.13: the first gradient is moved in; later ones are added in place
// when the buffer holds the only reference to a dense tensor and its storage, else out of place.
void add(variable_list& buffer, size_t pos, at::Tensor&& var) {
  if (!var.defined()) return;
  at::Tensor& old = buffer[pos];
  if (!old.defined()) {
    old = std::move(var);
  } else if (!old.is_sparse() && !var.is_sparse() && !old._is_zerotensor() && old.is_non_overlapping_and_dense() &&
             old.use_count() == 1 && old.has_storage() && old.storage().use_count() == 1) {
    old.add_(var);
  } else {
    old = old + var;
  }
}

// The engine's validate_outputs for CPU dense tensors: each gradient takes its consumer's shape
// (a broadcast input's gradient is summed back) and dtype.
void validate(const edge_list& edges, variable_list& grads, const Node* fn) {
  if (edges.size() != grads.size())
    throw Error(std::string("internal: ") + (fn ? fn->name() : "the roots") + " gave " + std::to_string(grads.size()) +
                " gradients for " + std::to_string(edges.size()) + " edges");
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!edges[i].is_valid() || !grads[i].defined()) continue;
    at::Tensor& g = grads[i];
    const auto& meta = edges[i].function->input_metadata(edges[i].input_nr);
    if (!meta.is_same_shape(g)) {
      if (!meta.is_expandable_to_shape(g))
        throw Error(std::string("internal: ") + (fn ? fn->name() : "a root") + " gave gradient " +
                    std::to_string(i) + " a shape its consumer does not expect");
      g = meta.reduce_grad(g);
    }
    auto dtype = c10::typeMetaToScalarType(meta.options().dtype());
    if (g.scalar_type() != dtype) g = g.to(dtype);
    if (g.device() != meta.device()) {
      if (g.dim() != 0) throw Error("internal: a gradient on another device than its consumer");
      g = g.to(meta.device());
    }
  }
}

struct Task {
  std::shared_ptr<Node> fn;
  variable_list inputs;
};
struct Later {  // the engine's ready queue: the highest sequence number first
  static uint64_t nr(const Task& t) { return t.fn ? t.fn->sequence_nr() : 0; }
  bool operator()(const Task& a, const Task& b) const { return nr(a) < nr(b); }
};

// call_function of the engine: the inputs are freed before the caller releases the saved variables.
variable_list call(Node& fn, variable_list inputs) {
  fn.will_release_variables();
  variable_list outputs = fn(std::move(inputs));
  validate(fn.next_edges(), outputs, &fn);
  return outputs;
}

}  // namespace

void run_backward(const edge_list& roots, variable_list grads) {
  // Dependencies: how many edges of the graph reach each node (the roots' count as one each).
  std::unordered_map<Node*, int> deps;
  std::vector<Node*> stack;
  bool hooks = false;
  auto visit = [&](Node* n) {
    if (deps[n]++ == 0) stack.push_back(n);
  };
  for (const Edge& e : roots)
    if (e.is_valid()) visit(e.function.get());
  while (!stack.empty()) {
    Node* fn = stack.back();
    stack.pop_back();
    hooks |= !fn->pre_hooks().empty() || !fn->post_hooks().empty();
    for (const Edge& next : fn->next_edges())
      if (next.is_valid()) visit(next.function.get());
  }
  if (hooks) {
    torch::autograd::Engine::get_default_engine().execute(roots, grads, /*keep_graph=*/false, /*create_graph=*/false,
                                                          /*accumulate_grad=*/true);
    return;
  }

  at::NoGradGuard no_grad;  // create_graph = false
  validate(roots, grads, nullptr);
  std::unordered_map<Node*, variable_list> waiting;  // input buffers of nodes not yet ready
  std::priority_queue<Task, std::vector<Task>, Later> ready;
  auto deliver = [&](const Edge& next, at::Tensor&& grad) {
    Node* n = next.function.get();
    auto it = waiting.find(n);
    if (it == waiting.end()) it = waiting.emplace(n, variable_list(n->num_inputs())).first;
    add(it->second, next.input_nr, std::move(grad));
    if (--deps.at(n) == 0) {
      ready.push({next.function, std::move(it->second)});
      waiting.erase(it);
    }
  };
  for (size_t k = 0; k < roots.size(); ++k)  // what the engine's GraphRoot does
    if (roots[k].is_valid()) deliver(roots[k], at::Tensor(grads[k]));
  while (!ready.empty()) {
    Task t = std::move(const_cast<Task&>(ready.top()));  // pop() only moves the moved-from task away
    ready.pop();
    variable_list outputs = call(*t.fn, std::move(t.inputs));
    t.fn->release_variables();
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Edge& next = t.fn->next_edge(i);
      if (next.is_valid()) deliver(next, std::move(outputs[i]));
    }
  }
  if (!waiting.empty()) throw Error("internal: a backward node never received all its gradients");
}

}  // namespace hiremate::torchbridge
