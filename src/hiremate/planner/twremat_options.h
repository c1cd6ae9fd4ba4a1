// TW-Remat's plans of a cluster as menu options (research/hiremate.md §4.2: "several solvers" per
// bottom sub-problem): milliseconds per solve, and lower-memory ways to run a cluster than
// recompute_all, so that the parent's H-ILP reaches the budgets a flat TW-Remat reaches.
//
// TW-Remat minimizes time under a peak only, so its plans keep whatever fits until the backward; a
// parent at a tight budget needs plans that hold little from the forward to the backward (save(loss),
// §6.3). The save budget is given through the cluster graph's synthetic loss, which stands for the
// rest of the parent between the cluster's halves: an overhead there of the peak less the target
// bytes at the loss makes TW-Remat free or recompute what it would have held. Not through
// SolveOptions::save_budget, which TW-Remat also takes (its walk along the removal path then stops
// at the first step past either budget): that gave slower plans above. measured:
// bench/results/twremat_save_axis.md#save_budget-instead
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "hiremate/hierarchy/cluster_problem.h"
#include "hiremate/hierarchy/option.h"

namespace hiremate::planner {

// Where TW-Remat's plan `plain` of the cluster at `peak` bytes holds internal bytes at the loss: up
// to `save_points` plans whose bytes at the loss are its bytes less k / (save_points + 1) of its
// internal saved bytes (k = 1, 2, ...: stops at the first target TW-Remat does not reach). Each solve
// gets min(per_solve, seconds_left() / 4) seconds, none below 10 ms.
std::vector<hierarchy::Option> twremat_save_options(const hierarchy::ClusterProblem& cg, const hierarchy::Option& plain,
                                                    int64_t peak, int save_points, double per_solve,
                                                    const std::function<double()>& seconds_left);

// TW-Remat's plan of the cluster at `peak` bytes, as an option (same limits); none where not found.
std::optional<hierarchy::Option> twremat_option(const hierarchy::ClusterProblem& cg, const Graph& graph, int64_t peak,
                                                double per_solve, const std::function<double()>& seconds_left);

}  // namespace hiremate::planner
