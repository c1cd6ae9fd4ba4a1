#include "hiremate/solvers/dagremat/budget_ladder.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "hiremate/solvers/dagremat/evict_sweep.h"
#include "hiremate/solvers/dagremat/retention_greedy.h"

namespace hiremate::dagremat {

namespace {

using Decisions = std::vector<KeepState::Decision>;

// One rung: `s` (the plan of the rung above, whose decisions are `from`) at `cap`, the retention greedy
// from there; where it does not fit and `sweep`, from `from` again: the eviction sweep, then the repair
// until `repair_until`. Whether `s` fits; where it does not, `s` holds `from` again.
bool rung(KeepState& s, int64_t cap, const Decisions& from, bool sweep, Clock::time_point deadline,
          Clock::time_point repair_until) {
  s.set_cap(cap);
  if (s.excess() == 0 || retention_greedy(s, deadline)) return true;
  s.assign(from);
  s.commit();
  if (!sweep || Clock::now() >= deadline) return false;
  bool fits = evict_sweep(s, deadline);
  if (!fits && Clock::now() < repair_until) fits = repair(s, repair_until);
  s.commit();
  if (fits) return true;
  s.assign(from);
  s.commit();
  return false;
}

int64_t share_of(double share, int64_t peak) {
  return std::max<int64_t>(1, static_cast<int64_t>(std::llround(share * static_cast<double>(peak))));
}

}  // namespace

std::optional<KeepState> budget_ladder(const StageDag& dag, int64_t cap, int64_t keep_all_peak,
                                       Clock::time_point deadline, const LadderOptions& opt, LadderStats* stats) {
  LadderStats local;
  LadderStats& st = stats ? *stats : local;
  const int64_t step = share_of(opt.step, keep_all_peak), min_step = share_of(opt.min_step, keep_all_peak);
  KeepState s(dag, keep_all_peak);  // keep-all: fits at its own peak
  Decisions last = s.decisions();
  int64_t last_cap = keep_all_peak;
  int64_t target = std::min(cap + share_of(opt.top, keep_all_peak), keep_all_peak);
  int64_t gap = last_cap - target;  // the step that led to target
  while (Clock::now() < deadline) {
    // The greedy alone while the step can still be halved; the sweep and the repair below that.
    const bool sweep = gap <= min_step || target == keep_all_peak;
    const auto repair_until =
        target == cap ? deadline
                      : Clock::now() + std::chrono::duration_cast<Clock::duration>(opt.repair_share * (deadline - Clock::now()));
    ++st.rungs;
    st.swept += sweep;
    bool fits = rung(s, target, last, sweep, deadline, repair_until);
    if (fits && target == cap) {
      // The returned state evaluated afresh: the searches' incremental evaluation must agree with it.
      KeepState fresh(dag, cap);
      fresh.assign(s.decisions());
      if (fresh.excess() == 0) {
        ++st.fitted;
        st.lowest = target;
        return fresh;
      }
      ++st.drifted;
      fits = false;
      s.assign(last);
      s.commit();
    }
    if (fits) {
      ++st.fitted;
      st.lowest = target;
      last = s.decisions();
      last_cap = target;
      gap = std::min(step, target - cap);
      target -= gap;
      continue;
    }
    if (sweep) break;
    gap = std::max<int64_t>(1, gap / 2);
    target = last_cap - gap;
  }
  st.failed = target;
  return std::nullopt;
}

}  // namespace hiremate::dagremat
