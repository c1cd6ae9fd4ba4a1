// The counting allocator: c10::alloc_cpu plus a size per pointer, atomic current/peak counters.
// Tensors allocated before it was installed keep their own deleters, so they free correctly.
#include "hiremate/torch/memory_counter.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>
#include <c10/util/ThreadLocalDebugInfo.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace hiremate::torchbridge {
namespace {

std::atomic<int64_t> g_current{0}, g_peak{0};
std::atomic<int64_t> g_cuda_current{0}, g_cuda_peak{0};

void add(std::atomic<int64_t>& cur, std::atomic<int64_t>& peak, int64_t delta) {
  int64_t now = cur.fetch_add(delta) + delta;
  int64_t p = peak.load();
  while (now > p && !peak.compare_exchange_weak(p, now)) {
  }
}

class CountingCPUAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) const override {
    void* p = c10::alloc_cpu(n);
    {
      std::lock_guard<std::mutex> lock(mu_);
      sizes_[p] = n;
    }
    add(g_current, g_peak, static_cast<int64_t>(n));
    return {p, p, &free_counted, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &free_counted; }

  static void free_counted(void* p) {
    if (!p) return;
    size_t n = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = sizes_.find(p);
      if (it != sizes_.end()) {
        n = it->second;
        sizes_.erase(it);
      }
    }
    add(g_current, g_peak, -static_cast<int64_t>(n));
    c10::free_cpu(p);
  }

 private:
  static std::mutex mu_;
  static std::unordered_map<void*, size_t> sizes_;
};
std::mutex CountingCPUAllocator::mu_;
std::unordered_map<void*, size_t> CountingCPUAllocator::sizes_;

// The CUDA caching allocator reports every block it hands out or takes back to this hook.
class CudaReporter final : public c10::MemoryReportingInfoBase {
 public:
  void reportMemoryUsage(void*, int64_t delta, int64_t, int64_t, c10::Device device) override {
    if (device.is_cuda()) add(g_cuda_current, g_cuda_peak, delta);
  }
  bool memoryProfilingEnabled() const override { return true; }
};

void install_cpu() {
  static CountingCPUAllocator instance;
  static std::once_flag once;
  std::call_once(once, [] { c10::SetCPUAllocator(&instance, /*priority=*/100); });
}

}  // namespace

MemoryCounter::MemoryCounter(bool cuda) : cuda_(cuda) {
  install_cpu();
  if (cuda_)
    guard_ = new c10::DebugInfoGuard(c10::DebugInfoKind::PROFILER_STATE, std::make_shared<CudaReporter>());
}

MemoryCounter::~MemoryCounter() { delete static_cast<c10::DebugInfoGuard*>(guard_); }

int64_t MemoryCounter::current() const { return cuda_ ? g_cuda_current.load() : g_current.load(); }
int64_t MemoryCounter::peak() const { return cuda_ ? g_cuda_peak.load() : g_peak.load(); }
void MemoryCounter::reset_peak() {
  if (cuda_)
    g_cuda_peak.store(g_cuda_current.load());
  else
    g_peak.store(g_current.load());
}

}  // namespace hiremate::torchbridge
