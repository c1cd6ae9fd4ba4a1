#include "hiremate/torch/capture.h"

#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/passes/remove_mutation.h>

#include <functional>
#include <set>
#include <sstream>
#include <unordered_set>

#include "hiremate/common/error.h"

namespace hiremate::torchbridge {

using torch::jit::Node;
using torch::jit::Value;

namespace {

enum class Cls { Static, Source, Group, Inline };
struct ValueInfo {
  Cls cls = Cls::Static;
  int group = -1;             // Group: the owner; Source: the input index
  std::set<int> deps;         // Inline: groups and sources (source_of(k)) it reads
};
constexpr int kStaticOwner = -1000000;

c10::IValue detach_all(const c10::IValue& v) {
  if (v.isTensor()) return v.toTensor().defined() ? c10::IValue(v.toTensor().detach()) : v;
  if (v.isList()) {
    auto list = v.toList();
    c10::impl::GenericList out(list.elementType());
    for (const auto& e : v.toListRef()) out.push_back(detach_all(e));
    return out;
  }
  if (v.isTuple()) {
    std::vector<c10::IValue> elems;
    for (const auto& e : v.toTupleRef().elements()) elems.push_back(detach_all(e));
    return c10::ivalue::Tuple::create(std::move(elems));
  }
  return v;
}

std::string short_kind(const Node* n) {
  std::string s = n->kind().toQualString();
  for (const char* p : {"aten::", "prim::"})
    if (s.rfind(p, 0) == 0) return s.substr(std::string(p).size());
  return s;
}

// An in-place update whose target nothing else reads (ResNet's `out += identity` after the last
// batch norm; RemoveTensorMutation leaves some) becomes its functional op: a group then never
// writes another group's storage, so deleting and recomputing groups stays independent.
void functionalize_sole_updates(torch::jit::Graph& graph) {
  std::vector<Node*> todo;
  for (Node* n : graph.nodes()) {
    std::string kind = n->kind().toQualString();
    if (kind.rfind("aten::", 0) != 0 || kind.back() != '_' || kind.size() < 8 || n->inputs().empty()) continue;
    Value* target = n->input(0);
    Node* producer = target->node();
    if (target->uses().size() != 1 || producer->kind() == c10::prim::Param || producer->kind() == c10::prim::GetAttr)
      continue;
    todo.push_back(n);
  }
  for (Node* n : todo) {
    std::string kind = n->kind().toQualString();
    Node* f = graph.create(c10::Symbol::fromQualString(kind.substr(0, kind.size() - 1)), n->inputs(), 1);
    f->insertBefore(n);
    if (!f->maybeSchema()) {  // no functional twin: keep the update
      f->destroy();
      continue;
    }
    f->output()->setType(n->output()->type());
    n->output()->replaceAllUsesWith(f->output());
    n->destroy();
  }
}

}  // namespace

std::string describe(const c10::IValue& v, bool with_grad) {
  std::ostringstream os;
  if (v.isTensor()) {
    const auto& t = v.toTensor();
    if (!t.defined()) return "T(undef)";
    os << "T" << t.sizes() << "{";
    for (size_t i = 0; i < t.strides().size(); ++i) os << (i ? "," : "") << t.strides()[i];
    os << "}+" << t.storage_offset() << ":" << t.scalar_type();
    if (t.device().type() != c10::DeviceType::CPU) os << ":" << t.device();
    if (with_grad && t.requires_grad()) os << ":rg";
  } else if (v.isList() || v.isTuple()) {
    os << (v.isList() ? "L(" : "U(");
    auto elems = v.isList() ? v.toListRef().vec() : v.toTupleRef().elements().vec();
    for (size_t i = 0; i < elems.size(); ++i) os << (i ? "," : "") << describe(elems[i], with_grad);
    os << ")";
  } else if (v.isObject()) {
    os << "Obj";
  } else {
    os << v;
  }
  return os.str();
}

std::unique_ptr<Capture> capture(torch::jit::Module module, const std::vector<c10::IValue>& inputs,
                                 const std::string& origin, bool any_output) {
  auto cap = std::make_unique<Capture>();
  cap->module = module;
  if (!module.find_method("forward"))
    throw BadInput(origin + ": the module has no forward method; save a traced module (torch.jit.trace)");
  auto graph = module.get_method("forward").graph()->copy();
  torch::jit::Inline(*graph);
  torch::jit::EliminateDeadCode(graph);
  if (Node* cf = find_control_flow(graph->block())) {
    std::ostringstream where;
    where << *cf;
    std::string line = where.str().substr(0, where.str().find('\n'));
    throw BadInput(origin + ": the model has control flow (" + line.substr(0, 160) +
                   "); hiremate needs a straight-line graph: trace the model with torch.jit.trace "
                   "instead of scripting it");
  }
  torch::jit::RemoveTensorMutation(graph);
  functionalize_sole_updates(*graph);
  torch::jit::EliminateDeadCode(graph);
  cap->graph = graph;
  if (graph->inputs().size() != inputs.size() + 1)
    throw BadInput(origin + ": forward() takes " + std::to_string(graph->inputs().size() - 1) + " inputs but " +
                   std::to_string(inputs.size()) + " were given; save the inputs as a list in forward()'s order");

  std::unordered_map<const Value*, ValueInfo> info;
  std::unordered_map<const c10::StorageImpl*, int> owner;  // storage -> group, source_of(k), kStaticOwner
  std::unordered_map<const c10::TensorImpl*, at::Tensor> param_alias;
  auto storage_of = [](const at::Tensor& t) { return t.storage().unsafeGetStorageImpl(); };
  auto add_static_storage = [&](const at::Tensor& t) {
    if (t.defined() && t.has_storage() && owner.emplace(storage_of(t), kStaticOwner).second) {
      cap->static_storages.push_back(storage_of(t));
      return true;
    }
    return false;
  };

  Env live;  // every non-static value of the capture run, with its autograd history
  cap->statics[graph->inputs()[0]] = module._ivalue();
  info[graph->inputs()[0]] = {Cls::Static, -1, {}};
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Value* v = graph->inputs()[k + 1];
    cap->sources.push_back(v);
    live[v] = inputs[k];
    info[v] = {Cls::Source, static_cast<int>(k), {}};
    std::vector<at::Tensor> ts;
    collect_tensors(inputs[k], ts);
    bool rg = false;
    for (auto& t : ts)
      if (t.defined()) {
        owner.emplace(storage_of(t), source_of(static_cast<int>(k)));
        rg |= t.requires_grad();
      }
    cap->requires_grad[v] = rg;
  }

  torch::AutoGradMode grad_on(true);
  Interpreter interp;
  for (Node* n : graph->nodes()) {
    ++cap->torchscript_nodes;
    interp.run(n, live, &cap->statics);
    auto to_static = [&] {
      for (const Value* o : n->outputs()) {
        cap->statics[o] = live[o];
        live.erase(o);
        info[o] = {Cls::Static, -1, {}};
      }
    };
    if (n->kind() == c10::prim::Constant) {
      to_static();
      continue;
    }
    if (n->kind() == c10::prim::GetAttr) {
      c10::IValue& v = live[n->output()];
      if (v.isTensor() && v.toTensor().defined()) {
        const at::Tensor& t = v.toTensor();
        if (t.requires_grad()) {  // a parameter: its gradient goes to a drop sink (outside the graph)
          auto it = param_alias.find(t.unsafeGetTensorImpl());
          if (it == param_alias.end()) {
            auto sink = std::make_shared<GradSink>(false);
            cap->param_sinks.push_back(sink);
            it = param_alias.emplace(t.unsafeGetTensorImpl(), reroot(t, sink)).first;
            if (add_static_storage(t)) cap->parameter_bytes += t.storage().nbytes();
          }
          v = it->second;
        } else {
          add_static_storage(t);
        }
      }
      to_static();
      continue;
    }
    std::vector<at::Tensor> outs;
    bool any_rg = false;
    for (const Value* o : n->outputs()) {
      std::vector<at::Tensor> ts;
      collect_tensors(live[o], ts);
      bool rg = false;
      for (auto& t : ts)
        if (t.defined()) {
          rg |= t.requires_grad();
          outs.push_back(t);
        }
      cap->requires_grad[o] = rg;
      any_rg |= rg;
    }
    if (outs.empty()) {  // sizes, ints, devices: fixed by the trace, folded
      to_static();
      continue;
    }
    std::set<int> deps;
    for (const Value* in : n->inputs()) {
      const ValueInfo& vi = info.at(in);
      if (vi.cls == Cls::Source) deps.insert(source_of(vi.group));
      if (vi.cls == Cls::Group) deps.insert(vi.group);
      if (vi.cls == Cls::Inline) deps.insert(vi.deps.begin(), vi.deps.end());
    }
    bool new_storage = false;
    for (auto& t : outs)
      if (t.has_storage() && !owner.count(storage_of(t))) new_storage = true;
    if (deps.empty() && !any_rg) {  // computed from constants alone: the init step
      for (auto& t : outs)
        if (add_static_storage(t)) cap->static_bytes += t.storage().nbytes();
      to_static();
      continue;
    }
    const auto* schema = n->maybeSchema();
    bool mutates = schema && schema->is_mutable();
    bool one_group = deps.size() == 1 && *deps.begin() >= 0;
    if (new_storage || (mutates && !one_group)) {
      int g = static_cast<int>(cap->groups.size());
      cap->groups.emplace_back();
      cap->groups.back().own.push_back(n);
      for (auto& t : outs)
        if (t.has_storage()) owner.emplace(storage_of(t), g);
      for (const Value* o : n->outputs()) info[o] = {Cls::Group, g, {}};
    } else if (one_group) {
      int g = *deps.begin();
      cap->groups[g].own.push_back(n);
      for (const Value* o : n->outputs()) info[o] = {Cls::Group, g, {}};
    } else {
      for (const Value* o : n->outputs()) info[o] = {Cls::Inline, -1, deps};
    }
  }

  // The loss: the output, or the first element of an output tuple.
  const Value* loss = graph->outputs()[0];
  if (loss->node()->kind() == c10::prim::TupleConstruct && !any_output) loss = loss->node()->input(0);
  auto lit = info.find(loss);
  auto got = [&] { return live.count(loss) ? describe(live[loss]) : std::string("a constant"); };
  if (any_output) {
    if (lit == info.end() || lit->second.cls != Cls::Group || !live[loss].isTensor() ||
        !live[loss].toTensor().requires_grad())
      throw BadInput(origin + ": forward() must return one tensor computed from the parameters (it requires grad): "
                     "the loss, or an output whose loss is computed outside; got " + got() +
                     "; return a single tensor (wrap the model in a module that does)");
  } else if (lit == info.end() || lit->second.cls != Cls::Group || !live[loss].isTensor() ||
             live[loss].toTensor().numel() != 1 || !live[loss].toTensor().requires_grad()) {
    throw BadInput(origin + ": forward() must return the scalar loss (a one-element tensor that requires grad), "
                   "or a tuple whose first element is it; got " + got());
  }
  cap->loss = loss;
  cap->loss_group = lit->second.group;

  // Each group's code: its own nodes, preceded by the inlined nodes they read; inputs and exports.
  for (size_t g = 0; g < cap->groups.size(); ++g) {
    Group& grp = cap->groups[g];
    std::unordered_set<const Node*> in_code;
    std::function<void(const Value*)> need = [&](const Value* v) {
      const ValueInfo& vi = info.at(v);
      if (vi.cls == Cls::Static || (vi.cls == Cls::Group && vi.group == static_cast<int>(g))) return;
      if (vi.cls == Cls::Inline) {
        Node* p = const_cast<Value*>(v)->node();
        if (in_code.count(p)) return;
        for (const Value* in : p->inputs()) need(in);
        grp.code.push_back(p);
        in_code.insert(p);
        return;
      }
      for (const Value* x : grp.inputs)
        if (x == v) return;
      grp.inputs.push_back(v);
      grp.input_owner.push_back(vi.cls == Cls::Source ? source_of(vi.group) : vi.group);
    };
    for (Node* n : grp.own) {
      for (const Value* in : n->inputs()) need(in);
      grp.code.push_back(n);
      in_code.insert(n);
    }
  }
  auto add_export = [&](int g, const Value* v) {
    auto& ex = cap->groups[g].exports;
    if (std::find(ex.begin(), ex.end(), v) == ex.end()) ex.push_back(v);
  };
  for (const Group& grp : cap->groups)
    for (size_t i = 0; i < grp.inputs.size(); ++i)
      if (grp.input_owner[i] >= 0) add_export(grp.input_owner[i], grp.inputs[i]);
  add_export(cap->loss_group, loss);

  // Keep the values that isolated runs start from, without their autograd history.
  for (auto& [v, val] : live) {
    auto it = info.find(v);
    if (it != info.end() && (it->second.cls == Cls::Source || it->second.cls == Cls::Group))
      cap->values[v] = detach_all(val);
  }
  live.clear();

  for (Group& grp : cap->groups) {
    for (const Value* v : grp.exports) grp.requires_grad |= cap->requires_grad[v];
    std::ostringstream ops, shapes, sig;
    for (size_t i = 0; i < grp.own.size(); ++i) ops << (i ? "+" : "") << short_kind(grp.own[i]);
    for (size_t i = 0; i < grp.exports.size(); ++i) {
      const auto& val = cap->values.at(grp.exports[i]);
      if (val.isTensor())
        shapes << (i ? " " : "") << val.toTensor().sizes();
      else
        shapes << (i ? " " : "") << describe(val, false);
    }
    // The signature: inputs (layout, grad, shared storages), code over local names, exports.
    std::unordered_map<const Value*, std::string> local;
    std::vector<const c10::StorageImpl*> seen;
    for (size_t i = 0; i < grp.inputs.size(); ++i) {
      const auto& val = cap->values.at(grp.inputs[i]);
      sig << "in" << i << "=" << describe(val) << (cap->requires_grad[grp.inputs[i]] ? ":rg" : "");
      std::vector<at::Tensor> ts;
      collect_tensors(val, ts);
      for (auto& t : ts) {
        if (!t.defined() || !t.has_storage()) continue;
        auto s = t.storage().unsafeGetStorageImpl();
        auto it = std::find(seen.begin(), seen.end(), s);
        sig << "@" << (it - seen.begin());
        if (it == seen.end()) seen.push_back(s);
      }
      sig << ";";
      local[grp.inputs[i]] = "$" + std::to_string(i);
    }
    int counter = 0;
    for (const Node* n : grp.code) {
      sig << n->kind().toQualString() << "(";
      for (const Value* in : n->inputs()) {
        auto it = local.find(in);
        sig << (it != local.end() ? it->second : describe(cap->statics.at(in))) << ",";
      }
      sig << ")->";
      for (const Value* o : n->outputs()) {
        local[o] = "%" + std::to_string(counter++);
        sig << local[o] << ",";
      }
      sig << ";";
    }
    sig << "out:";
    for (const Value* v : grp.exports) sig << local.at(v) << (cap->requires_grad[v] ? "g" : "") << ",";
    grp.ops = ops.str();
    grp.shapes = shapes.str();
    grp.signature = sig.str();
  }
  return cap;
}

}  // namespace hiremate::torchbridge
