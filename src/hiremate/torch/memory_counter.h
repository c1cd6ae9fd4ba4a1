// Counts the bytes of tensor memory alive, exactly, and their peak (env-notes §3).
// CPU: a counting c10 allocator installed once (c10::SetCPUAllocator) in front of the default
// one. CUDA: the caching allocator's reports to c10's memory-profiling hook, for the CUDA path.
// Torch is included by the .cpp only.
#pragma once
#include <cstdint>

namespace hiremate::torchbridge {

class MemoryCounter {
 public:
  // Installs the CPU counting allocator (idempotent) and, for `cuda`, the reporting hook for the
  // lifetime of this object (on this thread and the threads autograd starts from it).
  explicit MemoryCounter(bool cuda = false);
  ~MemoryCounter();
  MemoryCounter(const MemoryCounter&) = delete;
  MemoryCounter& operator=(const MemoryCounter&) = delete;

  int64_t current() const;  // bytes alive now
  int64_t peak() const;     // the maximum of current() since the last reset_peak()
  void reset_peak();        // peak := current
 private:
  bool cuda_;
  void* guard_ = nullptr;   // the CUDA reporting guard, when cuda_
};

}  // namespace hiremate::torchbridge
