#include "hiremate/solvers/twremat/start.h"

#include <numeric>

#include "hiremate/solvers/twremat/fixed_order.h"

namespace hiremate::twremat {

std::vector<Entry> to_entries(const Graph& g, const Dag& dag, const std::vector<int>& sequence) {
  std::vector<Entry> entries;
  entries.reserve(sequence.size());
  std::vector<int> last_run(g.compute.size(), -1);
  for (int v : sequence) {
    if (v == dag.loss) {
      entries.push_back({dag.is_virtual(v) ? kNone : v, true, true});
      continue;
    }
    const auto& node = g.compute[v];
    for (NodeId d : node.deps)
      if (g.data[d].kind == DataKind::Phantoms) {
        int owner = last_run[g.data[d].producers[0]];
        if (owner >= 0) entries[owner].keep = true;
      }
    bool has_phantoms = node.kind == ComputeKind::Forward && g.phantoms_of(v) != kNone;
    last_run[v] = static_cast<int>(entries.size());
    entries.push_back({v, false, !has_phantoms});
  }
  return entries;
}

std::vector<Op> to_ops(const std::vector<Entry>& entries) {
  std::vector<Op> ops;
  ops.reserve(entries.size());
  for (const Entry& e : entries) ops.push_back(e.loss ? Op::loss_marker(e.node) : Op::compute(e.node, e.keep));
  return ops;
}

std::vector<Entry> low_memory_start(const Graph& g, const Dag& dag, const TreeDecomposition& td, int leaf_size,
                                    size_t max_ops, Deadline deadline) {
  // On generic DAGs the recursion gets half the ops, the fixed-order repair the rest.
  const bool generic = !g.is_training();
  Recursion recursion(g, dag, td, leaf_size, generic ? max_ops / 2 : max_ops, deadline);
  std::vector<int> all(dag.n);
  std::iota(all.begin(), all.end(), 0);
  std::vector<int> sequence;
  recursion.compute(all, dag.sinks, sequence, false);
  if (generic) {
    recursion.set_max_ops(max_ops);
    sequence = follow_fixed_order(g, dag, sequence, recursion);
  }
  return to_entries(g, dag, sequence);
}

}  // namespace hiremate::twremat
