// A proof that a budget is feasible in the fixed-order model (issue 23): every stage t may recompute
// node t's whole cone from nothing (a plan that frees everything between stages is valid), so a
// budget that holds a pebbling of every node from scratch has a plan. The pebbling here is the
// recursive one: each input in turn, computed recursively and held, the inputs ordered by what their
// own pebbling needs beyond their bytes, most first (Sethi and Ullman's order for trees); its peak is
// M(v) = max(max_i(bytes of the inputs before i + M(input i)), bytes of all inputs + v's bytes and
// overhead). It recomputes shared ancestors once per path, so its time grows exponentially with depth:
// a proof of existence, not a plan to return (on the 2,000-node dense DAG of issue 23, 36.6 % of the
// keep-all peak, with about 1e42 computations). Where the budget is at or above it, "no plan found"
// is a search that fell short, never a budget too low. O(edges log degree).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "hiremate/solvers/fixed_order_dag.h"

namespace hiremate::dagremat {

struct PebblingBound {
  int64_t bytes = 0;  // max over nodes of M(v), sources excluded (resident throughout, as in the cap)
  int node = -1;      // the position where it is reached (-1 for an empty DAG)
};
PebblingBound recursive_pebbling_bound(const FixedOrderDag& dag);

// That plan, stage by stage, as positions (recomputations included), or nothing when it would be
// longer than `max_ops` computations (for tests: its simulated peak is at most the bound).
std::optional<std::vector<int>> recursive_pebbling_positions(const FixedOrderDag& dag, size_t max_ops);

}  // namespace hiremate::dagremat
