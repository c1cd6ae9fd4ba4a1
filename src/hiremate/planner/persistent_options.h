// The H-ILP's constructive plans of a cluster (hierarchy/hilp_model.h's persistent_hilp) as menu
// options along the save axis: no CBC, milliseconds per plan.
//
// A cluster's CBC solves may end without reaching its low saves (a large encoder cluster within a
// short limit), and then its parent can only recompute whole layers where a flat solver
// keeps each layer's costly outputs and recomputes the rest. The greedy walks down the kept bytes by
// least time per byte freed, choosing among the sub-clusters' own options, and the exchange search
// improves on it (hilp_model.h): the combinations of "keep what is dear per byte" options that a
// parent at a tight budget needs. measured: bench/results/exchange_search.md
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "hiremate/hierarchy/cluster_problem.h"
#include "hiremate/hierarchy/hgraph.h"
#include "hiremate/hierarchy/option.h"

namespace hiremate::planner {

// persistent_hilp's plans of `hg` (the cluster graph over one partitioning's parts) under `peak`:
// without a save budget, then with `save_points` save budgets in equal steps from that plan's bytes
// at the loss down to `floor` (the interface's bytes), each a distinct option. Each plan's greedy
// gets min(per_plan, seconds_left() / 4) seconds; none once that is below 10 ms.
std::vector<hierarchy::Option> persistent_save_options(const hierarchy::ClusterProblem& cg,
                                                       const hierarchy::HGraph& hg, int64_t peak, int64_t floor,
                                                       int save_points, double per_plan,
                                                       const std::function<double()>& seconds_left);

}  // namespace hiremate::planner
