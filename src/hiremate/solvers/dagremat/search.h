// The search over keep/drop decisions (keep_state.h): a greedy repair that drops gaps until every
// stage fits, a polish that keeps again what fits, and ruin-and-recreate rounds (keep a few dropped
// gaps, repair, accept when cheaper), each move evaluated incrementally.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

#include "hiremate/common/random.h"
#include "hiremate/solvers/dagremat/keep_state.h"

namespace hiremate::dagremat {

using Clock = std::chrono::steady_clock;

// The latest stage in [from, hi] of the gap at whose entry every input of its value is resident
// (recomputing it there costs only its own time), or hi when there is none.
int latest_cheap_resume(const KeepState& s, int gap, int from);

// Per stage u >= from, the stage of [from, u] whose recomputations cost the most (the latest among
// equals: the value then waits less), -1 where none of them recomputes anything: where an evicted
// value's resume joins a cone recomputed anyway (a shared resume). O(n) to build, O(1) to ask; both
// the eviction sweep and the repair ask it for every candidate of one step.
class CostliestStage {
 public:
  CostliestStage(const KeepState& s, int from);
  int up_to(int u) const { return u < from_ || u - from_ >= static_cast<int>(best_.size()) ? -1 : best_[u - from_]; }

 private:
  int from_;
  std::vector<int> best_;
};

// Resuming a gap at r together with holds that keep every input of its value resident until r
// (so that the recomputation costs only the value's own time): (gap, decision) pairs to apply.
std::vector<std::pair<int, KeepState::Decision>> resume_with_holds(const KeepState& s, int gap, int r);

// Drops (or, where that helps, keeps) gaps until no stage exceeds the cap: each step takes the
// stage furthest above the cap and applies the change of a gap around it with the least added
// recomputation per byte of excess removed. Returns whether the state fits (false: no change
// reduces the excess, the deadline passed, or `stop` was set). Commits nothing.
bool repair(KeepState& s, Clock::time_point deadline, const std::atomic<bool>* stop = nullptr);

// Moves resume stages earlier (keeps values longer), most expensive values first, wherever the
// state still fits and gets cheaper.
void polish(KeepState& s, Clock::time_point deadline);

struct SearchStats {
  long rounds = 0, accepted = 0;
};

// Ruin and recreate from a fitting state until the deadline: keeps 1 to 3 dropped gaps near each
// other, repairs, polishes, and keeps the result when it is not dearer (equal costs walk the
// plateau). After kEscalateAfter rounds without a cheaper plan the ruins grow (up to 4 more gaps per
// level, kRuinLevels levels): on rl2-n250 at 80 %, 55 s, 5.088 % CI with fixed ruins of 1-3 gaps,
// 4.897 % so (5 of 6 seeds). The state stays fitting. Stops after `patience` rounds in a row without
// a cheaper plan at the last level, or once the recomputation cost reaches `target` (a lower bound:
// nothing cheaper exists), or once `stop` is set (checked between rounds).
constexpr long kEscalateAfter = 40;
constexpr int kRuinLevels = 10;
SearchStats improve(KeepState& s, Clock::time_point deadline, SplitMix64& rng, long patience, double target,
                    const std::atomic<bool>* stop = nullptr);

// Simulated annealing over decisions with the excess as a penalty, until the deadline, `target`, or
// 50 moves per gap without a new best; `best` receives the cheapest fitting decisions met
// (unchanged when none fits).
SearchStats anneal(KeepState& s, Clock::time_point deadline, SplitMix64& rng, std::vector<KeepState::Decision>& best,
                   double target);

}  // namespace hiremate::dagremat
