// Generic DAGs compute every node for the first time in graph.order (Checkmate's model, enforced by
// simulate()); the TW-Remat recursion does not. This pass rewrites a valid compute sequence so that
// it does, keeping the recursion's low memory where it can.
//
// Walking the sequence, before a node's first run that comes too early, the nodes of graph.order it
// skips are run first, in order, as a block: each after its inputs, which are either resident at
// that point of the original sequence (its values with a later use), produced earlier in the block,
// or recomputed by the recursion from what is resident. Block values serve only the block (the
// original sequence recomputes what it needs later), so they are freed at their last use in it; the
// greedy pass may later keep them instead of the later recomputation.
#pragma once
#include <vector>

#include "hiremate/graph/graph.h"
#include "hiremate/solvers/twremat/dag.h"
#include "hiremate/solvers/twremat/recursion.h"

namespace hiremate::twremat {

// `sequence`: compute nodes (a generic DAG: no virtual loss), valid in free order, running every
// node. Returns a sequence valid in the fixed order. The recursion's op cap and deadline apply to
// what it adds (TooManyOps, OutOfTime).
std::vector<int> follow_fixed_order(const Graph& g, const Dag& dag, const std::vector<int>& sequence,
                                    Recursion& recursion);

}  // namespace hiremate::twremat
