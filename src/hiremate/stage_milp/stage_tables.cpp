#include "hiremate/stage_milp/stage_tables.h"

#include <algorithm>

namespace hiremate::stage_milp {

int StageTables::data_need(NodeId d) const {
  int last = -1;
  for (int u : users[d]) last = std::max(last, last_need[u]);
  return last;
}

void StageTables::add_grad(int first, int last, int64_t units) {
  grads_new[first] += units;
  for (int t = first + 1; t <= last; ++t) grads_at_start[t] += units;
}

void StageTables::find_last_need(const std::vector<int>& keeps_for) {
  last_need.assign(T, 0);
  for (int t = T - 1; t >= 0; --t) {
    last_need[t] = t;
    if (kind[t] != ComputeKind::Forward) continue;
    for (NodeId d : data_out[t])
      for (int u : users[d]) last_need[t] = std::max(last_need[t], last_need[u]);
    if (keeps_for[t] >= 0) last_need[t] = std::max(last_need[t], keeps_for[t]);
  }
}

}  // namespace hiremate::stage_milp
