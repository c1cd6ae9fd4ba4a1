#include "hiremate/torch/interp.h"

#include <torch/csrc/jit/ir/constants.h>

#include "hiremate/common/error.h"

namespace hiremate::torchbridge {

using torch::jit::Node;
using torch::jit::Value;
namespace prim = c10::prim;

const c10::IValue& lookup(const Value* v, const Env& local, const Env* shared) {
  auto it = local.find(v);
  if (it != local.end()) return it->second;
  if (shared) {
    auto jt = shared->find(v);
    if (jt != shared->end()) return jt->second;
  }
  throw Error("internal: TorchScript value %" + v->debugName() + " has no value yet");
}

void collect_tensors(const c10::IValue& v, std::vector<at::Tensor>& out) {
  if (v.isTensor()) {
    out.push_back(v.toTensor());
  } else if (v.isList()) {
    for (const auto& e : v.toListRef()) collect_tensors(e, out);
  } else if (v.isTuple()) {
    for (const auto& e : v.toTupleRef().elements()) collect_tensors(e, out);
  }
}

Node* find_control_flow(torch::jit::Block* b) {
  for (Node* n : b->nodes()) {
    if (n->kind() == prim::If || n->kind() == prim::Loop) return n;
    for (auto* sub : n->blocks())
      if (Node* f = find_control_flow(sub)) return f;
  }
  return nullptr;
}

void Interpreter::run(Node* n, Env& local, const Env* shared) {
  auto in = [&](size_t i) -> const c10::IValue& { return lookup(n->input(i), local, shared); };
  switch (n->kind()) {
    case prim::Constant: {
      auto v = torch::jit::toIValue(n->output());
      if (!v) throw Error("internal: constant %" + n->output()->debugName() + " has no value");
      local[n->output()] = *v;
      return;
    }
    case prim::GetAttr:
      local[n->output()] = in(0).toObject()->getAttr(n->s(c10::attr::name));
      return;
    case prim::ListConstruct: {
      auto elem = n->output()->type()->expectRef<c10::ListType>().getElementType();
      c10::impl::GenericList list(elem);
      list.reserve(n->inputs().size());
      for (size_t i = 0; i < n->inputs().size(); ++i) list.push_back(in(i));
      local[n->output()] = c10::IValue(list);
      return;
    }
    case prim::ListUnpack: {
      auto list = in(0).toListRef();
      if (list.size() != n->outputs().size())
        throw Error("internal: ListUnpack of " + std::to_string(list.size()) + " elements into " +
                    std::to_string(n->outputs().size()));
      for (size_t i = 0; i < list.size(); ++i) local[n->output(i)] = list[i];
      return;
    }
    case prim::TupleConstruct: {
      std::vector<c10::IValue> elems;
      for (size_t i = 0; i < n->inputs().size(); ++i) elems.push_back(in(i));
      local[n->output()] = c10::ivalue::Tuple::create(std::move(elems));
      return;
    }
    case prim::TupleUnpack: {
      const auto& elems = in(0).toTupleRef().elements();
      for (size_t i = 0; i < n->outputs().size(); ++i) local[n->output(i)] = elems[i];
      return;
    }
    default:
      break;
  }
  auto it = ops_.find(n);
  if (it == ops_.end()) it = ops_.emplace(n, n->getOperation()).first;
  torch::jit::Stack stack;
  stack.reserve(n->inputs().size());
  for (size_t i = 0; i < n->inputs().size(); ++i) stack.push_back(in(i));
  it->second(stack);
  if (stack.size() != n->outputs().size())
    throw Error(std::string("internal: ") + n->kind().toQualString() + " returned " +
                std::to_string(stack.size()) + " values for " + std::to_string(n->outputs().size()) + " outputs");
  for (size_t i = 0; i < stack.size(); ++i) local[n->output(i)] = std::move(stack[i]);
}

}  // namespace hiremate::torchbridge
