// The hierarchical planner (research/hiremate.md §1.1, §4.2, §4.7): H-Partition, then the H-ILP
// level by level, bottom-up, then the top level under the user's budget.
//
// Every representative cluster below the root is solved over a grid of (peak, save) budgets; each
// solution becomes an option (option.h) made by the simulator from its schedule. Copies of a cluster
// take their representative's options through a Translator (partition/translate.h), so a graph of
// identical layers costs one set of solves whatever its depth. At the top, each partitioning of the
// root is solved with the user's budget, and the fastest plan the simulator confirms is returned.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hiremate/graph/graph.h"
#include "hiremate/partition/partition.h"
#include "hiremate/solvers/solver.h"

namespace hiremate::planner {

struct PlannerOptions {
  // The H-ILP solves every partitioning, chains included, so bottom_to_top must cut long chains too
  // (upstream leaves them whole for Rotor).
  std::vector<std::string> partitioners{"bottom_to_top:can_use_rotor=false"};
  int peak_points = 8;         // peak budgets per partitioning below the top (§4.2)
  // Per peak budget, save budgets walk down the options' saved memory (an epsilon-constraint sweep
  // of the time / saved-memory front): each next one is the last plan's bytes at the loss minus
  // 1/(2 save_points) of the range, at most `max_saves` solves.
  int save_points = 6;
  int max_saves = 12;
  int total_options = 100;     // options handed to a parent, shared by size (§4.3)
  double level_time_limit = 5;  // seconds per H-ILP solve below the top
  double top_time_limit = 0;    // seconds for the top level's solvers together; 0: what is left
  bool twremat_at_top = true;  // also run TW-Remat on the whole graph; the fastest plan wins
  // Every cluster's menu also holds TW-Remat's plans of it on the peak grid (low-memory options the
  // H-ILP's own grid may not reach), each solve within `cheap_solver_time_limit` seconds.
  bool twremat_options = true;
  double cheap_solver_time_limit = 0.5;
  // Graphs of at most this many compute nodes also get the flat exact solver (checkmate) at the top,
  // with an equal share of the top's time; 0: never.
  size_t flat_checkmate_max_nodes = 0;
  bool rotor_at_top = false;   // also Rotor on the whole graph when it is chain-shaped (milliseconds)
  // HierarchicalSolver only: plan generic DAGs (no backward) with dagremat instead of refusing them.
  bool dag_solver_for_generic_dags = false;
};

struct ClusterReport {
  int cluster = -1;
  size_t units = 0;
  int level = 0;
  int partitionings = 0;
  int solves = 0;       // H-ILP solves
  int optimal = 0, timed_out = 0, infeasible = 0;  // their statuses
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
  double seconds = 0;
  // One line per level: clusters solved, H-ILP solves and statuses, largest model, options, seconds.
  std::vector<std::string> level_lines() const;
};

// Plans `g` (a training graph) under `budget` bytes. opt.time_limit bounds the whole run: the levels
// below the top get what their per-solve limits allow within it, the top what is left.
Plan plan(const Graph& g, int64_t budget, const SolveOptions& opt, const PlannerOptions& popt,
          PlannerReport* report = nullptr);

// The solver registry's face of the planner: `hiremate` (every partitioner, TW-Remat at the top too)
// and `hilp` (bottom_to_top only, H-ILP only).
class HierarchicalSolver : public Solver {
 public:
  HierarchicalSolver(std::string name, PlannerOptions popt) : name_(std::move(name)), popt_(std::move(popt)) {}
  std::string name() const override { return name_; }
  std::string description() const override;
  std::optional<std::string> unsupported(const Graph& g) const override;
  Plan solve(const Graph& g, int64_t budget, const SolveOptions& opt) const override;
  const PlannerOptions& options() const { return popt_; }  // to call plan() with a report

 private:
  std::string name_;
  PlannerOptions popt_;
};

}  // namespace hiremate::planner
