#include "hiremate/common/worker_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>

namespace hiremate {

void WorkerPool::for_each(size_t n, int workers, const std::function<void(size_t)>& task) {
  for_each(n, workers, task, nullptr);
}

void WorkerPool::for_each(size_t n, int workers, const std::function<void(size_t)>& task,
                          const std::function<int()>& workers_now) {
  std::atomic<size_t> next{0};
  std::mutex mu;  // guards failure, helpers, active
  std::exception_ptr failure;
  std::vector<std::thread> helpers;
  int active = std::max(1, std::min<int>(workers, static_cast<int>(n)));
  std::function<void()> work;
  auto grow = [&] {
    if (!workers_now) return;
    const int free_now = workers_now();
    std::lock_guard<std::mutex> lock(mu);
    for (; !failure && active < free_now && next.load() < n; ++active) helpers.emplace_back(work);
  };
  work = [&] {
    try {
      for (size_t i = next++; i < n; i = next++) {
        task(i);
        grow();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!failure) failure = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mu);
    --active;
  };
  {
    std::lock_guard<std::mutex> lock(mu);
    for (int w = 1; w < active; ++w) helpers.emplace_back(work);
  }
  work();
  // A helper that adds helpers does so before it ends, so joining in order joins them all.
  for (size_t k = 0;; ++k) {
    std::thread t;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (k >= helpers.size()) break;
      t = std::move(helpers[k]);
    }
    t.join();
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace hiremate
