// The minimum budget: a fact of the memory model (DESIGN §2), not of any solver. While a compute
// node runs, its inputs, its outputs and its overhead are resident, and the sources always are; so
// no schedule, in any solver, peaks below the largest such sum over the nodes. Below it the answer
// is "infeasible" as a proof (solve_checked refuses such a budget once, for every solver); menus
// and the planner use it as the low end of their budget grids.
#pragma once
#include <cstdint>
#include <string>

#include "hiremate/graph/graph.h"

namespace hiremate {

// The smallest peak any schedule of `g` can have: the largest, over compute nodes, of what must be
// resident while it runs (its non-source inputs, its outputs but a forward's own phantoms, its
// overhead), plus the sources' bytes.
int64_t min_budget(const Graph& g);

// Why `budget`, below the minimum (`floor_budget`), has no plan: the note every such refusal carries.
std::string below_min_budget_note(int64_t budget, int64_t floor_budget);

}  // namespace hiremate
