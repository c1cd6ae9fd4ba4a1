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
//    FREE <= 1 - R[t,j]) plus the covering row, which is tighter than the single kappa row;
//  - R and S of a node are fixed to 0 in stages after its last descendant (nothing can use it);
//  - memory in units of the GCD of the sizes; sources are a constant offset.
// The solution's compute sequence is turned into a schedule that frees after last use, which never
// uses more memory than the MILP accounted for, and the simulator checks it against the budget.
#pragma once
#include "hiremate/solvers/solver.h"

namespace hiremate {

class CheckmateSolver : public Solver {
 public:
  std::string name() const override { return "checkmate"; }
  std::string description() const override {
    return "exact MILP (Checkmate) on CBC; optimal for generic DAGs in the fixed order, anytime under --time-limit";
  }
  std::optional<std::string> unsupported(const Graph& g) const override;
  Plan solve(const Graph& g, int64_t budget, const SolveOptions& opt) const override;
};

// The smallest budget any schedule in the fixed-order model can have: the largest, over nodes, of
// what must be resident while it runs (its inputs, its outputs, its overhead, the sources).
int64_t checkmate_min_budget(const Graph& g);

}  // namespace hiremate
