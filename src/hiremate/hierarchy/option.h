// What a cluster offers its parent (DESIGN §3; research/hiremate.md §4.1, §6.3, §10.5): one way to run
// the cluster's forward and backward halves, with the numbers the parent ILP needs. Options are the
// contract between levels: nothing else crosses a level.
//
// Every number is the simulator's (simulate() on the cluster graph and on its interior(), where the
// interface data weigh nothing), never a hand count. Memory is "internal": the parent accounts for
// interface data itself (§5.1), so save(i) below is the interior's resident bytes and during(i) the
// interior's bytes while op i runs (outputs and overhead included), both from the timeline.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hiremate/schedule/schedule.h"
#include "hiremate/hierarchy/cluster_problem.h"
#include "hiremate/hierarchy/correction.h"
#include "hiremate/solvers/solver.h"

namespace hiremate::hierarchy {

struct Option {
  // The cluster schedule split at its loss marker (excluded), in PARENT ids. The ops are the cluster
  // schedule's verbatim, deletes of interface data included: the parent disables those it overrides
  // (§6.2 step 3).
  std::vector<Op> fwd_ops, bwd_ops;
  double fwd_time = 0;  // compute time before the loss marker
  double bwd_time = 0;  // compute time after it
  int64_t mem = 0;      // save(loss): internal bytes held from the forward to the backward
  // max over ops 0..loss of during(i), minus mem: what the forward needs beyond what it leaves.
  int64_t fwd_overhead = 0;
  // max over ops loss..end of during(i), minus mem, minus save(end) (§6.3).
  int64_t bwd_overhead = 0;
  // Interface data (parent ids, sorted) the backward reads: input data read by any op after the loss,
  // and output data read there before an op after the loss regenerates it.
  std::vector<NodeId> dep_interfaces_data;
  Corrections corrections;  // per-op records of §5.5 (correction.h), one list per half
  int64_t inner_peak = 0;  // max during(i): HiRemate's peak_mem, interfaces excluded
  int64_t peak = 0;        // the cluster graph's simulated peak, interfaces included
  std::string solver;      // who made the schedule ("autograd", "recompute_all", "checkmate", ...)
  std::optional<int64_t> budget;  // the peak budget it was solved for, if any
};

// Simulates `cluster_schedule` (in the cluster graph's ids) and derives the option. A schedule the
// simulator refuses (invalid, incomplete, no loss marker) is a BadInput giving its reason.
Option make_option(const ClusterProblem& cg, const Schedule& cluster_schedule, const std::string& solver,
                   std::optional<int64_t> budget = std::nullopt);
// The option of a solver's plan on cg.graph; BadInput when the plan has no schedule.
Option make_option(const ClusterProblem& cg, const Plan& plan);

// The two baselines every cluster offers (§4.1): keep_all_schedule and recompute_all_schedule of the
// cluster graph.
Option autograd_option(const ClusterProblem& cg);
Option recompute_all_option(const ClusterProblem& cg);

// The cluster schedule an option stands for, back in the cluster graph's ids (the loss marker between
// the halves). Simulating it reproduces the option's numbers.
Schedule cluster_schedule(const ClusterProblem& cg, const Option& o);

// The fast-forward (ff) choice of a forward HCN (§4.1): run the forward keeping no phantoms.
struct FastForward {
  std::vector<Op> ops;   // parent ids
  double time = 0;
  int64_t overhead = 0;  // max during(i) over the ops, minus save(end) (internal bytes still held)
};
// A cluster's: the forward half of its recompute-all schedule, measured by simulation.
FastForward fast_forward(const ClusterProblem& cg);
// A single forward node's (an HCN without a sub-cluster): the node alone, without phantoms; its time
// and overhead are the node's own (nothing internal is left to simulate).
FastForward fast_forward(const Graph& g, NodeId forward);

}  // namespace hiremate::hierarchy
