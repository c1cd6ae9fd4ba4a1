// A generic DAG seen in Checkmate's fixed-order model (DESIGN §2): node t of graph.order is computed
// for the first time at "moment t"; between moments, earlier nodes may be recomputed.
//
// The unit of decision is a *gap*: the time between two consecutive first-computation reads of a
// value (or its own first computation and its first read), i.e. moments lo < t < hi for the value's
// producer or user at lo and its next user at hi. Within a gap the value is either kept (resident at
// every moment of the gap) or dropped (freed after moment lo and recomputed for the read at hi).
// Every read of a value at a first computation ends one gap. After its last user a value has a
// *tail* gap (last user, n): nothing requires it there, but holding it lets later recomputations
// read it.
#pragma once
#include <cstdint>
#include <vector>

#include "hiremate/graph/graph.h"
#include "hiremate/solvers/fixed_order_dag.h"

namespace hiremate::dagremat {

struct Gap {
  int value;  // position of the value's producer
  int lo;     // the producer's position or a user's position
  int hi;     // the next user's position (> lo); n for the tail gap
  bool tail = false;  // the gap after the last user
};

struct StageDag : FixedOrderDag {
  std::vector<Gap> gaps;                       // grouped by value, in time order
  std::vector<int> first_gap;                  // value -> index of its first gap (n + 1 entries)

  // `g` must be a generic DAG (no backward or loss nodes).
  explicit StageDag(const Graph& g);

  // The gap of `value` that holds moment t strictly inside (lo < t < hi), or -1.
  int gap_inside(int value, int t) const;  // (never a tail gap)
  // The gap of `value` with lo < t <= hi (the one a value resident on entry to stage t belongs to), or -1.
  int gap_at_boundary(int value, int t) const;
  // What must be resident at moment t whatever the schedule: t's output, its inputs, its overhead.
  int64_t moment_floor(int t) const;
  // Whether dropping the gap can relieve some moment: not a tail, a moment strictly inside, bytes to
  // save (the gap relaxation's variables, gap_bound.h and covering_dual.h).
  bool relieves(const Gap& g) const { return !g.tail && g.hi - g.lo >= 2 && mem[g.value] != 0; }
};

}  // namespace hiremate::dagremat
