// The reference the graph is checked against: plain PyTorch (the module's own forward through the
// TorchScript interpreter, then loss.backward()) under the counting allocator. Parameters are
// re-rooted on drop sinks so that their gradients leave memory as soon as autograd produces them,
// as the graph leaves parameters and their gradients out; parameters and inputs are allocated
// before the step and not counted.
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/cuda.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "hiremate/torch/capture.h"
#include "hiremate/torch/measure.h"
#include "hiremate/torch/memory_counter.h"
#include "hiremate/torch/profile.h"

namespace hiremate::torchbridge {

Reference measure_reference(const std::string& model_path, const std::string& inputs_path, const ProfileOptions& opt) {
  if (opt.threads > 0) at::set_num_threads(opt.threads);
  at::globalContext().setFlushDenormal(opt.flush_denormal);
  auto inputs = load_inputs(inputs_path);
  auto module = load_module(model_path);
  c10::Device device = input_device(inputs);
  module.to(device);
  bool cuda = device.is_cuda();
  // Op by op, as eager PyTorch: no autodiff subgraphs or fusion from the optimizing executor.
  torch::jit::GraphOptimizerEnabledGuard plain(false);

  std::unordered_map<const c10::TensorImpl*, at::Tensor> alias;
  std::vector<std::shared_ptr<GradSink>> sinks;
  for (const auto& p : module.named_parameters(/*recurse=*/true)) {
    auto it = alias.find(p.value.unsafeGetTensorImpl());
    if (it == alias.end()) {
      sinks.push_back(std::make_shared<GradSink>(false));
      it = alias.emplace(p.value.unsafeGetTensorImpl(), reroot(p.value, sinks.back())).first;
    }
    torch::jit::Module owner = module;
    std::string name = p.name;
    for (auto dot = name.find('.'); dot != std::string::npos; dot = name.find('.')) {
      owner = owner.attr(name.substr(0, dot)).toModule();
      name = name.substr(dot + 1);
    }
    owner.setattr(name, it->second);
  }

  MemoryCounter counter(cuda);
  Reference ref;
  std::vector<double> times;
  for (int r = 0; r < std::max(0, opt.warmup) + std::max(1, opt.runs); ++r) {
    if (cuda) torch::cuda::synchronize();
    int64_t c0 = counter.current();
    counter.reset_peak();
    double t0 = clock_seconds(opt.cpu_time && !cuda);
    {
      c10::IValue out = module.forward(inputs);
      at::Tensor loss = out.isTuple() ? out.toTupleRef().elements()[0].toTensor() : out.toTensor();
      out = c10::IValue();
      loss.backward();
    }
    if (cuda) torch::cuda::synchronize();
    double t = clock_seconds(opt.cpu_time && !cuda) - t0;
    if (r >= opt.warmup) {
      times.push_back(t);
      ref.peak = std::max(ref.peak, counter.peak() - c0);
    }
  }
  ref.time = trimmed_mean(times);
  ref.best_time = *std::min_element(times.begin(), times.end());
  return ref;
}

}  // namespace hiremate::torchbridge
