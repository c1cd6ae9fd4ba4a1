// A fast heuristic for generic DAGs in the fixed order, in the spirit of DTR (Kirisame et al.,
// ICLR 2021): run the nodes in graph.order; before each computation, evict resident values while
// the memory would exceed the budget, the victim being the one that is cheapest to recompute per
// byte and per step until its next use; recompute evicted values on demand, recursively.
// It gives checkmate a MIP start where keep-all does not fit, so the MILP always has an incumbent.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "hiremate/graph/graph.h"
#include "hiremate/schedule/schedule.h"

namespace hiremate {

// The compute ops of the greedy schedule (frees are left to insert_frees, which never uses more
// memory), or nothing when some computation cannot fit even after evicting everything it allows.
// Generic DAGs only (forward nodes). Nothing, too, when it runs past `seconds`.
std::optional<std::vector<Op>> greedy_evict_sequence(const Graph& g, int64_t budget, double seconds = 1e9);

}  // namespace hiremate
