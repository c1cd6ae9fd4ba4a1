#include "hiremate/planner/grid.h"

#include <algorithm>

namespace hiremate::planner {

std::vector<int> coverage_order(int n) {
  std::vector<int> order;
  std::vector<char> seen(n + 1, 0);
  for (int step = n + 1; step >= 1; step /= 2)
    for (int i = step / 2; i <= n; i += std::max(step, 1))
      if (i >= 1 && !seen[i]) {
        seen[i] = 1;
        order.push_back(i);
      }
  for (int i = 1; i <= n; ++i)
    if (!seen[i]) order.push_back(i);
  return order;
}

std::vector<int64_t> save_budgets(int64_t iface, int64_t most, int points) {
  std::vector<int64_t> out;
  if (most <= iface || points <= 0) return out;
  for (int i : coverage_order(points)) {
    const int64_t save = iface + (most - iface) * (points + 1 - i) / (points + 1);
    if (save > iface && save < most && (out.empty() || std::find(out.begin(), out.end(), save) == out.end()))
      out.push_back(save);
  }
  return out;
}

}  // namespace hiremate::planner
