// The public benchmark graphs of ../shared/benchmarks (read at run time, never copied).
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace hiremate::testing {

inline std::string benchmarks_dir() { return std::string(HIREMATE_SHARED_DIR) + "/benchmarks"; }
inline bool have_benchmarks() { return std::filesystem::exists(benchmarks_dir() + "/expected.json"); }
inline std::string benchmark_graph(const std::string& name) { return benchmarks_dir() + "/graphs/" + name + ".json"; }

// expected.json: per graph, nodes, edges, peak_order, sum_cost, budgets and published cells.
inline nlohmann::json expected() {
  std::ifstream in(benchmarks_dir() + "/expected.json");
  return nlohmann::json::parse(in);
}

}  // namespace hiremate::testing

#define HM_REQUIRE_BENCHMARKS()                                                              \
  do {                                                                                       \
    if (!hiremate::testing::have_benchmarks()) {                                             \
      GTEST_SKIP() << "no benchmark graphs at " << hiremate::testing::benchmarks_dir();      \
    }                                                                                        \
  } while (0)
