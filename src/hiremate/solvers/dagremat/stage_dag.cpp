#include "hiremate/solvers/dagremat/stage_dag.h"

#include <algorithm>

#include "hiremate/common/error.h"

namespace hiremate::dagremat {

StageDag::StageDag(const Graph& g) : FixedOrderDag(g) {
  HM_ASSERT(!g.is_training(), "StageDag needs a generic DAG");
  first_gap.assign(n + 1, 0);
  for (int v = 0; v < n; ++v) {
    first_gap[v] = static_cast<int>(gaps.size());
    int lo = v;
    for (int u : users[v]) {
      gaps.push_back({v, lo, u});
      lo = u;
    }
    if (!users[v].empty() && lo < n - 1) gaps.push_back({v, lo, n, true});
  }
  first_gap[n] = static_cast<int>(gaps.size());
}

int StageDag::gap_at_boundary(int value, int t) const {
  const auto& u = users[value];
  if (t <= value || u.empty() || t >= n) return -1;
  if (t > u.back()) return gaps[first_gap[value + 1] - 1].tail ? first_gap[value + 1] - 1 : -1;
  // The first user >= t closes the gap.
  int k = static_cast<int>(std::lower_bound(u.begin(), u.end(), t) - u.begin());
  return first_gap[value] + k;
}

int StageDag::gap_inside(int value, int t) const {
  int gi = gap_at_boundary(value, t);
  return gi >= 0 && gaps[gi].hi != t && !gaps[gi].tail ? gi : -1;
}

int64_t StageDag::moment_floor(int t) const {
  int64_t m = mem[t] + overhead[t];
  for (int p : pred[t]) m += mem[p];
  return m;
}

}  // namespace hiremate::dagremat
