// TW-Remat (Kumar et al., NeurIPS 2019; nshepperd's twremat; research/peers.md §3.7, hiremate.md
// §4.5), native: a tree decomposition of the compute graph (min-fill), the recursion on its
// balanced separators for a low-memory schedule (recursion.h), then the greedy pass that removes
// recomputations while the peak stays in budget (greedy.h). A heuristic: Feasible when its plan
// fits, Infeasible (with the smallest peak it reached) when none does; never Optimal, except when
// the keep-all schedule fits, which runs every node once and so is the fastest plan there is.
//
// Starts. The recursion runs with leaf sizes 1, 4, 16, ... below the number of nodes (sets that
// small run once in order), each a different trade of memory for recomputation. Its ops are capped
// at kOpsPerNode x nodes + kOpsBase (half of it before the fixed-order repair on generic DAGs):
// past the cap a level runs in order instead of splitting, so high treewidth degrades the start
// towards keep-all instead of exploding. Every start whose low-memory peak fits walks the removal
// path in both orders of greedy.h; the fastest result wins. Each walk's time is non-increasing in
// the budget and the set of starts that fit only grows with it, so the best of them is too.
//
// Both graph kinds. Generic DAGs: first runs in graph.order (fixed_order.h), as simulate() demands;
// there is no free-order mode. Generic DAGs with grads are refused (grads need a training graph).
// Training graphs: forwards may rerun without phantoms, keeping them only on the last run before
// their backward; backwards and the loss run once, after the loss marker (dag.h).
// Memory: exactly the simulator's (memory_model.h); the returned plan is simulated and must agree.
// Deterministic; the time limit cuts the search and returns the best plan so far as TimedOut (no
// plan: TimedOut without a schedule).
#pragma once
#include <cstddef>

#include "hiremate/solvers/solver.h"

namespace hiremate {

class TwRematSolver : public Solver {
 public:
  std::string name() const override { return "twremat"; }
  std::string description() const override {
    return "TW-Remat: tree-decomposition recursion for a low-memory schedule, then greedy removal of "
           "recomputations under the budget (heuristic)";
  }
  std::optional<std::string> unsupported(const Graph& g) const override;
  Plan solve(const Graph& g, int64_t budget, const SolveOptions& opt) const override;
  bool reports_lowest_peak() const override { return true; }  // milliseconds to say how low it gets

  static constexpr size_t kOpsPerNode = 64;
  static constexpr size_t kOpsBase = 20000;
};

// The low-memory schedule of the recursion alone at `leaf_size` (no greedy pass), frees inserted;
// nullopt only when even running in order exceeds the op cap. For tests and for option menus.
std::optional<Schedule> twremat_low_memory_schedule(const Graph& g, int leaf_size = 1);

// The treewidth upper bound of the decomposition TW-Remat uses for `g` (bag size - 1).
int twremat_width(const Graph& g);

}  // namespace hiremate
