// dagremat: a scalable solver for generic DAGs in Checkmate's fixed-order model (issue 12), with a
// lower bound reported with every plan.
//
// 1. Bound and start: the gap relaxation (gap_bound.h), a covering ILP over "drop this value
//    between these two reads", solved by CBC under a share of the time limit. Its proven bound
//    plus one run of every node is a lower bound on any plan's time.
// 2. Plans: keep/drop decisions per gap (keep_state.h), each stage recomputing what it needs. Two
//    starts (keep-all, the relaxation's solution) are repaired greedily to the budget and polished;
//    the better one is improved by ruin and recreate (search.h), one search per thread with its own
//    seed, until the deadline or until a run of rounds brings nothing.
// 3. The plan's compute sequence, frees after last use, is simulated and checked against the
//    budget. Optimal when its time meets the bound (or keep-all fits), Feasible otherwise.
// Deterministic for a given thread count unless the time limit cuts the search.
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

  // Share of the time limit for the relaxation's CBC solve.
  static constexpr double kBoundShare = 0.3;
  // The search stops after this many rounds in a row without a cheaper plan (per thread).
  static constexpr long kPatience = 3000;
};

}  // namespace hiremate
