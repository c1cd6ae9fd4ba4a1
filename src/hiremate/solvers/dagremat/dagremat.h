// dagremat: a scalable solver for generic DAGs in Checkmate's fixed-order model (issue 12), with a
// lower bound reported with every plan.
//
// 1. Bound and start: the gap relaxation (gap_bound.h), a covering ILP over "drop this value
//    between these two reads", solved by CBC under a share of the time limit. Its proven bound
//    plus one run of every node is a lower bound on any plan's time.
// 2. Plans: hold/resume decisions per gap (keep_state.h), each stage recomputing what it needs. The
//    retention greedy (retention_greedy.h) gives a first state of drops of small cones, the
//    DTR pass (dtr_pass.h) a checked plan in milliseconds where it gets through, the
//    eviction sweep (evict_sweep.h) a state in a fraction of a second; two more
//    starts (keep-all; the relaxation's solution while under 20 % of the limit is gone) are
//    repaired greedily to the budget and polished (when every repair gets stuck, annealing from the
//    stuck state looks for a first plan); the better one is improved (search.h) by ruin
//    and recreate on even threads and annealing on odd ones, each with its own seed, until the
//    deadline, the bound, or a run of rounds without progress (docs/dagremat.md).
// 3. The plan's compute sequence, frees after last use, is simulated and checked against the
//    budget. Optimal when its time meets the bound (or keep-all fits), Feasible otherwise.
// Deterministic for a given thread count unless the time limit cuts the search (it usually does on
// graphs of hundreds of nodes: the searches run until the limit unless they meet the bound).
#pragma once
#include "hiremate/solvers/solver.h"

namespace hiremate {

class DagRematSolver : public Solver {
 public:
  std::string name() const override { return "dagremat"; }
  std::string description() const override {
    return "generic DAGs, fixed order: keep/drop search per value gap with a covering-relaxation lower bound "
           "(fast, anytime)";
  }
  std::optional<std::string> unsupported(const Graph& g) const override;
  Plan solve(const Graph& g, int64_t budget, const SolveOptions& opt) const override;

  // Every share below is of the time limit (SolveOptions::time_limit, or the deadline's length).
  // The searches end at this share; the rest is for the final simulation and the caller.
  static constexpr double kEndShare = 0.95;
  // And at the latest this many times the keep-all state's building time before the limit (the
  // final state, its schedule and simulation take about two).
  static constexpr int kFinishStates = 3;
  // But never before this share of the limit: the first plan needs time too (a limit that short for
  // the graph runs past it rather than ends without a plan).
  static constexpr double kFinishFloorShare = 0.5;
  // The relaxation's CBC solve.
  static constexpr double kBoundShare = 0.3;
  // The retention greedy (retention_greedy.h), the first start, ends by this share (milliseconds up
  // to 5,000 nodes, seconds on the 20,000-node dense DAG (5.6-6.9 s at 80 % beside the sweep), where it began at 1 s of 10 and a cut at
  // half the limit lost its 17.6 % plan at 80 % to the sweep's 63.6 %); where it leaves stages above
  // the cap, its state is repaired for this share of the limit more. With two threads or more it runs
  // on a thread of its own and may go on until the searches end (dagremat.cpp, retention_start).
  static constexpr double kRetentionShare = 0.7;
  static constexpr double kRetentionRepairShare = 0.1;
  // It runs only where drops that recompute at most kRetentionCoverageLevels levels of gone inputs
  // can relieve at least this share of keep-all's excess (retention_greedy.h, drop_coverage): below,
  // on the dense DAGs at 75 % and 70 %, it ended far from fitting, in seconds on the 20,000-node one
  // that the eviction sweep needs.
  static constexpr double kRetentionMinCoverage = 0.8;
  static constexpr int kRetentionCoverageLevels = 1;
  // The eviction sweep. measured: bench/results/time_shares.md#dagremat-sweep-share
  static constexpr double kSweepShare = 0.8;
  // The budget ladder (budget_ladder.h), where the retention greedy does not fit, ends by this share.
  // measured: bench/results/checkmate.md
  static constexpr double kLadderShare = 0.5;
  // With one thread, the DTR pass (dtr_pass.h) gets this share from when it begins, after the sweep
  // (with more, it runs beside the sweep, within kSweepShare) (milliseconds on the public
  // graphs, 0.6 s per variant on the 2,000-node dense DAG, about 1 s for its first on the 20,000-node
  // one at 90 %, which 0.1 of a 10 s limit cut now and then); the repair of its projection
  // (dtr_decisions.h), only where the eviction sweep gets stuck, ends by the next share.
  static constexpr double kDtrShare = 0.2;
  static constexpr double kDtrRepairShare = 0.5;
  // The keep-all start's repair once the eviction sweep has a plan (without one it may take all of
  // it). measured: bench/results/time_shares.md#dagremat-repair-share
  static constexpr double kRepairShare = 0.8;
  // The relaxation's start is repaired only while less than this share is gone.
  // measured: bench/results/time_shares.md#dagremat-relaxed-start-share
  static constexpr double kRelaxedStartShare = 0.2;
  // Above this relative gap ((time - bound) / time) the plan's note says which constraint the bound's
  // relaxation drops and how much of the plan's recomputation it leaves uncounted.
  static constexpr double kLooseGap = 0.01;
  // The search stops after this many rounds in a row without a cheaper plan (per thread).
  static constexpr long kPatience = 3000;
};

}  // namespace hiremate
