#include "hiremate/torch/measure.h"

#include <torch/csrc/autograd/engine.h>
#include <torch/cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <numeric>

#include "hiremate/torch/memory_counter.h"

namespace hiremate::torchbridge {
namespace {


c10::IValue rebuild(const c10::IValue& v, const std::function<at::Tensor(const at::Tensor&)>& f) {
  if (v.isTensor()) return v.toTensor().defined() ? c10::IValue(f(v.toTensor())) : v;
  if (v.isList()) {
    c10::impl::GenericList out(v.toList().elementType());
    for (const auto& e : v.toListRef()) out.push_back(rebuild(e, f));
    return out;
  }
  if (v.isTuple()) {
    std::vector<c10::IValue> elems;
    for (const auto& e : v.toTupleRef().elements()) elems.push_back(rebuild(e, f));
    return c10::ivalue::Tuple::create(std::move(elems));
  }
  return v;
}

// One isolated environment: the group's inputs, as fresh copies of their storages (`clone`) or as
// aliases of the captured values, re-rooted on capture sinks where they require grad.
struct Inputs {
  Env env;
  std::vector<std::shared_ptr<GradSink>> sinks;
  std::vector<size_t> sink_input;  // the group input each sink belongs to
  std::unordered_map<const c10::StorageImpl*, at::Storage> clones;  // original -> copy
  std::vector<std::vector<c10::weak_intrusive_ptr<c10::StorageImpl>>> storages;  // per input
};

Inputs make_inputs(const Capture& cap, const Group& grp, bool clone) {
  torch::NoGradGuard no_grad;
  Inputs in;
  in.storages.resize(grp.inputs.size());
  for (size_t i = 0; i < grp.inputs.size(); ++i) {
    const torch::jit::Value* v = grp.inputs[i];
    bool rg = cap.requires_grad.at(v);
    in.env[v] = rebuild(cap.values.at(v), [&](const at::Tensor& t) {
      at::Tensor x = t;
      if (clone && t.has_storage()) {
        auto impl = t.storage().unsafeGetStorageImpl();
        auto it = in.clones.find(impl);
        if (it == in.clones.end()) {
          int64_t n = static_cast<int64_t>(t.storage().nbytes());
          at::Tensor bytes = at::empty({0}, t.options().dtype(at::kByte)).set_(t.storage(), 0, {n}, {1});
          it = in.clones.emplace(impl, bytes.clone().storage()).first;
        }
        x = at::empty({0}, t.options()).set_(it->second, t.storage_offset(), t.sizes(), t.strides());
        in.storages[i].push_back(it->second.getWeakStorageImpl());
      }
      if (rg && (t.is_floating_point() || t.is_complex())) {
        auto sink = std::make_shared<GradSink>(true);
        in.sinks.push_back(sink);
        in.sink_input.push_back(i);
        x = reroot(x, sink);
      }
      return x;
    });
  }
  return in;
}

// Runs the group's forward in `env` (autograd on unless `grad` is false); returns its exports.
std::vector<c10::IValue> forward(Interpreter& interp, const Capture& cap, const Group& grp, Env& env, bool grad = true) {
  torch::AutoGradMode mode(grad);
  for (auto* n : grp.code) interp.run(n, env, &cap.statics);
  std::vector<c10::IValue> ex;
  for (auto* v : grp.exports) ex.push_back(env.at(v));
  return ex;
}

// The backward roots: each exported tensor that requires grad, with a gradient of its shape
// (ones for the loss, as loss.backward() seeds it).
struct Roots {
  torch::autograd::edge_list edges;
  torch::autograd::variable_list grads;
};
Roots make_roots(const Capture& cap, const Group& grp, const std::vector<c10::IValue>& ex) {
  torch::NoGradGuard no_grad;
  Roots r;
  for (size_t i = 0; i < ex.size(); ++i) {
    std::vector<at::Tensor> ts;
    collect_tensors(ex[i], ts);
    for (auto& t : ts) {
      if (!t.defined() || !t.requires_grad()) continue;
      r.edges.push_back(torch::autograd::impl::gradient_edge(t));
      r.grads.push_back(grp.exports[i] == cap.loss ? at::ones_like(t, at::MemoryFormat::Contiguous)
                                                   : at::randn(t.sizes(), t.options()));
    }
  }
  return r;
}

void backward(const Roots& r) {
  torch::autograd::Engine::get_default_engine().execute(r.edges, r.grads, /*keep_graph=*/false,
                                                        /*create_graph=*/false, /*accumulate_grad=*/true);
}

// Before each timed run the caches hold what they hold in a real step: the node's inputs, just
// produced by the nodes before it, but not its parameters or older tensors. So evict everything
// (read a buffer larger than the L2), then read the inputs back (CPU only).
void set_caches_as_in_a_step(const std::vector<at::Tensor>& inputs) {
  static std::vector<char> buf(8 << 20, 1);  // twice the L2 here; the last level (480 MiB) keeps it all, as in a step
  volatile char sink = 0;  // read, not written: dirty lines would be written back inside the timed run
  for (size_t i = 0; i < buf.size(); i += 64) sink = sink + buf[i];
  for (const auto& t : inputs) {
    if (!t.defined() || !t.has_storage() || !t.is_cpu() || !t.storage().data()) continue;
    const char* p = static_cast<const char*>(t.storage().data());
    for (size_t i = 0; i < t.storage().nbytes(); i += 64) sink = sink + p[i];
  }
}

std::vector<at::Tensor> tensors_of(const Env& env) {
  std::vector<at::Tensor> ts;
  for (const auto& [value, iv] : env) collect_tensors(iv, ts);
  return ts;
}

bool alive(const std::vector<c10::weak_intrusive_ptr<c10::StorageImpl>>& ws) {
  for (const auto& w : ws)
    if (w.use_count() > 0) return true;
  return false;
}

// The forward's peak without grad above what stays (its data), on fresh copies of its inputs.
int64_t forward_overhead_no_grad(Interpreter& interp, const Capture& cap, const Group& grp, MemoryCounter& counter,
                                 const std::function<void()>& sync) {
  Inputs in = make_inputs(cap, grp, true);
  sync();
  counter.reset_peak();
  auto ex = forward(interp, cap, grp, in.env, /*grad=*/false);
  sync();
  return std::max<int64_t>(0, counter.peak() - counter.current());
}

}  // namespace

double clock_seconds(bool cpu_time) {
  if (cpu_time) {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double trimmed_mean(std::vector<double> s) {
  if (s.empty()) return 0;
  std::sort(s.begin(), s.end());
  if (s.size() >= 3) s = std::vector<double>(s.begin() + 1, s.end() - 1);
  return std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
}

Measurement measure_group(const Capture& cap, const Group& grp, const MeasureOptions& opt) {
  Measurement m;
  Interpreter interp;
  auto sync = [&] {
    if (opt.cuda) torch::cuda::synchronize();
  };
  // Timing first: it also warms the operator caches up before memory is counted.
  std::vector<double> fwd, bwd;
  for (int r = 0; r < opt.warmup + opt.runs; ++r) {
    Inputs in = make_inputs(cap, grp, false);
    if (!opt.cuda) set_caches_as_in_a_step(tensors_of(in.env));
    sync();
    double t0 = clock_seconds(opt.cpu_time);
    auto ex = forward(interp, cap, grp, in.env);
    sync();
    double tf = clock_seconds(opt.cpu_time) - t0;
    in.env.clear();
    Roots roots = make_roots(cap, grp, ex);
    ex.clear();
    double tb = 0;
    if (!roots.edges.empty()) {
      if (!opt.cuda) set_caches_as_in_a_step(roots.grads);
      sync();
      double t1 = clock_seconds(opt.cpu_time);
      backward(roots);
      sync();
      tb = clock_seconds(opt.cpu_time) - t1;
    }
    if (r >= opt.warmup) {
      fwd.push_back(tf);
      bwd.push_back(tb);
    }
  }
  m.fwd_time = trimmed_mean(fwd);
  m.bwd_time = trimmed_mean(bwd);

  // Memory: runs on fresh copies of the inputs, so that our references are the only ones.
  MemoryCounter counter(opt.cuda);
  m.fwd_overhead_no_grad = forward_overhead_no_grad(interp, cap, grp, counter, sync);
  Inputs in = make_inputs(cap, grp, true);
  sync();
  int64_t c0 = counter.current();
  counter.reset_peak();
  auto ex = forward(interp, cap, grp, in.env);
  sync();
  int64_t fwd_peak = counter.peak();
  in.env.clear();
  std::vector<const c10::StorageImpl*> seen;
  for (auto& [orig, copy] : in.clones) seen.push_back(copy.unsafeGetStorageImpl());
  std::vector<c10::weak_intrusive_ptr<c10::StorageImpl>> out_storages;
  for (const auto& v : ex) {
    std::vector<at::Tensor> ts;
    collect_tensors(v, ts);
    for (auto& t : ts) {
      if (!t.defined() || !t.has_storage()) continue;
      auto s = t.storage().unsafeGetStorageImpl();
      if (std::find(seen.begin(), seen.end(), s) != seen.end()) continue;
      if (std::find(cap.static_storages.begin(), cap.static_storages.end(), s) != cap.static_storages.end())
        continue;
      seen.push_back(s);
      m.data_bytes += static_cast<int64_t>(t.storage().nbytes());
      out_storages.push_back(t.storage().getWeakStorageImpl());
    }
  }
  int64_t c1 = counter.current();
  m.phantom_bytes = std::max<int64_t>(0, c1 - c0 - m.data_bytes);
  m.fwd_overhead = std::max<int64_t>(0, fwd_peak - c1);
  Roots roots = make_roots(cap, grp, ex);
  ex.clear();
  in.clones.clear();
  m.output_saved = alive(out_storages);
  m.input_saved.resize(grp.inputs.size());
  for (size_t i = 0; i < grp.inputs.size(); ++i) m.input_saved[i] = alive(in.storages[i]);
  // In a step the data a backward reads are resident data nodes until after it: hold them here
  // too, or autograd frees them mid-backward (nll_loss frees its target) and the overhead shrinks.
  std::vector<c10::intrusive_ptr<c10::StorageImpl>> held;
  auto hold = [&](const std::vector<c10::weak_intrusive_ptr<c10::StorageImpl>>& ws) {
    for (const auto& w : ws)
      if (auto p = w.lock()) held.push_back(std::move(p));
  };
  hold(out_storages);
  for (const auto& ws : in.storages) hold(ws);
  if (!roots.edges.empty()) {
    std::vector<const c10::StorageImpl*> given;  // the gradients the backward starts from
    for (const auto& gr : roots.grads)
      if (gr.defined() && gr.has_storage()) given.push_back(gr.storage().unsafeGetStorageImpl());
    int64_t b0 = counter.current();
    counter.reset_peak();
    backward(roots);
    sync();
    int64_t captured = 0;
    m.input_grad_bytes.assign(grp.inputs.size(), 0);
    m.input_grad_fresh.assign(grp.inputs.size(), 0);
    std::vector<const c10::StorageImpl*> grads_seen;
    for (size_t k = 0; k < in.sinks.size(); ++k) {
      const auto& grad = in.sinks[k]->grad;
      if (!grad.defined() || !grad.has_storage()) continue;
      auto impl = grad.storage().unsafeGetStorageImpl();
      if (std::find(grads_seen.begin(), grads_seen.end(), impl) != grads_seen.end()) continue;
      grads_seen.push_back(impl);
      auto bytes = static_cast<int64_t>(grad.storage().nbytes());
      captured += bytes;
      m.input_grad_bytes[in.sink_input[k]] += bytes;
      if (std::find(given.begin(), given.end(), impl) == given.end()) m.input_grad_fresh[in.sink_input[k]] += bytes;
    }
    m.bwd_overhead = std::max<int64_t>(0, counter.peak() - b0 - captured);
  }
  return m;
}

}  // namespace hiremate::torchbridge
