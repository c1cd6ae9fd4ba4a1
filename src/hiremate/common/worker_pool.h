// The one worker pool of a solve: tasks on threads of their own, joined when the pool ends. The
// planner runs the flat MILP beside the hierarchy with run() and the representatives of one height
// with for_each(); dagremat runs its searches with for_each().
//
// A thread per task, not a queue: the tasks are solves of tenths of seconds to minutes, so starting
// a thread costs nothing against them, and a task never waits in a queue behind a long one (the
// flat MILP holds its thread for the whole run).
#pragma once
#include <cstddef>
#include <functional>
#include <future>
#include <thread>
#include <utility>
#include <vector>

namespace hiremate {

class WorkerPool {
 public:
  WorkerPool() = default;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  // Waits for every task run() started (their results or exceptions stay in their futures).
  ~WorkerPool() { join(); }

  // Starts `task` on a thread of its own now; its result (or exception) comes through the future.
  template <class F>
  auto run(F task) -> std::future<decltype(task())> {
    std::packaged_task<decltype(task())()> job(std::move(task));
    auto result = job.get_future();
    threads_.emplace_back(std::move(job));
    return result;
  }

  // Calls task(i) for i in [0, n) on `workers` threads, the caller's one of them, each taking the next
  // index not yet taken; returns when all are done and rethrows the first exception any threw (a
  // thread that throws takes no more indices; the others go on, so no solve is cut mid-way).
  static void for_each(size_t n, int workers, const std::function<void(size_t)>& task);
  // The same, and each time a task ends, where workers_now() says more threads are free than work
  // (a run beside the caller gave its thread back), more workers join while indices are left.
  static void for_each(size_t n, int workers, const std::function<void(size_t)>& task,
                       const std::function<int()>& workers_now);

  void join() {
    for (auto& t : threads_)
      if (t.joinable()) t.join();
    threads_.clear();
  }

 private:
  std::vector<std::thread> threads_;
};

}  // namespace hiremate
