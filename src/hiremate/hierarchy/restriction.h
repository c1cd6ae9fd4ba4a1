// A whole graph's schedule restricted to one cluster: the cluster's own computations in the order
// the schedule runs them, the loss marker where the schedule has it, frees after last use in the
// cluster graph (insert_frees). It is how that schedule runs the cluster, as a schedule of the
// cluster graph (cluster_problem.h), from which make_option (option.h) derives a menu option.
//
// The planner restricts TW-Remat's plan of the whole graph at the budget to every cluster it solves
// (PlannerOptions::twremat_restrictions_share): a cluster solved alone does not know what the rest of the
// graph leaves it at the budget, and the parent's H-ILP could not combine the clusters the way that
// plan does (encoder_decoder-1200 at 25 %, 30 s: hilp 10.58 % where TW-Remat has 9.46 %; 8.83 % with
// the restrictions, bench/results/twremat_restrictions.md).
#pragma once
#include <optional>
#include <vector>

#include "hiremate/hierarchy/cluster_problem.h"
#include "hiremate/partition/cluster.h"
#include "hiremate/schedule/schedule.h"

namespace hiremate::hierarchy {

// `whole` in the parent graph's ids (cg's parent); none where the restriction is not a valid
// schedule of the cluster graph (the simulator's verdict).
std::optional<Schedule> restrict_schedule(const ClusterProblem& cg, const Schedule& whole);

// The same plan runs the copies of a cluster (the other clusters of its equivalence class in `tree`)
// differently: a decoder layer held, the next one's attention recomputed. The restriction of `whole`
// (g's ids) to each copy of representative `rep`, up to `max_copies` of them spread evenly over the
// class, mapped onto rep's nodes: schedules of cg, rep's cluster graph, so that the H-ILP above can
// run every copy the way the plan does. Copies whose restriction is not valid are skipped.
std::vector<Schedule> restricted_copies(const partition::ClusterTree& tree, const ClusterProblem& cg, int rep,
                                        const Schedule& whole, int max_copies);

}  // namespace hiremate::hierarchy
