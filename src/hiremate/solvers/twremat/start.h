// The starting point of the greedy pass: the recursion's low-memory compute sequence for one leaf
// size, in the fixed order on generic DAGs, as entries carrying what an Op needs.
#pragma once
#include <cstddef>
#include <vector>

#include "hiremate/graph/graph.h"
#include "hiremate/schedule/schedule.h"
#include "hiremate/solvers/twremat/dag.h"
#include "hiremate/solvers/twremat/recursion.h"
#include "hiremate/solvers/twremat/tree_decomposition.h"

namespace hiremate::twremat {

// One op of a compute sequence: a compute of `node`, or the loss marker (node: the graph's loss,
// or kNone for a training graph without a loss node).
struct Entry {
  NodeId node = kNone;
  bool loss = false;
  bool keep = true;  // keep_phantoms
};

// Entries of a Dag-node sequence. A forward with phantoms keeps them only on its last run before a
// node that reads them (its backward); other forwards keep the default (true, as autograd).
std::vector<Entry> to_entries(const Graph& g, const Dag& dag, const std::vector<int>& sequence);

// The active entries as Ops, without frees (insert_frees adds them).
std::vector<Op> to_ops(const std::vector<Entry>& entries);

// The low-memory start for `leaf_size`: the recursion computing every sink, rewritten to follow the
// fixed order on generic DAGs. Throws TooManyOps past `max_ops` ops, OutOfTime past the deadline.
std::vector<Entry> low_memory_start(const Graph& g, const Dag& dag, const TreeDecomposition& td, int leaf_size,
                                    size_t max_ops, Deadline deadline);

}  // namespace hiremate::twremat
