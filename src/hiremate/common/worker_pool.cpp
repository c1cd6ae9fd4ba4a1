#include "hiremate/common/worker_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>

namespace hiremate {

void WorkerPool::for_each(size_t n, int workers, const std::function<void(size_t)>& task) {
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::exception_ptr failure;
  auto work = [&] {
    try {
      for (size_t i = next++; i < n; i = next++) task(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!failure) failure = std::current_exception();
    }
  };
  std::vector<std::thread> helpers;
  for (int w = 1; w < std::min<int>(workers, static_cast<int>(n)); ++w) helpers.emplace_back(work);
  work();
  for (auto& t : helpers) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace hiremate
