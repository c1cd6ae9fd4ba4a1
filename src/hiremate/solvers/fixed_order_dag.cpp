#include "hiremate/solvers/fixed_order_dag.h"

#include <algorithm>

namespace hiremate {

FixedOrderDag::FixedOrderDag(const Graph& g) : n(static_cast<int>(g.order.size())), order(g.order) {
  pos.assign(g.compute.size(), -1);
  for (int p = 0; p < n; ++p) pos[g.order[p]] = p;
  mem.assign(n, 0);
  overhead.assign(n, 0);
  cost.assign(n, 0);
  pred.assign(n, {});
  users.assign(n, {});
  sources = g.source_bytes();
  for (int p = 0; p < n; ++p) {
    const auto& c = g.compute[g.order[p]];
    cost[p] = c.time;
    overhead[p] = c.overhead;
    for (NodeId d : c.outputs) mem[p] += g.data[d].bytes;
    for (NodeId d : c.deps)
      for (NodeId q : g.data[d].producers) pred[p].push_back(pos[q]);
    std::sort(pred[p].begin(), pred[p].end());
    pred[p].erase(std::unique(pred[p].begin(), pred[p].end()), pred[p].end());
    for (int q : pred[p]) users[q].push_back(p);
  }
}

}  // namespace hiremate
