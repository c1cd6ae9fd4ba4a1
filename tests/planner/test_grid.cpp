// The menus' grids (planner/grid.h): every position once, the range covered early.
#include "hiremate/planner/grid.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace hiremate::planner;

TEST(Grid, CoverageOrderVisitsEveryPositionOnceMiddleFirst) {
  for (int n : {1, 2, 7, 8, 11}) {
    std::vector<int> order = coverage_order(n);
    ASSERT_EQ(order.size(), static_cast<size_t>(n));
    std::vector<int> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < n; ++i) EXPECT_EQ(sorted[i], i + 1);
  }
  EXPECT_EQ(coverage_order(7), (std::vector<int>{4, 2, 6, 1, 3, 5, 7}));
}

// The save budgets of one peak reach the bottom of the range within the first three: a cluster
// whose time allows three solves has a low-save option (stepping down from the top, as with
// save_bisection off, a decoder layer's three solves reached 151 of its 440 MB).
TEST(Grid, SaveBudgetsCoverTheirRangeEarly) {
  const int64_t iface = 1000, most = 13000;  // a range of 12,000 bytes over 11 points: 1,000 apart
  std::vector<int64_t> s = save_budgets(iface, most, 11);
  ASSERT_EQ(s.size(), 11u);
  EXPECT_EQ(s[0], 7000);   // the middle
  EXPECT_EQ(s[1], 10000);  // then the quarters
  EXPECT_EQ(s[2], 4000);
  for (int64_t v : s) {
    EXPECT_GT(v, iface);
    EXPECT_LT(v, most);
  }
  std::vector<int64_t> sorted = s;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());  // none twice
  EXPECT_EQ(sorted.front(), 2000);
  EXPECT_TRUE(save_budgets(5000, 5000, 11).empty());  // nothing held beyond the interface
  EXPECT_TRUE(save_budgets(0, 3, 11).size() <= 2u);   // a tiny range: the distinct values only
}
