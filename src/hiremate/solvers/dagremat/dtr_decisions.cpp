#include "hiremate/solvers/dagremat/dtr_decisions.h"

#include <algorithm>

namespace hiremate::dagremat {

std::vector<KeepState::Decision> dtr_decisions(const StageDag& dag, const DtrResult& pass) {
  std::vector<KeepState::Decision> out(dag.gaps.size());
  for (size_t gi = 0; gi < dag.gaps.size(); ++gi) {
    const Gap& g = dag.gaps[gi];
    const auto& held = pass.held[g.value];  // intervals (a, b], in time order
    // hold: the last entry of the run of entries lo+1.. that the pass covered.
    int hold = g.lo;
    for (const auto& [a, b] : held)
      if (a <= hold && b > hold) hold = std::max(hold, std::min(b, g.hi));
    if (hold >= g.hi) {
      out[gi] = {g.lo, g.lo};  // kept
      continue;
    }
    // resume: where the interval covering the gap's last entry began (none: at the read itself).
    int resume = g.hi;
    if (!g.tail)
      for (const auto& [a, b] : held)
        if (a < g.hi && b >= g.hi) resume = std::max(a, hold);
    out[gi] = {hold, resume};
  }
  return out;
}

}  // namespace hiremate::dagremat
