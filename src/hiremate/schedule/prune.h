// Dead recomputations: a recomputation whose outputs nothing reads before they are made again
// (or never) costs time and memory for nothing. Solvers that compose schedules from coarser pieces
// make them: the H-ILP runs a part's whole fast forward to make again the one output a later stage
// reads, where only that output's cone inside the part is needed.
#pragma once
#include <vector>

#include "hiremate/graph/graph.h"
#include "hiremate/schedule/schedule.h"

namespace hiremate {

// `ops` less every compute that is not the first run of its node, writes no grad, and whose outputs
// are all dead (no read before the node's next run, or the end); a forward recomputation whose
// phantoms are dead but whose other outputs are read keeps them no more (keep_phantoms = false).
// Removing one makes its inputs' producers dead in turn: one backward scan removes them all.
// Deletes in `ops` are dropped (as insert_frees does, which is meant to follow). The result, with
// insert_frees, is valid wherever `ops` is, and no op holds more bytes than before: only fewer
// values are made, and each value's last read comes no later.
std::vector<Op> prune_dead_recomputations(const Graph& g, const std::vector<Op>& ops);

}  // namespace hiremate
