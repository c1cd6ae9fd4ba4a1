#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
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
