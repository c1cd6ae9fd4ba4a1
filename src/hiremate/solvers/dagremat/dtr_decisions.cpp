#include "hiremate/solvers/dagremat/dtr_decisions.h"

#include <algorithm>

namespace hiremate::dagremat {

std::vector<KeepState::Decision> dtr_decisions(const StageDag& dag, const DtrResult& pass, bool held_through_removal) {
  std::vector<KeepState::Decision> out(dag.gaps.size());
  // An interval (a, b] ends with a removal in stage b: an eviction before one of its computations
  // (whole cones pin what the stage reads, so the stage does not read it), or the free between stages
  // b - 1 and b. Either way the state holds it on entry to a + 1 .. b - 1 only (or, with
  // held_through_removal, to b too).
  auto last_entry = [&](int b) { return b < dag.n && !held_through_removal ? b - 1 : b; };
  for (size_t gi = 0; gi < dag.gaps.size(); ++gi) {
    const Gap& g = dag.gaps[gi];
    const auto& held = pass.held[g.value];  // intervals (a, b], in time order
    // hold: the last entry of the run of entries lo+1.. that the pass covered.
    int hold = g.lo;
    for (const auto& [a, b] : held)
      if (a <= hold && last_entry(b) > hold) hold = std::max(hold, std::min(last_entry(b), g.hi));
    if (hold >= g.hi) {
      out[gi] = {g.lo, g.lo};  // kept
      continue;
    }
    // resume: where the interval covering the gap's last entry began (none: at the read itself).
    int resume = g.hi;
    if (!g.tail)
      for (const auto& [a, b] : held)
        if (a < g.hi && last_entry(b) >= g.hi) resume = std::max(a, hold);
    out[gi] = {hold, resume};
  }
  return out;
}

}  // namespace hiremate::dagremat
