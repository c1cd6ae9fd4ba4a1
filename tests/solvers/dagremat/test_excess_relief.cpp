// The sweep's relief query (excess_relief.h) against the loop it replaces, on random peaks: exceeding
// and fitting stages mixed, bytes below, between and above the excesses, ranges ending inside a
// block, on a block's edge, past the last stage.
#include "hiremate/solvers/dagremat/excess_relief.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using hiremate::dagremat::ExcessRelief;

TEST(ExcessRelief, EqualsTheSumOverTheStages) {
  std::mt19937 rng(7);
  for (int n : {0, 1, 63, 64, 65, 300, 1000}) {
    std::vector<int64_t> peak(static_cast<size_t>(n));
    const int64_t cap = 1000;
    for (auto& p : peak) p = std::uniform_int_distribution<int64_t>(0, 2500)(rng);
    for (int from : {0, n / 3, n}) {
      const ExcessRelief relief(peak, cap, from);
      for (int q = 0; q < 200; ++q) {
        const int64_t bytes = std::uniform_int_distribution<int64_t>(0, 1800)(rng);
        const int r = std::uniform_int_distribution<int>(from, n + 2)(rng);
        int64_t want = 0;
        for (int u = from; u < std::min(r, n); ++u) want += std::min(bytes, std::max<int64_t>(0, peak[static_cast<size_t>(u)] - cap));
        ASSERT_EQ(relief(bytes, r), want) << "n " << n << " from " << from << " r " << r << " bytes " << bytes;
      }
    }
  }
}
