// train_model: the executor's run of a plan beside plain PyTorch on a second copy of the model.
// Both copies start from the file's weights, draw step k's random numbers from seed + k, take the
// same SGD steps, and keep parameter gradients in buffers allocated before the step, so that the
// counted peaks are activations only (as the graph's).
#include "hiremate/torch/train.h"

#include <ATen/Parallel.h>
#include <torch/csrc/jit/runtime/graph_executor.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "hiremate/common/error.h"
#include "hiremate/common/units.h"
#include "hiremate/graph/adopt_times.h"
#include "hiremate/graph/io/graph_io.h"
#include "hiremate/planner/plan_with.h"
#include "hiremate/solvers/min_budget.h"
#include "hiremate/solvers/solver.h"
#include "hiremate/torch/executor.h"
#include "hiremate/torch/measure.h"
#include "hiremate/torch/memory_counter.h"
#include "hiremate/torch/profile_capture.h"

namespace hiremate::torchbridge {
namespace {

std::string base_name(const std::string& path) {
  auto s = path.substr(path.find_last_of('/') + 1);
  auto dot = s.rfind(".pt");
  return dot == std::string::npos ? s : s.substr(0, dot);
}

// Parameter name per storage, for matching the executor's parameters with plain PyTorch's.
std::map<const void*, std::string> parameter_names(const torch::jit::Module& m) {
  std::map<const void*, std::string> names;
  for (const auto& p : m.named_parameters(/*recurse=*/true)) names.emplace(p.value.data_ptr(), p.name);
  return names;
}

// Plain PyTorch: the module's own forward and loss.backward(); parameters re-rooted on
// accumulating sinks (tied weights share one).
class PlainTrainer {
 public:
  PlainTrainer(const std::string& model_path, const std::vector<c10::IValue>& inputs, c10::Device device)
      : module_(load_module(model_path)), inputs_(inputs) {
    module_.to(device);
    std::unordered_map<const c10::TensorImpl*, size_t> index;
    for (const auto& p : module_.named_parameters(/*recurse=*/true)) {
      auto it = index.find(p.value.unsafeGetTensorImpl());
      if (it == index.end()) {
        torch::NoGradGuard no_grad;
        Parameter q;
        q.sink = std::make_shared<AccumulateSink>(at::zeros_like(p.value));
        q.value = p.value.detach();
        uint32_t nr = q.sink->add_input_metadata(q.value);
        torch::autograd::impl::set_gradient_edge(q.value, torch::autograd::Edge(q.sink, nr));
        it = index.emplace(p.value.unsafeGetTensorImpl(), params_.size()).first;
        params_.push_back(q);
        by_name_[p.name] = it->second;
      }
      torch::jit::Module owner = module_;
      std::string name = p.name;
      for (auto dot = name.find('.'); dot != std::string::npos; dot = name.find('.')) {
        owner = owner.attr(name.substr(0, dot)).toModule();
        name = name.substr(dot + 1);
      }
      owner.setattr(name, params_[it->second].value);
    }
  }
  double step() {
    torch::jit::GraphOptimizerEnabledGuard plain(false);  // op by op, as eager PyTorch
    c10::IValue out = module_.forward(inputs_);
    at::Tensor loss = out.isTuple() ? out.toTupleRef().elements()[0].toTensor() : out.toTensor();
    out = c10::IValue();
    double value = loss.item<double>();
    loss.backward();
    return value;
  }
  std::vector<Parameter>& parameters() { return params_; }
  const torch::jit::Module& module() const { return module_; }
  const Parameter* find(const std::string& name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &params_[it->second];
  }

 private:
  torch::jit::Module module_;
  std::vector<c10::IValue> inputs_;
  std::vector<Parameter> params_;
  std::map<std::string, size_t> by_name_;
};

void sgd(std::vector<Parameter>& params, double lr) {
  torch::NoGradGuard no_grad;
  for (auto& p : params) {
    p.value.detach().add_(p.sink->buffer, -lr);
    p.sink->buffer.zero_();
  }
}

}  // namespace

TrainReport train_model(const std::string& model_path, const std::string& inputs_path, const TrainOptions& opt) {
  if (opt.profile.threads > 0) at::set_num_threads(opt.profile.threads);
  at::globalContext().setFlushDenormal(opt.profile.flush_denormal);
  auto inputs = load_inputs(inputs_path);
  auto module = load_module(model_path);
  c10::Device device = input_device(inputs);
  if (device.is_cuda()) throw BadInput("hiremate train runs on the CPU only for now; save CPU inputs");
  module.to(device);
  MemoryCounter counter(false);

  // Capture and profiling run the forward: keep the buffers (batch-norm statistics) as loaded.
  std::vector<std::pair<at::Tensor, at::Tensor>> buffers;
  for (const auto& b : module.named_buffers(/*recurse=*/true))
    if (b.value.defined()) buffers.emplace_back(b.value, b.value.clone());
  const double started = clock_seconds(false);
  if (opt.progress) opt.progress->phase("capturing the model");
  auto cap = capture(module, inputs, model_path);
  TrainReport r;
  r.model = model_path;
  ProfileOptions po = opt.profile;
  if (opt.progress && !po.progress)
    po.progress = [p = opt.progress](size_t done, size_t total, const std::string&) {
      p->phase("profiling: " + std::to_string(done) + "/" + std::to_string(total) + " signatures");
    };
  ProfiledModel pm = profile_capture(*cap, base_name(model_path), po);
  r.profile_seconds = clock_seconds(false) - started;  // capture and profile
  {
    torch::NoGradGuard no_grad;
    for (auto& [t, saved] : buffers) t.copy_(saved);
    buffers.clear();
  }
  if (!opt.times_from.empty()) adopt_times(pm.graph, load_graph(opt.times_from), opt.times_from);
  const Graph& g = pm.graph;
  Baseline keep_all = baseline(g);
  r.keep_all = keep_all.peak - g.source_bytes();
  r.keep_all_time = keep_all.time;
  r.budget = parse_activation_budget(opt.budget, g);

  SolveOptions so;
  so.time_limit = opt.time_limit;
  so.progress = opt.progress;
  if (opt.progress) {
    opt.progress->baseline(keep_all.time);
    opt.progress->phase("planning with " + opt.solver);
  }
  Plan plan = planner::plan_with(opt.solver, g, r.budget + g.source_bytes(), so);
  r.solver = opt.solver;
  r.status = to_string(plan.status);
  r.solve_seconds = plan.solve_seconds;
  require_schedule(plan, opt.solver + " found no plan for " + model_path + " under " + format_bytes(r.budget) +
                             " of activations (keep-all " + format_bytes(r.keep_all) + ")");
  r.simulated_peak = plan.sim.peak - g.source_bytes();
  r.simulated_time = plan.sim.time;
  r.recomputations = plan.sim.recomputations;

  Executor ex(*cap, g);
  ex.trace = opt.trace;
  auto names = parameter_names(cap->module);
  std::unique_ptr<PlainTrainer> plain;
  if (opt.compare) plain = std::make_unique<PlainTrainer>(model_path, inputs, device);

  std::vector<std::vector<double>> op_cpu;  // with trace: per op, its CPU seconds in each step after the first
  for (int k = 0; k < opt.steps; ++k) {
    if (opt.progress)
      opt.progress->phase("training: step " + std::to_string(k + 1) + " of " + std::to_string(opt.steps) +
                          (plain ? ", beside plain PyTorch" : ""));
    StepReport s;
    auto run_executor = [&] {
      at::manual_seed(opt.seed + static_cast<uint64_t>(k));
      int64_t c0 = counter.current();
      counter.reset_peak();
      double t0 = clock_seconds(false), u0 = clock_seconds(true);
      s.loss = ex.step(plan.schedule);
      s.cpu_time = clock_seconds(true) - u0;
      s.time = clock_seconds(false) - t0;
      s.peak = counter.peak() - c0;
      if (ex.trace && (k > 0 || opt.steps == 1)) {
        op_cpu.resize(ex.trace_cpu.size());
        for (size_t i = 0; i < ex.trace_cpu.size(); ++i) op_cpu[i].push_back(ex.trace_cpu[i]);
      }
      if (ex.trace) {  // per op: simulated and measured activation bytes during it and after it
        s.peak = *std::max_element(ex.trace_during.begin(), ex.trace_during.end()) - c0;
        for (size_t i = 0; k == 0 && i < ex.trace_after.size() && i < plan.sim.timeline.size(); ++i)
          std::fprintf(stderr, "%zu\t%s\t%ld\t%ld\t%ld\t%ld\n", i, hiremate::describe(g, plan.schedule.ops[i]).c_str(),
                       long(plan.sim.timeline[i].during - g.source_bytes()), long(ex.trace_during[i] - c0),
                       long(plan.sim.timeline[i].after - g.source_bytes()), long(ex.trace_after[i] - c0));
      }
    };
    auto run_plain = [&] {
      at::manual_seed(opt.seed + static_cast<uint64_t>(k));
      int64_t c0 = counter.current();
      counter.reset_peak();
      double t0 = clock_seconds(false), u0 = clock_seconds(true);
      s.plain_loss = plain->step();
      s.plain_cpu_time = clock_seconds(true) - u0;
      s.plain_time = clock_seconds(false) - t0;
      s.plain_peak = counter.peak() - c0;
    };
    // Alternate which runs first: neither gains from the caches the other leaves warm.
    if (plain && k % 2 == 1) run_plain();
    run_executor();
    if (plain && k % 2 == 0) run_plain();
    if (plain) {
      s.grads_identical = true;
      for (auto& p : ex.parameters()) {
        auto it = names.find(p.value.data_ptr());
        const Parameter* q = it == names.end() ? nullptr : plain->find(it->second);
        if (!q) throw Error("internal: no plain PyTorch parameter shares the storage of an executor parameter");
        const at::Tensor &a = p.sink->buffer, &b = q->sink->buffer;
        s.grads_identical &= at::equal(a, b);
        double scale = b.abs().max().item<double>();
        double diff = (a - b).abs().max().item<double>();
        s.grad_diff = std::max(s.grad_diff, scale > 0 ? diff / scale : diff);
      }
      sgd(plain->parameters(), opt.lr);
    }
    sgd(ex.parameters(), opt.lr);
    r.steps.push_back(s);
  }
  // With trace: per op, the time the plan was made with (the profile's, measured per group in
  // isolation) beside the executor's CPU time for it in sequence (median over the steps after the first).
  for (size_t i = 0; i < op_cpu.size() && i < plan.schedule.ops.size(); ++i) {
    const Op& op = plan.schedule.ops[i];
    auto v = op_cpu[i];
    std::sort(v.begin(), v.end());
    double med = v.empty() ? 0.0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    double sim = op.kind == Op::Kind::Compute ? g.compute[op.node].time : 0.0;
    std::fprintf(stderr, "op-time\t%zu\t%s\t%d\t%.9g\t%.9g\n", i, hiremate::describe(g, op).c_str(),
                 op.kind == Op::Kind::Compute && !op.keep_phantoms ? 0 : 1, sim, med);
  }
  if (plain) {
    std::map<std::string, at::Tensor> theirs;
    for (const auto& b : plain->module().named_buffers(/*recurse=*/true)) theirs[b.name] = b.value;
    for (const auto& b : cap->module.named_buffers(/*recurse=*/true)) {
      auto it = theirs.find(b.name);
      if (it == theirs.end() || !b.value.defined() || !b.value.is_floating_point()) continue;
      r.buffer_diff = std::max(r.buffer_diff, (b.value - it->second).abs().max().item<double>());
    }
  }
  return r;
}

}  // namespace hiremate::torchbridge
