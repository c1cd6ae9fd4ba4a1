// A cluster's menu: the options it offers its parent (research/hiremate.md §4.2, §4.3).
//
// build_menu runs the bottom solvers it is given on the cluster graph over a grid of budgets:
//  - peak axis: `peak_points` budgets spread evenly from the least any schedule can need
//    (min_budget, the largest "inputs + outputs + overhead" of one node) to the autograd
//    option's peak, both on the cluster graph, interfaces included (what a bottom solver sees);
//  - save axis, per peak budget P: `save_points` save budgets (bytes held at the loss) from
//    min(P, autograd's) down to recompute_all's (the least a schedule can hold at the loss), solved
//    from the largest down; the first one without a plan ends that row (smaller ones would fail too).
// Every option comes from make_option on a simulated plan; a solve without a plan (infeasible, timed
// out) becomes a note, never an option.
// Pruning: the baselines (autograd, recompute_all) always stay (HiRemate relies on both, §10.5);
// a solver option with the same (time, mem) as one already kept is a duplicate; an option is
// dominated when another is no slower, holds no more at the loss, peaks no higher in either half
// (mem + fwd_overhead, mem + bwd_overhead) and needs no interface the first does not (a subset of
// its dep_interfaces_data), and differs in one of these. Dominated solver options are dropped.
#pragma once
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "hiremate/hierarchy/cluster_problem.h"
#include "hiremate/hierarchy/option.h"

namespace hiremate::hierarchy {

struct MenuOptions {
  // Bottom solvers run on the grid (rockmate's: checkmate); none: the baselines alone.
  std::vector<std::shared_ptr<const Solver>> solvers;
  int peak_points = 4;     // budgets on the peak axis (§4.2)
  int save_points = 3;     // budgets on the save axis, solved from the largest save budget down
  double time_limit = 10;  // seconds per bottom solve
  // No solve starts past it, and none is given more time than is left before it.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  int threads = 1;
  bool verbose = false;    // progress on stderr
};

struct Menu {
  std::vector<Option> options;  // baselines first (autograd, recompute_all), then solver options by time
  int solves = 0;               // bottom solves run
  double seconds = 0;
  std::vector<std::string> notes;  // solves that failed / timed out, why
};

// BadInput for a missing (null) solver, a non-positive grid size or time limit.
Menu build_menu(const ClusterProblem& cg, const MenuOptions& opt);

// Deduplicates and Pareto-prunes as described above; options whose solver is "autograd" or
// "recompute_all" are never removed. Keeps the input order otherwise. Exposed for tests.
std::vector<Option> prune_options(std::vector<Option> options);

// §4.3: the share of the parent's `total_cap` options (100 upstream) that a sub-cluster of
// `cluster_size` compute nodes gets when the parent's sub-clusters hold `parent_size` in all:
// max(1, floor(total_cap * cluster_size / parent_size)). BadInput when parent_size is 0 or smaller
// than cluster_size.
size_t option_quota(size_t cluster_size, size_t parent_size, size_t total_cap = 100);

// Keeps at most `quota` options, always the extremes: the option holding the most at the loss and
// the one holding the least (the fastest among equals); with quota 1, the fastest option alone. Then
// it adds one at a time, in turn, (a) the option farthest below the lower convex hull of the kept
// ones on (mem, total time), measured in time at its mem, and (b) the option whose mem is farthest
// from every kept one (§4.3's farthest-point sampling); where one kind has no candidate the other
// goes, and it stops when no option is below the hull and all are at a kept mem. The result keeps
// the input order.
std::vector<Option> select_options(std::vector<Option> options, size_t quota);

}  // namespace hiremate::hierarchy
