#include "hiremate/solvers/dagremat/budget_ladder.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "hiremate/solvers/dagremat/evict_sweep.h"

namespace hiremate::dagremat {

namespace {

// One rung: `from`'s decisions at `cap`; the sweep, then the repair until `repair_until` where it got
// stuck. The state fits or is none.
std::optional<KeepState> climb(const StageDag& dag, int64_t cap, const std::vector<KeepState::Decision>& from,
                               Clock::time_point deadline, Clock::time_point repair_until) {
  KeepState s(dag, cap);
  s.assign(from);
  s.commit();
  bool fits = s.excess() == 0 || evict_sweep(s, deadline);
  if (!fits && Clock::now() < repair_until) fits = repair(s, repair_until);
  if (!fits) return std::nullopt;
  s.commit();
  return s;
}

}  // namespace

std::optional<KeepState> budget_ladder(const StageDag& dag, int64_t cap, int64_t keep_all_peak,
                                       Clock::time_point deadline, const LadderOptions& opt, LadderStats* stats) {
  LadderStats local;
  LadderStats& st = stats ? *stats : local;
  const int64_t step = std::max<int64_t>(1, static_cast<int64_t>(std::llround(opt.step_share * static_cast<double>(keep_all_peak))));
  std::vector<int64_t> caps;
  for (int k = opt.rungs; k >= 1; --k)
    if (cap + k * step < keep_all_peak) caps.push_back(cap + k * step);
  caps.push_back(cap);
  std::vector<KeepState::Decision> last = KeepState(dag, keep_all_peak).decisions();  // keep-all
  int64_t last_cap = keep_all_peak;
  for (size_t i = 0; i < caps.size(); ++i) {
    int64_t target = caps[i];
    int halvings = opt.halvings;
    for (;;) {
      if (Clock::now() >= deadline) return std::nullopt;
      const bool final = target == cap;
      const auto left = deadline - Clock::now();
      const auto repair_until =
          final ? deadline
                : Clock::now() + std::chrono::duration_cast<Clock::duration>(opt.repair_share * left);
      ++st.rungs;
      std::optional<KeepState> s = climb(dag, target, last, deadline, repair_until);
      if (s) {
        ++st.fitted;
        st.lowest = target;
        if (final) return s;
        last = s->decisions();
        last_cap = target;
        if (target == caps[i]) break;
        target = caps[i];  // the halfway rung fitted: the rung itself again, from there
        continue;
      }
      if (halvings-- <= 0 || last_cap - target < 2) {
        st.failed = target;
        return std::nullopt;
      }
      target = last_cap - (last_cap - target) / 2;
    }
  }
  return std::nullopt;
}

}  // namespace hiremate::dagremat
