#include "hiremate/torch/executor.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/autograd/engine.h>

#include <algorithm>
#include <functional>
#include <iterator>
#include <limits>
#include <mutex>
#include <optional>
#include <unordered_set>

#include "hiremate/common/error.h"
#include "hiremate/torch/group_backward.h"
#include "hiremate/torch/measure.h"
#include "hiremate/torch/memory_counter.h"
#include "hiremate/torch/profile_capture.h"

namespace hiremate::torchbridge {

using torch::jit::Value;

struct Executor::Role {
  enum Kind { None, Forward, Backward, Loss, Data, Grad, Phantoms } kind = None;
  int group = -1;
};

namespace {

// Rebuilds v with f applied to each tensor (idx: its position in collect_tensors order).
c10::IValue map_tensors(const c10::IValue& v, size_t& idx, const std::function<at::Tensor(const at::Tensor&, size_t)>& f) {
  if (v.isTensor()) {
    size_t k = idx++;
    return v.toTensor().defined() ? c10::IValue(f(v.toTensor(), k)) : v;
  }
  if (v.isList()) {
    c10::impl::GenericList out(v.toList().elementType());
    for (const auto& e : v.toListRef()) out.push_back(map_tensors(e, idx, f));
    return out;
  }
  if (v.isTuple()) {
    std::vector<c10::IValue> elems;
    for (const auto& e : v.toTupleRef().elements()) elems.push_back(map_tensors(e, idx, f));
    return c10::ivalue::Tuple::create(std::move(elems));
  }
  return v;
}

bool random_op(const torch::jit::Node* n) {
  std::string k = n->kind().toQualString();
  for (const char* r : {"dropout", "bernoulli", "rand", "normal", "multinomial", "uniform"})
    if (k.find(r) != std::string::npos) return true;
  return false;
}

// Adds g into old as autograd's InputBuffer does: in place when a buffer is private and dense.
void accumulate_into(at::Tensor& old, at::Tensor g) {
  auto inplace_ok = [](const at::Tensor& t) {
    return t.is_non_overlapping_and_dense() && t.use_count() == 1 && t.storage().use_count() == 1;
  };
  if (!old.defined())
    old = std::move(g);
  else if (inplace_ok(old))
    old.add_(g);
  else if (inplace_ok(g))
    old = g.add_(old);
  else
    old = old + g;
}

void accumulate(std::vector<at::Tensor>& slots, size_t idx, at::Tensor g) {
  if (slots.size() <= idx) slots.resize(idx + 1);
  accumulate_into(slots[idx], std::move(g));
}

}  // namespace

AccumulateSink::AccumulateSink(at::Tensor b) : Node(std::numeric_limits<uint64_t>::max()), buffer(std::move(b)) {}

void AccumulateSink::begin_delivery(std::shared_ptr<torch::autograd::Node> node, const at::Tensor& param) {
  target_ = std::move(node);
  pending_ = at::Tensor();
  remaining_ = uses;
  hooked_ = target_ && (!target_->pre_hooks().empty() || !target_->post_hooks().empty() ||
                        !torch::autograd::impl::hooks(param).empty());
}

void AccumulateSink::end_delivery() {
  if (pending_.defined()) deliver(std::move(pending_));
  stop_delivery();
}

void AccumulateSink::stop_delivery() {
  pending_ = at::Tensor();
  target_.reset();
  hooked_ = false;
}

void AccumulateSink::deliver(at::Tensor g) {
  // Node hooks (DDP's reducer) run only inside the engine; AccumulateGrad::apply itself runs the
  // tensor's hooks and accumulates (stealing the tensor into an undefined .grad, as autograd does).
  if (target_->pre_hooks().empty() && target_->post_hooks().empty()) {
    (*target_)({std::move(g)});
    return;
  }
  torch::autograd::Engine::get_default_engine().execute({torch::autograd::Edge(target_, 0)}, {std::move(g)},
                                                        /*keep_graph=*/false, /*create_graph=*/false,
                                                        /*accumulate_grad=*/true);
}

torch::autograd::variable_list AccumulateSink::apply(torch::autograd::variable_list&& grads) {
  at::Tensor g = grads.empty() ? at::Tensor() : std::move(grads[0]);
  if (!target_) {
    if (g.defined() && buffer.defined()) buffer.add_(g);
    return {};
  }
  --remaining_;
  if (!hooked_) {
    if (g.defined()) deliver(std::move(g));
    return {};
  }
  if (g.defined()) accumulate_into(pending_, std::move(g));
  if (remaining_ <= 0 && pending_.defined()) deliver(std::move(pending_));
  return {};
}

namespace {

// The CPU generator's whole state, copied without tensors (get_state() would allocate counted bytes).
struct RngState {
  at::mt19937 engine;
  c10::optional<float> next_float;
  c10::optional<double> next_double;
};
at::CPUGeneratorImpl* cpu_generator() {
  return at::check_generator<at::CPUGeneratorImpl>(at::detail::getDefaultCPUGenerator());
}
RngState get_rng(at::CPUGeneratorImpl* g) {
  return {g->engine(), g->next_float_normal_sample(), g->next_double_normal_sample()};
}
void set_rng(at::CPUGeneratorImpl* g, const RngState& s) {
  g->set_engine(s.engine);
  g->set_next_float_normal_sample(s.next_float);
  g->set_next_double_normal_sample(s.next_double);
}

// Replays a group's generator state on recomputation (the same dropout mask), then restores the
// live state, so that the rest of the step draws what it would have drawn without recomputation.
struct RngGuard {
  at::CPUGeneratorImpl* gen = cpu_generator();
  std::optional<RngState> live;
  explicit RngGuard(std::optional<RngState>& saved) {
    std::lock_guard<std::mutex> lock(gen->mutex_);
    if (!saved) {
      saved = get_rng(gen);
    } else {
      live = get_rng(gen);
      set_rng(gen, *saved);
    }
  }
  ~RngGuard() {
    if (!live) return;
    std::lock_guard<std::mutex> lock(gen->mutex_);
    set_rng(gen, *live);
  }
};

// Engine draws from `from` to `to` (-1 when `to` is not reached within `limit` draws, or when the
// normal-sample caches differ: then the draws are not a count).
int64_t draws_between(const RngState& from, const RngState& to, int64_t limit = int64_t(1) << 30) {
  if (from.next_float != to.next_float || from.next_double != to.next_double) return -1;
  // `left_` counts down once per draw through a cycle of MERSENNE_STATE_N: only every N-th draw
  // from the first aligned one can match, so the (2.5 KB) state is compared once per cycle.
  constexpr int N = at::MERSENNE_STATE_N;
  at::mt19937 e = from.engine;
  const auto target = to.engine.data();
  int64_t n = ((e.data().left_ - target.left_) % N + N) % N;
  for (int64_t k = 0; k < n; ++k) e();
  for (; n <= limit; n += N) {
    auto d = e.data();
    if (d.left_ == target.left_ && d.next_ == target.next_ && d.state_ == target.state_) return n;
    for (int k = 0; k < N; ++k) e();
  }
  return -1;
}

}  // namespace

struct Executor::GroupState {
  struct Root {  // an export tensor's gradient edge: the group's autograd graph
    const Value* v;
    size_t idx;
    torch::autograd::Edge edge;
  };
  struct Input {  // an input tensor re-rooted on a capture sink
    const Value* v;
    size_t idx;
    std::shared_ptr<GradSink> sink;
  };
  std::vector<Root> roots;
  std::vector<Input> inputs;
  // Per storage the group allocates: every StorageImpl that held it this step (the first owner,
  // then each recomputation's); all of them are evicted together and refilled together.
  std::vector<std::vector<c10::Storage>> storages;
  bool random = false;                          // draws from the CPU generator (dropout)
  std::optional<RngState> rng;                  // the generator state at its first run this step
  int64_t draws = -1;                           // engine draws per run (-1: unknown, not a count)
  std::vector<at::Tensor> running_stats;        // batch-norm buffers it updates in place
  int runs = 0;                                 // forwards this step
};

Executor::Executor(const Capture& cap, const Graph& g) : cap_(cap), g_(g) {
  // Parameters: one accumulating sink per distinct alias (tied weights are one alias).
  statics_ = cap.statics;
  std::unordered_map<const c10::TensorImpl*, size_t> param_of;
  std::unordered_map<const Value*, size_t> param_value;
  for (auto& [v, iv] : statics_) {
    if (!iv.isTensor() || !iv.toTensor().defined() || !iv.toTensor().requires_grad()) continue;
    const at::Tensor& t = iv.toTensor();
    auto it = param_of.find(t.unsafeGetTensorImpl());
    if (it == param_of.end()) {
      torch::NoGradGuard no_grad;
      Parameter p;
      p.sink = std::make_shared<AccumulateSink>(at::zeros_like(t));
      p.value = t.detach();
      uint32_t nr = p.sink->add_input_metadata(p.value);
      torch::autograd::impl::set_gradient_edge(p.value, torch::autograd::Edge(p.sink, nr));
      it = param_of.emplace(t.unsafeGetTensorImpl(), params_.size()).first;
      params_.push_back(std::move(p));
    }
    iv = params_[it->second].value;
    param_value[v] = it->second;
  }
  for (const auto* v : cap.sources) values_[v] = cap.values.at(v);

  compute_role_.assign(g.compute.size(), {});
  data_role_.assign(g.data.size(), {});
  const size_t n = cap.groups.size();
  groups_.resize(n);
  need_grad_.assign(n, false);
  has_phantoms_.assign(n, false);
  auto set = [](std::vector<Role>& roles, std::optional<NodeId> id, Role::Kind k, int i) {
    if (id) roles[*id] = {k, i};
    return id.has_value();
  };
  for (size_t i = 0; i < n; ++i) {
    const Group& grp = cap.groups[i];
    std::string name = group_node_name(i, grp);
    int gi = static_cast<int>(i);
    if (!set(compute_role_, g.find_compute(name), Role::Forward, gi) || !set(data_role_, g.find_data(name), Role::Data, gi))
      throw Error("internal: the graph has no node " + name + " for captured group " + std::to_string(i));
    need_grad_[i] = set(compute_role_, g.find_compute(name + ".bwd"), Role::Backward, gi);
    set(data_role_, g.find_data(name + ".grad"), Role::Grad, gi);
    has_phantoms_[i] = set(data_role_, g.find_data(name + ".phantoms"), Role::Phantoms, gi);
    GroupState& st = groups_[i];
    for (auto* node : grp.code) {
      st.random |= random_op(node);
      auto kind = node->kind();
      if (kind == c10::Symbol::fromQualString("aten::batch_norm") || kind == c10::Symbol::fromQualString("aten::instance_norm"))
        for (size_t k : {3, 4}) {
          auto it = statics_.find(node->input(k));
          if (it != statics_.end() && it->second.isTensor() && it->second.toTensor().defined())
            st.running_stats.push_back(it->second.toTensor());
        }
    }
  }
  if (g.loss != kNone) compute_role_[g.loss] = {Role::Loss, cap.loss_group};
  // Per parameter, the groups with a backward that read it: its gradient's contributions per step.
  for (size_t i = 0; i < n; ++i) {
    if (!need_grad_[i]) continue;
    std::unordered_set<size_t> read;
    for (auto* node : cap.groups[i].code)
      for (const Value* in : node->inputs())
        if (auto it = param_value.find(in); it != param_value.end()) read.insert(it->second);
    for (size_t k : read) ++params_[k].sink->uses;
  }
  count_draws();
}

// How many generator draws each random group makes per run, measured once on the capture's values
// (the count depends on shapes only), so that order_rng() can hand every random group the state
// plain PyTorch would have at it, whatever order the schedule runs them in.
void Executor::count_draws() {
  at::CPUGeneratorImpl* gen = cpu_generator();
  for (size_t i = 0; i < groups_.size(); ++i) {
    GroupState& st = groups_[i];
    if (!st.random) continue;
    const Group& grp = cap_.groups[i];
    Env env;
    bool complete = true;
    for (const Value* v : grp.inputs) {
      auto it = cap_.values.find(v);
      if (it == cap_.values.end()) complete = false;
      else env[v] = it->second;
    }
    if (!complete) continue;
    torch::NoGradGuard no_grad;
    std::vector<at::Tensor> stats;
    for (auto& t : st.running_stats) stats.push_back(t.clone());
    auto locked = [&](auto f) {  // the random ops lock the generator themselves while they run
      std::lock_guard<std::mutex> lock(gen->mutex_);
      return f();
    };
    RngState before = locked([&] { return get_rng(gen); });
    try {
      for (auto* node : grp.code) interp_.run(node, env, &statics_);
      st.draws = draws_between(before, locked([&] { return get_rng(gen); }));
    } catch (const std::exception&) {
      st.draws = -1;
    }
    locked([&] {
      set_rng(gen, before);
      return 0;
    });
    for (size_t k = 0; k < stats.size(); ++k) st.running_stats[k].copy_(stats[k]);
  }
}

// Plain PyTorch draws in program order (the groups' order); a schedule may run random groups in
// another. When every random group's draws are known, each gets, before the step, the state it
// would have in program order, and the generator ends the step where plain PyTorch's would.
void Executor::order_rng() {
  bool any = false;
  for (const auto& st : groups_)
    if (st.random) {
      if (st.draws < 0) return;
      any = true;
    }
  if (!any) return;
  at::CPUGeneratorImpl* gen = cpu_generator();
  std::lock_guard<std::mutex> lock(gen->mutex_);
  at::mt19937 engine = gen->engine();
  for (auto& st : groups_) {
    if (!st.random) continue;
    st.rng = RngState{engine, gen->next_float_normal_sample(), gen->next_double_normal_sample()};
    for (int64_t n = 0; n < st.draws; ++n) engine();
  }
  gen->set_engine(engine);
}

Executor::~Executor() { clear_step(); }

void Executor::forward(int i, bool keep_phantoms) {
  const Group& grp = cap_.groups[i];
  GroupState& st = groups_[i];
  // A group without phantoms keeps nothing beyond its data: its autograd graph is always kept.
  bool with_grad = need_grad_[i] && (keep_phantoms || !has_phantoms_[i]);
  std::optional<RngGuard> rng;
  if (st.random) rng.emplace(st.rng);
  std::vector<at::Tensor> stats;  // running statistics are updated by the first run of the step only
  if (st.runs > 0) {
    torch::NoGradGuard no_grad;
    for (auto& t : st.running_stats) stats.push_back(t.clone());
  }
  if (with_grad) {  // a new autograd graph replaces the old one
    st.roots.clear();
    st.inputs.clear();
  }

  Env env;
  std::unordered_set<const c10::StorageImpl*> not_new;
  for (size_t k = 0; k < grp.inputs.size(); ++k) {
    const Value* v = grp.inputs[k];
    auto it = values_.find(v);
    if (it == values_.end())
      throw Error("internal: group " + std::to_string(i) + " reads %" + v->debugName() + " of group " +
                  std::to_string(grp.input_owner[k]) + ", which is not resident");
    int owner = grp.input_owner[k];
    bool rg = with_grad && owner >= 0 && need_grad_[owner] && cap_.requires_grad.at(v);
    size_t idx = 0;
    env[v] = map_tensors(it->second, idx, [&](const at::Tensor& t, size_t ti) {
      if (t.has_storage()) {
        not_new.insert(t.storage().unsafeGetStorageImpl());
        if (t.storage().nbytes() > 0 && !t.storage().data_ptr().get())
          throw Error("internal: group " + std::to_string(i) + " (" + grp.ops + ") reads %" + v->debugName() +
                      " of group " + std::to_string(owner) + ", whose storage was freed");
      }
      if (!rg || !(t.is_floating_point() || t.is_complex())) return t;
      auto sink = std::make_shared<GradSink>(true);
      st.inputs.push_back({v, ti, sink});
      return reroot(t, sink);
    });
  }
  {
    torch::AutoGradMode mode(with_grad);
    for (auto* node : grp.code) interp_.run(node, env, &statics_);
  }

  std::vector<c10::Storage> fresh;
  for (const Value* v : grp.exports) {
    size_t idx = 0;
    values_[v] = map_tensors(env.at(v), idx, [&](const at::Tensor& t, size_t ti) {
      if (with_grad && t.requires_grad()) st.roots.push_back({v, ti, torch::autograd::impl::gradient_edge(t)});
      if (t.has_storage()) {
        auto impl = t.storage().unsafeGetStorageImpl();
        bool is_static = std::find(cap_.static_storages.begin(), cap_.static_storages.end(), impl) != cap_.static_storages.end();
        if (!is_static && not_new.insert(impl).second) fresh.push_back(t.storage());
      }
      return t.detach();
    });
  }
  env.clear();
  if (st.storages.empty()) {
    for (auto& s : fresh) st.storages.push_back({s});
  } else {
    if (fresh.size() != st.storages.size())
      throw Error("internal: group " + std::to_string(i) + " allocated a different number of storages on recomputation");
    for (size_t k = 0; k < fresh.size(); ++k) {
      for (auto& old : st.storages[k])
        old.unsafeGetStorageImpl()->set_data_ptr_noswap(c10::DataPtr(fresh[k].data_ptr().get(), fresh[k].device()));
      st.storages[k].push_back(fresh[k]);
    }
  }
  if (!stats.empty()) {
    // Through a fresh alias: the statistics' own version counter must not move, as autograd saved
    // them for batch norm's backward (the op itself updates them without a version bump).
    torch::NoGradGuard no_grad;
    for (size_t k = 0; k < stats.size(); ++k) {
      const at::Tensor& t = st.running_stats[k];
      at::empty({0}, t.options()).set_(t.storage(), t.storage_offset(), t.sizes(), t.strides()).copy_(stats[k]);
    }
  }
  ++st.runs;
}

void Executor::backward(int i) {
  GroupState& st = groups_[i];
  {
    torch::autograd::edge_list edges;
    torch::autograd::variable_list grads;
    for (auto& r : st.roots) {
      auto it = grads_.find(r.v);
      if (it == grads_.end() || r.idx >= it->second.size() || !it->second[r.idx].defined()) continue;
      edges.push_back(r.edge);
      grads.push_back(it->second[r.idx]);
    }
    st.roots.clear();  // the graph is freed as the engine consumes it
    if (!edges.empty()) run_backward(edges, std::move(grads));
  }
  for (auto& in : st.inputs) {
    at::Tensor g = std::move(in.sink->grad);
    if (!g.defined()) continue;
    // A view into a larger gradient (cat's and split's backwards narrow the incoming one) would pin
    // all of it until the last view dies; the graph gives each input its own gradient: copy it out.
    if (g.has_storage() && g.storage().nbytes() > static_cast<size_t>(g.numel()) * g.element_size()) {
      torch::NoGradGuard no_grad;
      g = g.clone(at::MemoryFormat::Contiguous);
    }
    accumulate(grads_[in.v], in.idx, std::move(g));
  }
  st.inputs.clear();
}

void Executor::seed_loss() {
  if (grads_.count(cap_.loss)) return;
  const at::Tensor& loss = values_.at(cap_.loss).toTensor();
  loss_ = loss.item<double>();
  grads_[cap_.loss] = {at::ones_like(loss, at::MemoryFormat::Contiguous)};
}

void Executor::delete_data(NodeId d) {
  const Role& r = data_role_[d];
  if (r.kind == Role::None) return;  // model inputs, view nodes (free: their bytes are their owner's)
  const Group& grp = cap_.groups[r.group];
  GroupState& st = groups_[r.group];
  if (r.kind == Role::Data) {
    for (const Value* v : grp.exports) values_.erase(v);
    if (external_output_ && r.group == cap_.loss_group) {  // the caller's alias frees it when it can
      st.storages.clear();
      return;
    }
    for (auto& aliases : st.storages)
      for (auto& s : aliases) s.unsafeGetStorageImpl()->set_data_ptr_noswap(c10::DataPtr(nullptr, s.device()));
  } else if (r.kind == Role::Grad) {
    for (const Value* v : grp.exports) grads_.erase(v);
  } else if (r.kind == Role::Phantoms) {
    st.roots.clear();
    st.inputs.clear();
  }
}

void Executor::clear_step() {
  for (auto& st : groups_) {
    st.roots.clear();
    st.inputs.clear();
    st.rng.reset();
    st.runs = 0;
  }
  for (auto it = values_.begin(); it != values_.end();)
    it = std::find(cap_.sources.begin(), cap_.sources.end(), it->first) == cap_.sources.end() ? values_.erase(it) : std::next(it);
  grads_.clear();
  for (auto& st : groups_) st.storages.clear();
}

double Executor::step(const Schedule& s) {
  MemoryCounter counter;
  order_rng();
  trace_after.clear();
  trace_during.clear();
  trace_cpu.clear();
  for (const Op& op : s.ops) {
    double u0 = 0;
    if (trace) {
      counter.reset_peak();
      u0 = clock_seconds(true);
    }
    if (op.kind == Op::Kind::Loss) {
      seed_loss();
    } else if (op.kind == Op::Kind::Delete) {
      delete_data(op.node);
    } else {
      const Role& r = compute_role_[op.node];
      if (r.kind == Role::Forward) forward(r.group, op.keep_phantoms);
      if (r.kind == Role::Backward) backward(r.group);
      if (r.kind == Role::Loss) seed_loss();
    }
    if (trace) {
      trace_cpu.push_back(clock_seconds(true) - u0);
      trace_after.push_back(counter.current());
      trace_during.push_back(counter.peak());
    }
  }

  clear_step();
  return loss_;
}

namespace {
// The index of the loss marker (a Loss op, or the compute op of the graph's loss node).
size_t loss_index(const Schedule& s, const Graph& g) {
  for (size_t k = 0; k < s.ops.size(); ++k) {
    const Op& op = s.ops[k];
    if (op.kind == Op::Kind::Loss || (op.kind == Op::Kind::Compute && g.loss != kNone && op.node == g.loss)) return k;
  }
  throw Error("internal: the schedule has no loss marker between its forward and backward halves");
}
}  // namespace

at::Tensor Executor::forward_half(const Schedule& s, const std::vector<c10::IValue>& inputs) {
  clear_step();  // a step whose backward_half never came is abandoned
  half_done_ = false;
  if (inputs.size() != cap_.sources.size())
    throw Error("internal: forward_half got " + std::to_string(inputs.size()) + " inputs for " +
                std::to_string(cap_.sources.size()));
  for (size_t k = 0; k < inputs.size(); ++k) values_[cap_.sources[k]] = inputs[k];
  external_output_ = true;
  order_rng();
  size_t end = loss_index(s, g_);
  for (size_t k = 0; k < end; ++k) {
    const Op& op = s.ops[k];
    if (op.kind == Op::Kind::Delete) {
      delete_data(op.node);
    } else if (op.kind == Op::Kind::Compute) {
      const Role& r = compute_role_[op.node];
      if (r.kind == Role::Forward) forward(r.group, op.keep_phantoms);
      if (r.kind == Role::Backward) backward(r.group);
    }
  }
  auto it = values_.find(cap_.loss);
  if (it == values_.end() || !it->second.isTensor())
    throw Error("internal: the model's output is not resident at the loss marker");
  half_done_ = true;
  return it->second.toTensor().detach();
}

void Executor::backward_half(const Schedule& s, const at::Tensor& grad) {
  if (!half_done_) throw Error("internal: backward_half without a forward_half");
  half_done_ = false;
  grads_[cap_.loss] = {grad};
  size_t begin = loss_index(s, g_) + 1;
  for (size_t k = begin; k < s.ops.size(); ++k) {
    const Op& op = s.ops[k];
    if (op.kind == Op::Kind::Delete) {
      delete_data(op.node);
    } else if (op.kind == Op::Kind::Compute) {
      const Role& r = compute_role_[op.node];
      if (r.kind == Role::Forward) forward(r.group, op.keep_phantoms);
      if (r.kind == Role::Backward) backward(r.group);
    }
  }
  clear_step();
  for (const auto* v : cap_.sources) values_.erase(v);
}

}  // namespace hiremate::torchbridge
