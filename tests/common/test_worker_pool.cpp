#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "hiremate/common/worker_pool.h"

using namespace hiremate;

TEST(WorkerPool, ForEachRunsEveryIndexOnce) {
  for (int workers : {1, 2, 5}) {
    std::vector<std::atomic<int>> hits(37);
    WorkerPool::for_each(hits.size(), workers, [&](size_t i) { ++hits[i]; });
    for (const auto& h : hits) EXPECT_EQ(h.load(), 1) << workers << " workers";
  }
  WorkerPool::for_each(0, 3, [](size_t) { FAIL() << "no index to run"; });
}

TEST(WorkerPool, ForEachRethrowsAfterTheOthersFinish) {
  std::atomic<int> done{0};
  EXPECT_THROW(WorkerPool::for_each(8, 2,
                                    [&](size_t i) {
                                      if (i == 3) throw std::runtime_error("solve failed");
                                      ++done;
                                    }),
               std::runtime_error);
  EXPECT_GE(done.load(), 3);  // the indices before the failure ran
}

TEST(WorkerPool, RunGivesTheResultOrTheException) {
  WorkerPool pool;
  auto value = pool.run([] { return 42; });
  auto failure = pool.run([]() -> int { throw std::runtime_error("no"); });
  EXPECT_EQ(value.get(), 42);
  EXPECT_THROW(failure.get(), std::runtime_error);
}

TEST(WorkerPool, EndingThePoolWaitsForItsTasks) {
  std::atomic<bool> ran{false};
  {
    WorkerPool pool;
    pool.run([&] { ran = true; });  // the future is dropped: the pool still waits
  }
  EXPECT_TRUE(ran.load());
}

// A thread given back while the tasks run joins them: after task 0 the caller has two threads, and
// tasks 1 and 2 run at once (each waits for the other; on one worker, task 1 would wait in vain).
TEST(WorkerPool, ForEachTakesInAThreadGivenBack) {
  std::atomic<bool> given_back{false};
  std::atomic<int> met{0};
  std::vector<std::atomic<int>> runs(6);
  bool together = true;
  std::mutex mu;
  WorkerPool::for_each(
      runs.size(), 1,
      [&](size_t i) {
        ++runs[i];
        if (i == 0) given_back = true;
        if (i == 1 || i == 2) {
          ++met;
          const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
          while (met.load() < 2 && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          std::lock_guard<std::mutex> lock(mu);
          together = together && met.load() >= 2;
        }
      },
      [&] { return given_back ? 2 : 1; });
  EXPECT_TRUE(together);
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
}
