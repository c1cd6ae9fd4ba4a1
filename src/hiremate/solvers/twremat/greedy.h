// The greedy pass (nshepperd's twremat, research/peers.md §3.7): from a low-memory schedule, remove
// recomputations (keep a value from its previous run instead) while the peak stays in budget.
//
// The removals follow a path that does not depend on the budget; a budget only says where the walk
// stops: before the first step whose peak (or bytes at the loss, under a save budget) would exceed
// it. So a larger budget walks at least as far, and the time never grows with the budget (except
// where the deadline cuts the walk). Two orders of the path, each better on some graphs:
//  - LowestPeak: next, the removal that leaves the lowest peak (ties: the most time saved per byte
//    written, then the earliest entry), with lazily refreshed keys (a key is recomputed when it
//    reaches the top of the queue and put back if it grew). Water-filling: when the walk stops,
//    no other removal fits either (up to stale keys).
//  - TimePerByte: the removals in order of time saved per byte the node writes (ties: the earliest
//    entry). Spends memory where it buys the most time, but stops at the first that does not fit.
#pragma once
#include <cstdint>
#include <optional>

#include "hiremate/solvers/twremat/memory_model.h"
#include "hiremate/solvers/twremat/recursion.h"

namespace hiremate::twremat {

enum class PathOrder { LowestPeak, TimePerByte };
const char* to_string(PathOrder order);

struct WalkResult {
  size_t merges = 0;
  bool out_of_time = false;
};

// Walks `model` along the removal path until the next step would exceed `budget` (or `save_budget`
// at the loss), or the deadline passes. The model is left at the last state reached; if it started
// within the budgets it stays within them.
WalkResult walk_removal_path(MemoryModel& model, const Graph& g, PathOrder order, int64_t budget,
                             std::optional<int64_t> save_budget, Deadline deadline);

}  // namespace hiremate::twremat
