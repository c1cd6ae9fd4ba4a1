#include "hiremate/solvers/twremat/fixed_order.h"

#include "hiremate/common/error.h"

namespace hiremate::twremat {

namespace {

// For each position of `sequence` and each output of its node, the position of the last read of
// that value (before the node runs again), or the position itself when nothing reads it: what
// insert_frees keeps resident.
std::vector<std::vector<int>> last_reads(const Graph& g, const std::vector<int>& sequence) {
  std::vector<int> pending(g.data.size(), -1);
  std::vector<std::vector<int>> ends(sequence.size());
  for (size_t i = sequence.size(); i-- > 0;) {
    const auto& node = g.compute[sequence[i]];
    for (NodeId d : node.outputs) {
      ends[i].push_back(pending[d] >= 0 ? pending[d] : static_cast<int>(i));
      pending[d] = -1;
    }
    for (NodeId d : node.deps)
      if (pending[d] < 0) pending[d] = static_cast<int>(i);
  }
  return ends;
}

}  // namespace

std::vector<int> follow_fixed_order(const Graph& g, const Dag& dag, const std::vector<int>& sequence,
                                    Recursion& recursion) {
  HM_ASSERT(!g.is_training() && dag.n == static_cast<int>(g.compute.size()), "fixed order: generic DAGs only");
  const auto ends = last_reads(g, sequence);
  std::vector<char> resident(g.data.size(), 0), in_block(g.data.size(), 0), computed(dag.n, 0);
  for (size_t d = 0; d < g.data.size(); ++d) resident[d] = g.data[d].source;
  std::vector<std::vector<NodeId>> expire(sequence.size());
  std::vector<NodeId> block_values;
  std::vector<int> stamp(dag.n, -1), closure;
  int closures = 0;
  size_t next = 0;  // position in graph.order of the next first run
  std::vector<int> out;
  auto available = [&](NodeId d) { return resident[d] || in_block[d]; };
  auto ran = [&](int v) {
    if (!computed[v]) {
      computed[v] = 1;
      while (next < g.order.size() && computed[g.order[next]]) ++next;
    }
  };
  // Recomputes node p (all of whose ancestors ran before) from what is available now.
  auto recompute = [&](int p) {
    const int id = closures++;
    closure.assign(1, p);
    stamp[p] = id;
    for (size_t k = 0; k < closure.size(); ++k)
      for (NodeId d : g.compute[closure[k]].deps)
        if (!available(d))
          for (NodeId q : g.data[d].producers)
            if (stamp[q] != id) {
              stamp[q] = id;
              closure.push_back(q);
            }
    recursion.compute(closure, {p}, out);
  };
  for (size_t i = 0; i < sequence.size(); ++i) {
    const int v = sequence[i];
    if (!computed[v] && g.order[next] != v) {
      // The block: graph.order up to v, each node after its inputs.
      while (g.order[next] != v) {
        const int u = g.order[next];
        for (NodeId d : g.compute[u].deps)
          if (!available(d)) {
            HM_ASSERT(g.data[d].producers.size() == 1, "fixed order: a generic DAG's data has one producer");
            const int p = g.data[d].producers[0];
            recompute(p);
            for (NodeId o : g.compute[p].outputs) {
              in_block[o] = 1;
              block_values.push_back(o);
            }
          }
        out.push_back(u);
        for (NodeId o : g.compute[u].outputs) {
          in_block[o] = 1;
          block_values.push_back(o);
        }
        ran(u);
      }
      for (NodeId o : block_values) in_block[o] = 0;
      block_values.clear();
    }
    out.push_back(v);
    ran(v);
    const auto& node = g.compute[v];
    for (size_t k = 0; k < node.outputs.size(); ++k)
      if (ends[i][k] > static_cast<int>(i)) {
        resident[node.outputs[k]] = 1;
        expire[ends[i][k]].push_back(node.outputs[k]);
      }
    for (NodeId d : expire[i]) resident[d] = 0;
  }
  HM_ASSERT(next == g.order.size(), "fixed order: the sequence does not run every node");
  return out;
}

}  // namespace hiremate::twremat
