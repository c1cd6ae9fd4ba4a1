// The exact flat solver: Checkmate's MILP (Jain et al., MLSys 2020; research/peers.md §3.1) on CBC.
//
// Generic DAGs, in Checkmate's fixed-order model: stage t computes node t (the t-th of graph.order)
// for the first time and may recompute earlier nodes. Binary R[t,i] (compute i in stage t), S[t,i]
// (i resident on entry to stage t), FREE[t,(i,k)] (free i right after computing k in stage t; k = i
// frees a node that nothing later in the stage reads), continuous U[t,k] (memory while k runs).
// Differences from the published model, each exact in the simulator's memory model:
//  - a node that is resident is never recomputed (R[t,i] + S[t,i] <= 1): it would cost time and, in
//    the simulator, no memory, so excluding it loses no optimum and tightens the LP;
//  - FREE's product is linearized with one row per hazard (FREE <= R[t,k], FREE <= 1 - S[t+1,i],
//    FREE <= 1 - R[t,j]) and no covering row: freeing never adds memory, so FREE can always take the
//    product's value and the feasible R and S are the same; frees after a stage's last op (which no
//    memory row of the stage sees) and FREE[t,(k,k)] for k < t (see usefulness) are not created;
//  - usefulness (dominance) rows: a recomputation or a resident value that nothing in the stage reads
//    and that is not carried to the next stage is excluded (dropping it saves time and memory, so
//    an optimum without one exists);
//  - free-once rows: sum_k FREE[t,(i,k)] + S[t+1,i] <= S[t,i] + R[t,i] (valid for every integer
//    solution; the LP could otherwise free a value more than it holds);
//  - knapsack rows: while node t runs, its inputs, itself and every earlier value carried to t + 1
//    are resident: sum mem_i S[t+1,i] <= budget - (t, its inputs, its overhead), explicit so that
//    CBC derives cover cuts (on rl1-n100 at 90 / 80 % the LP bound went from 0.27 / 0.79 % CI to
//    0.46 / 1.21 %; the optima are 0.79 / 2.30 %);
//  - R and S of a node are fixed to 0 in stages after its last descendant (nothing can use it);
//  - memory in units of the GCD of the sizes; sources are a constant offset.
// Solving: first the lazy relaxation (checkmate_dag.cpp, StageModel::lazy): the model without FREE
// and U, whose optimum is a lower bound, solved again with the memory rows of the stages its plan
// overflows, until a plan fits; a plan whose time equals that bound is optimal. What is left of the
// time goes to the full model (CBC without preprocessing and feasibility pump), with the greedy
// plan as fallback. This is the MILP alone: the registry's `checkmate` is a composition around it
// (planner/portfolio.h: dagremat's plan as its start on generic DAGs, TW-Remat's where it finds
// nothing); a start plan comes in through solve_from.
// The solution's compute sequence is turned into a schedule that frees after last use, which never
// uses more memory than the MILP accounted for, and the simulator checks it against the budget.
#pragma once
#include <limits>

#include "hiremate/solvers/min_budget.h"
#include "hiremate/solvers/solver.h"

namespace hiremate {

// The MILP's knobs: its share of the time and the measured speeds its plan of the time rests on.
struct CheckmateOptions {
  // CBC's share of the limit, less the build time; the rest is for the caller's fallbacks and the
  // final checks.
  double cbc_share = 0.85;
  // The share of CBC's time the lazy relaxation (StageModel::lazy) gets, where there is one.
  // measured: bench/results/time_shares.md#checkmate-relaxation-share
  double relaxation_share = 0.75;
  // A model whose estimated build time (checkmate_build_seconds) exceeds this share of the limit is
  // not built (building is not cut by the limit): the solve ends TimedOut without a plan at once.
  double max_build_share = 0.5;
  // The greedy fallback plan of a generic DAG gets at most this share of the limit.
  double heuristic_share = 0.05;
  // Model building speed in estimated variables (an upper bound, about twice the actual count) per
  // second. measured: bench/results/time_shares.md#checkmate-build-speed
  double training_variables_per_second = 3e6;
  double dag_variables_per_second = 1.2e6;
  // A CBC that ignores its limit (it checks it only between steps) is killed at this share of the
  // solve's limit at the latest, less 0.2 s for decoding and simulating.
  double hard_stop_share = 1.05;
  // A probe (the planner's, planner.cpp flat_beside): where > 0, CBC's search stops once the solve
  // has run this many seconds unless it holds a plan faster than probe_time (the MILP's objective
  // is the plan's time); otherwise it goes on to the limit (milp::Options::checkpoint_seconds).
  double probe_seconds = 0;
  double probe_time = std::numeric_limits<double>::infinity();
};

class CheckmateSolver : public Solver {
 public:
  explicit CheckmateSolver(CheckmateOptions copt = {}) : copt_(copt) {}
  std::string name() const override { return "checkmate"; }
  std::string description() const override {
    return "exact MILP (Checkmate) on CBC; optimal for generic DAGs in the fixed order, anytime under --time-limit";
  }
  std::optional<std::string> unsupported(const Graph& g) const override;
  Plan solve(const Graph& g, int64_t budget, const SolveOptions& opt) const override { return solve_from(g, budget, opt, nullptr); }
  // The same, with another solver's plan as CBC's MIP start where it fits the budget and the model
  // can express it (on a training graph the stages then follow its first computations, so the
  // optimum is over that order). The result is never slower than `start`.
  // The time it takes from opt.deadline where one is set (a composition's, started before it), so
  // that what the caller spent first counts against the MILP's share.
  Plan solve_from(const Graph& g, int64_t budget, const SolveOptions& opt, const Schedule* start) const;

 private:
  CheckmateOptions copt_;
};

// What checkmate's note says where its plan is optimal in RK-Checkmate's model but the graph has other
// orders of first computations (the status is then Feasible, Plan::optimal_in_model set, and the
// bound one for every schedule, lower_bound.h).
inline constexpr const char* kOptimalInModel = "optimal in RK-Checkmate's model";
// Whether `p` is optimal in RK-Checkmate's model (over the graph's or the given plan's order on a
// training graph; for the graph itself where the status says Optimal).
inline bool optimal_in_model(const Plan& p) { return p.status == PlanStatus::Optimal || p.optimal_in_model; }

// Whether g.order is the graph's only topological order: each node reads an output of the one
// before it. Then fixing the order of first computations (RK-Checkmate's stages) restricts nothing,
// and the training model's proof of infeasibility holds for every schedule (exit 3, not 4).
bool order_is_forced(const Graph& g);
// About how many seconds building checkmate's model of `g` takes on this project's 2-core machine
// (from checkmate::estimated_variables, an upper bound): checkmate does not build a model whose
// estimate exceeds max_build_share of its limit.
double checkmate_build_seconds(const Graph& g, const CheckmateOptions& copt = {});
// Whether checkmate builds its model of `g` under a limit of `seconds` (else it ends at once).
bool checkmate_builds(const Graph& g, double seconds, const CheckmateOptions& copt = {});
// CBC's time in a solve of `limit` seconds whose model took `built` seconds to build (and no more
// than milp's hard deadline, 1.1 x its limit + 2 s, allows within `limit`).
double checkmate_cbc_seconds(double limit, double built, const CheckmateOptions& copt = {});

}  // namespace hiremate
