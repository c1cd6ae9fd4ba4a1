// Convexity and the quotient graph (research/hiremate.md §3.1, §3.7).
//
// A set S of units is convex iff no path leaves S and comes back into it. A partitioning's quotient
// graph has the parts as nodes and an edge P -> Q when a unit of P feeds a unit of Q; it is acyclic
// iff the parts can be scheduled one after another as atomic steps (FWD[P] / BWD[P] of the H-graph),
// which implies that every part is convex. The partitioners build convex parts; the driver checks
// the quotient of every partitioning it records, and the tests check both on every tree.
#pragma once
#include <vector>

#include "hiremate/partition/forward_graph.h"

namespace hiremate::partition {

// `units`: sorted. Explores only units between min(S) and max(S) that S reaches.
bool is_convex(const ForwardGraph& fg, const std::vector<int>& units);

struct Quotient {
  bool acyclic = false;
  std::vector<int> order;  // a topological order of the parts (ties: smallest first unit), if acyclic
  bool chain = false;      // acyclic and a single path: each part feeds only the next one
};

// `parts`: disjoint, each sorted. Edges to units outside every part are ignored.
Quotient quotient(const ForwardGraph& fg, const std::vector<std::vector<int>>& parts);

}  // namespace hiremate::partition
