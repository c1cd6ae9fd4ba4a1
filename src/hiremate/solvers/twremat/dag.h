// TW-Remat's view of a Graph: a DAG over compute nodes (research/peers.md §3.7, hiremate.md §4.5).
//
// Node c depends on node p when c reads a data node that p writes (a phantoms dep makes a backward
// depend on its forward; a grad dep on every producer of the grad). Sources are always resident and
// make no edge. Training graphs add what the memory model requires beyond data:
//  - backward and loss nodes (and anything touching a grad) run exactly once: not recomputable;
//  - every backward comes after the loss marker: a backward that does not already descend from
//    the loss gets an ordering edge from it; a training graph without a loss node gets a virtual
//    one (id == number of compute nodes, no data) that stands for the bare loss marker.
// `rank` is a topological order of this DAG that follows graph.order wherever the edges allow
// (exactly graph.order on generic DAGs), so that ties break the same way on every run.
#pragma once
#include <vector>

#include "hiremate/graph/graph.h"

namespace hiremate::twremat {

struct Dag {
  int n = 0;                                  // compute nodes, plus the virtual loss if any
  std::vector<std::vector<int>> preds, succs; // unique, sorted by rank
  std::vector<std::vector<int>> neighbours;   // the undirected skeleton: preds and succs, unique
  std::vector<int> rank, by_rank;             // node -> position, position -> node
  std::vector<char> recomputable;
  std::vector<int> sinks;                     // nodes without successors, by rank
  int loss = -1;                              // the node standing for the loss marker, -1 if none
  bool virtual_loss = false;

  explicit Dag(const Graph& g);
  bool is_virtual(int v) const { return virtual_loss && v == loss; }
};

}  // namespace hiremate::twremat
