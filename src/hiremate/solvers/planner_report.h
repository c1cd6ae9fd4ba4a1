// The hierarchical planner's report (planner/planner.h): what each level solved, for --verbose, the
// Python package's summary and the benchmarks. Plain data in the core so that a Plan can carry it
// (Plan::report) and front ends read it without knowing the planner's types.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace hiremate {

struct ClusterReport {
  int cluster = -1;
  size_t units = 0;
  int level = 0;
  int partitionings = 0;
  int solves = 0;       // H-ILP solves
  int optimal = 0, timed_out = 0, infeasible = 0;  // their statuses
  int reused = 0;       // grid points not solved: an optimal plan of looser budgets fits them, or looser ones were infeasible
  size_t max_vars = 0, max_rows = 0;               // the largest H-ILP solved
  int options = 0;      // options kept (baselines included)
  double seconds = 0;
};

struct PlannerReport {
  double partition_seconds = 0;
  size_t clusters = 0;        // clusters in the tree (copies included)
  std::vector<ClusterReport> solved;  // representatives below the root, bottom-up
  ClusterReport top;          // the root's H-ILP solves (one per partitioning)
  int top_solves = 0;
  int hilp_solves = 0;        // all levels
  int rejected = 0;           // extracted schedules the simulator refused (a model bug; expect 0)
  std::string winner;         // which top plan was returned
  // The flat MILP's probe (PortfolioOptions::flat_probe_share): empty where none ran; "won" where
  // CBC found a plan faster than TW-Remat's, or proved that none fits (the flat MILP kept its shares,
  // or its thread beside the hierarchy); "lost" elsewhere (the hierarchy got hilp's shares, or that
  // thread).
  std::string flat_probe;
  double seconds = 0;
  // One line per level: clusters solved, H-ILP solves and statuses, largest model, options, seconds.
  std::vector<std::string> level_lines() const;
};

}  // namespace hiremate
