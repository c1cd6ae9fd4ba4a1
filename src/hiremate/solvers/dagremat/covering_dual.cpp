#include "hiremate/solvers/dagremat/covering_dual.h"

#include <algorithm>

#include "hiremate/schedule/interval_cover.h"

namespace hiremate::dagremat {

CoveringDual covering_dual(const StageDag& dag, int64_t cap, int max_iterations,
                           std::chrono::steady_clock::time_point deadline) {
  IntervalCover cover;
  cover.floor.resize(dag.n);
  for (int t = 0; t < dag.n; ++t) cover.floor[t] = dag.moment_floor(t);
  for (const Gap& g : dag.gaps)
    if (dag.relieves(g))
      cover.items.push_back({g.lo + 1, std::min(g.hi, dag.n) - 1, dag.cost[g.value], dag.mem[g.value]});
  const IntervalCoverDual d = interval_cover_dual(cover, cap, max_iterations, deadline);
  return {d.bound, d.iterations};
}

}  // namespace hiremate::dagremat
