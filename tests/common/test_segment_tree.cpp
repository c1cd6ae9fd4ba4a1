// SegmentTree (common/segment_tree.h): range add, range max, set, assign, and the positions above a
// threshold, against a plain array under random operations.
#include "hiremate/common/segment_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

using hiremate::SegmentTree;

TEST(SegmentTree, MatchesAnArrayUnderRandomOperations) {
  std::mt19937 rng(7);
  for (int n : {1, 2, 5, 17, 64, 100}) {
    SegmentTree tree(n);
    std::vector<int64_t> a(n, 0);
    std::uniform_int_distribution<int> pos(0, n - 1), val(-50, 50), op(0, 4);
    for (int step = 0; step < 400; ++step) {
      int l = pos(rng), r = pos(rng);
      if (l > r) std::swap(l, r);
      const int64_t x = val(rng);
      switch (op(rng)) {
        case 0:
          tree.add(l, r, x);
          for (int i = l; i <= r; ++i) a[i] += x;
          break;
        case 1:
          tree.set(l, x);
          a[l] = x;
          break;
        case 2:
          tree.assign(l, r, [&](int i) { return x + i; });
          for (int i = l; i <= r; ++i) a[i] = x + i;
          break;
        case 3:
          ASSERT_EQ(tree.max(l, r), *std::max_element(a.begin() + l, a.begin() + r + 1)) << n << " " << step;
          break;
        default: {
          std::vector<int> got, want;
          tree.above(l, r, x, [&](int i) {
            got.push_back(i);
            return true;
          });
          for (int i = l; i <= r; ++i)
            if (a[i] > x) want.push_back(i);
          ASSERT_EQ(got, want) << n << " " << step;
          // Stops when asked to: the first one only.
          got.clear();
          tree.above(l, r, x, [&](int i) {
            got.push_back(i);
            return false;
          });
          ASSERT_EQ(got.size(), std::min<size_t>(1, want.size()));
          if (!want.empty()) {
            ASSERT_EQ(got[0], want[0]);
          }
        }
      }
    }
  }
}
