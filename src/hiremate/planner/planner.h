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
#include "hiremate/planner/portfolio.h"
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
  // Instead, the save budgets of one peak go in bisection order between the interface and the bytes
  // at the loss of the plan without a save budget (at most max_saves solves in all), so that options
  // spread down the range early (planner.cpp, save_sweep). Off: measured mixed
  // (bench/results/save_bisection.md: hilp, 30 s, 12 cells of 500 / 1,200 nodes, one thread: -1.08
  // points on average, encoder_decoder-500 at 35 % 13.44 -> 7.36 %; two threads, the encoder-decoders:
  // +1.56 on average).
  bool save_bisection = false;
  // A grid point (peak, save) is not solved where an earlier optimal solve of the same partitioning,
  // at budgets no tighter, has a plan that fits it (its model holds a subset of that one's options,
  // so that plan is its optimum too, the quotas aside), nor where budgets no tighter were proven
  // infeasible. false: every point is solved. measured: bench/results/grid_reuse.md
  bool reuse_grid_decisions = true;
  int total_options = 100;     // options handed to a parent, shared by size (§4.3)
  // The top H-ILP is also solved with this many options in all (0: not): beside the full one with two
  // threads or more, else first, for top_small_share of the time, the full one then starting from its
  // plan; the faster plan wins (offer_hilp). Half rather than a third: unet-100 at 25 % with one thread
  // needs 3-4 s of CBC for the small model's plan (56.61 %, else 108.25 %): hiremate, 30 s, 1 thread,
  // found it in 4 of 4 runs with half, 2 of 4 with a third, the other 13 rows at 100 / 500 nodes equal
  // (bench/results/top_model_start.md).
  int top_small_options = 25;
  double top_small_share = 0.5;
  // Each top H-ILP leaves this share of its time to a large neighbourhood search from CBC's plan
  // where CBC proves none optimal (HilpOptions::neighbourhood_share); 0: none.
  double top_neighbourhood_share = 0.5;
  // Where CBC proves the full top model optimal with time left, the top is solved again with this
  // many times the options (repeatedly, while CBC proves each optimal and the quotas grow); 1: never.
  double top_options_growth = 2;
  // The top also offers the H-ILP's constructive plan (no CBC: the persistent greedy, then the
  // exchange search of hilp_model.h) over every option of the menus, within this share of each
  // partitioning's time (it ends earlier where no exchange is left); 0: not.
  double top_persistent_share = 0.3;
  // It also offers that plan over the root's flat partitioning (every unit a part of its own, no
  // CBC), within this share of the top's time (its greedy and exchange search top_persistent_share of
  // it); 0: not. Where the root's clusters are coarse for the graph, choices per unit reach plans that
  // their menus cannot (transformer-100 at 50 %, hilp, 30 s: 9.83 -> 8.66 %, checkmate alone 8.61 %).
  // Not built where its model would take more than a tenth of the share (offer_persistent_all): at
  // 500 nodes it is not; nor above top_flat_persistent_max_units units, where that estimate's model
  // alone would cost time (about 0.1 s at 5,000 nodes). measured: bench/results/top_flat_persistent.md
  double top_flat_persistent_share = 0.25;
  size_t top_flat_persistent_max_units = 500;
  double level_time_limit = 5;  // seconds per H-ILP solve below the top
  double top_time_limit = 0;    // seconds for the top level's solvers together; 0: what is left
  bool twremat_at_top = true;  // also run TW-Remat on the whole graph; the fastest plan wins
  // Every cluster's menu also holds TW-Remat's plans of it on the peak grid (low-memory options the
  // H-ILP's own grid may not reach), each solve within `cheap_solver_time_limit` seconds.
  bool twremat_options = true;
  double cheap_solver_time_limit = 0.5;
  // At the lowest `twremat_save_peaks` peaks TW-Remat has a plan at, it is also solved with
  // `twremat_save_points` save budgets, stepping its plan's saved bytes down in equal steps
  // (twremat_options.h): plans that hold little from the forward to the backward, which a parent
  // needs at tight budgets; 0: none. These solves get `twremat_save_share` of the cluster's time
  // left after the plain plans, so that on large clusters the H-ILP's own grid keeps its time. Not
  // at every peak: each option enlarges the H-ILPs above. measured: bench/results/twremat_save_axis.md
  int twremat_save_points = 3;
  double twremat_save_share = 0.1;
  int twremat_save_peaks = 1;
  // Every cluster's menu also holds TW-Remat's plan of the whole graph at the budget restricted to
  // the cluster (hierarchy/restriction.h): how a plan of the whole graph runs it, which a cluster
  // solved alone does not find. The plan is TW-Remat's run at the top where twremat_at_top has one,
  // else a run of its own before the levels within this share of the limit; 0: none. hilp, 30 s,
  // 500 and 1,200 nodes: better or equal in 18 of 18 cells (encoder_decoder-1200 at 25 %: 10.58 ->
  // 8.83 %, TW-Remat alone 9.46 %). measured: bench/results/twremat_restrictions.md
  double twremat_restrictions_share = 0.05;
  // With it, the restrictions of up to this many copies of each representative (the clusters of its
  // class, solved once through it), mapped onto it (hierarchy::restricted_copies): the plan runs
  // copies differently, and the representative's own restriction is only one of those ways. 0: none.
  // hilp, 10 s, 1 thread, 100 and 500 nodes: better in 3 of 14 cells (transformer-500 at 25 %
  // 14.99 -> 13.13 %), equal elsewhere. measured: bench/results/twremat_restrictions.md
  int restricted_copies = 32;
  // Every cluster's menu also holds this many options along its save axis (hierarchy/save_front.h:
  // keep the phantoms of all forward nodes but the cheapest per byte, recompute the rest in the
  // backward), milliseconds in all; 0: none. Clusters of at least save_front_large_units compute
  // nodes hold save_front_points_large: a finer front lets the H-ILP above match what the whole
  // graph's save front reaches (hilp, 30 s, 2 threads, 4 -> 12 points everywhere: encoder_decoder-1200
  // at 35 % 3.34 -> 2.11 %, transformer-1200 at 35 % 2.36 -> 1.61 %, encoder_decoder-500 at 25 %
  // 13.91 -> 12.81 %), but on clusters of a dozen nodes the extra options crowd the quotas of the
  // H-ILPs above (unet-100 at 25 %, clusters of at most 12 units: 52.57 -> 70.15 %).
  // measured: bench/results/save_front_points.md
  int save_front_points = 4;
  int save_front_points_large = 12;
  size_t save_front_large_units = 32;
  // Every cluster's menu also holds the H-ILP's constructive plans (persistent_options.h) at the
  // peaks of the grid (in coverage order) and partitionings, without a save budget and with this
  // many save budgets down to the interface; 0: none. Each plan's greedy and exchange search get at
  // most `persistent_seconds`, all of them `persistent_share` of the cluster's time.
  int persistent_save_points = 4;
  double persistent_seconds = 0.05;
  double persistent_share = 0.1;
  // The top also offers the fastest of this many such plans of the whole graph that fits; 0: none
  // (hilp: the H-ILP's own plan is what it answers). encoder_decoder-500, 20 s, 2 threads: at 50 %
  // 1.01 %, at 35 % 6.73 %, both ahead of the top's H-ILP solves there.
  int top_save_front_points = 16;
  // Graphs of at most this many compute nodes also get the flat exact solver (checkmate) at the top,
  // with an equal share of the top's time; 0: never.
  size_t flat_checkmate_max_nodes = 0;
  bool rotor_at_top = false;   // also Rotor on the whole graph when it is chain-shaped (milliseconds)
  // On a chain-shaped graph the top also runs Rotor's chain DP over the levels' menus (HiRemate's
  // chain level, issue 21: each block offers the menu the levels built for its cluster, the
  // baselines and its fast forward), beside the H-ILP. The H-ILP's conservative accounting (a part's
  // interfaces resident for its whole step) has no plan near the floor, where nested recomputation of
  // the blocks' fast forwards fits: a 40-block chain at 10 % (hilp, 10 s) had none, Rotor 134 %.
  bool rotor_menus_at_top = false;
  // HierarchicalSolver only: plan generic DAGs (no backward) with dagremat instead of refusing them.
  bool dag_solver_for_generic_dags = false;
  // The time shares between the top's solvers, the flat MILP and its fallbacks (portfolio.h).
  PortfolioOptions portfolio;
};

// The report's types live in the core (solvers/planner_report.h) so that a Plan can carry one.
using hiremate::ClusterReport;
using hiremate::PlannerReport;

// Plans `g` (a training graph) under `budget` bytes. opt's deadline (deadline_of) bounds the whole
// run: the levels below the top get what their per-solve limits allow within it, the top what is left.
Plan plan(const Graph& g, int64_t budget, const SolveOptions& opt, const PlannerOptions& popt,
          PlannerReport* report = nullptr);

// The solver registry's face of the planner: `hiremate` (TW-Remat at the top too, the flat MILP on small graphs)
// and `hilp` (bottom_to_top only, H-ILP only).
class HierarchicalSolver : public Solver {
 public:
  HierarchicalSolver(std::string name, PlannerOptions popt) : name_(std::move(name)), popt_(std::move(popt)) {}
  std::string name() const override { return name_; }
  std::string description() const override;
  std::optional<std::string> unsupported(const Graph& g) const override;
  // The plan carries the planner's report (Plan::report) on training graphs.
  Plan solve(const Graph& g, int64_t budget, const SolveOptions& opt) const override;
  const PlannerOptions& options() const { return popt_; }

 private:
  std::string name_;
  PlannerOptions popt_;
};

}  // namespace hiremate::planner
