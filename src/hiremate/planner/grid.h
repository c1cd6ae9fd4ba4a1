// The grids a cluster's menu is solved on (§4.2): peak budgets, and per peak the save budgets,
// visited in an order that covers their range early, so that a cluster whose time runs out still
// has options spread over it.
#pragma once
#include <cstdint>
#include <vector>

namespace hiremate::planner {

// Positions 1..n in bisection order: n/2, n/4, 3n/4, ..., then the rest ascending.
std::vector<int> coverage_order(int n);

// `points` save budgets strictly between `iface` (the interface, below which nothing is held) and
// `most` (the bytes at the loss of the plan without a save budget), evenly spaced, in coverage order:
// the middle of the range first, then its quarters, ... Empty where most <= iface.
std::vector<int64_t> save_budgets(int64_t iface, int64_t most, int points);

}  // namespace hiremate::planner
