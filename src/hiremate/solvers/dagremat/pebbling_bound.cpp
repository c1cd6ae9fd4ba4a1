#include "hiremate/solvers/dagremat/pebbling_bound.h"

#include <algorithm>

namespace hiremate::dagremat {

namespace {

// Each node's M and its inputs in the recursion's order.
struct Recursion {
  std::vector<int64_t> peak;
  std::vector<std::vector<int>> inputs;

  explicit Recursion(const FixedOrderDag& dag) : peak(dag.n, 0), inputs(dag.n) {
    for (int v = 0; v < dag.n; ++v) {  // positions are topological: inputs come first
      auto& in = inputs[v];
      in = dag.pred[v];
      std::stable_sort(in.begin(), in.end(),
                       [&](int a, int b) { return peak[a] - dag.mem[a] > peak[b] - dag.mem[b]; });
      int64_t held = 0, most = 0;
      for (int u : in) {
        most = std::max(most, held + peak[u]);
        held += dag.mem[u];
      }
      peak[v] = std::max(most, held + dag.mem[v] + dag.overhead[v]);
    }
  }
};

}  // namespace

PebblingBound recursive_pebbling_bound(const FixedOrderDag& dag) {
  const Recursion r(dag);
  PebblingBound b;
  for (int v = 0; v < dag.n; ++v)
    if (b.node < 0 || r.peak[v] > b.bytes) b = {r.peak[v], v};
  return b;
}

std::optional<std::vector<int>> recursive_pebbling_positions(const FixedOrderDag& dag, size_t max_ops) {
  const Recursion r(dag);
  std::vector<int> out;
  // Post-order of the recursion tree of v, explicitly (depth up to the DAG's).
  auto emit = [&](int root) {
    struct Frame {
      int v;
      size_t next;
    };
    std::vector<Frame> stack{{root, 0}};
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < r.inputs[f.v].size()) {
        const int u = r.inputs[f.v][f.next++];
        stack.push_back({u, 0});
        continue;
      }
      out.push_back(f.v);
      stack.pop_back();
      if (out.size() > max_ops) return false;
    }
    return true;
  };
  for (int t = 0; t < dag.n; ++t)
    if (!emit(t)) return std::nullopt;
  return out;
}

}  // namespace hiremate::dagremat
