#include "hiremate/solvers/dagremat/search.h"

#include <algorithm>
#include <limits>

namespace hiremate::dagremat {

int latest_cheap_resume(const KeepState& s, int gap, int from) {
  const StageDag& dag = s.dag();
  const Gap& g = dag.gaps[gap];
  for (int r = g.hi; r >= std::max(from, g.lo + 1); --r) {
    bool ready = true;
    for (int p : dag.pred[g.value]) ready = ready && s.resident(p, r);
    if (ready) return r;
  }
  return g.hi;
}

namespace {

// Tries moves of one gap; returns the best by added cost per byte of excess removed.
struct Best {
  int gap = -1, resume = 0;
  double score = std::numeric_limits<double>::infinity();
};

void try_move(KeepState& s, int gi, int r, Best& best) {
  if (r == s.resume(gi)) return;
  const double cost0 = s.recompute_cost();
  const int64_t excess0 = s.excess();
  size_t m = s.mark();
  s.set(gi, r);
  const int64_t removed = excess0 - s.excess();
  const double added = s.recompute_cost() - cost0;
  s.rollback(m);
  if (removed <= 0) return;
  double score = added / static_cast<double>(removed);
  if (score < best.score) best = {gi, r, score};
}

}  // namespace

bool repair(KeepState& s, Clock::time_point deadline) {
  const StageDag& dag = s.dag();
  while (s.excess() > 0) {
    if (Clock::now() > deadline) return false;
    const int t = s.worst_stage();
    Best best;
    for (int v = 0; v < t; ++v) {
      int gi = dag.gap_at_boundary(v, t);
      if (gi < 0) continue;
      const Gap& g = dag.gaps[gi];
      if (s.resume(gi) <= t) {
        // v is in memory during stage t: recompute it after t instead.
        if (g.hi == t) continue;  // an input of t
        try_move(s, gi, g.hi, best);
        try_move(s, gi, t + 1, best);
        try_move(s, gi, latest_cheap_resume(s, gi, t + 1), best);
      } else {
        // v is recomputed for later: keeping it may spare stage t recomputations.
        try_move(s, gi, g.lo, best);
      }
    }
    if (best.gap < 0) return false;
    s.set(best.gap, best.resume);
  }
  return true;
}

void polish(KeepState& s, Clock::time_point deadline) {
  const StageDag& dag = s.dag();
  std::vector<int> moved;
  for (size_t gi = 0; gi < dag.gaps.size(); ++gi)
    if (!s.kept(static_cast<int>(gi))) moved.push_back(static_cast<int>(gi));
  std::stable_sort(moved.begin(), moved.end(),
                   [&](int a, int b) { return dag.cost[dag.gaps[a].value] > dag.cost[dag.gaps[b].value]; });
  for (int gi : moved) {
    if (Clock::now() > deadline) return;
    const Gap& g = dag.gaps[gi];
    for (int r : {g.lo, latest_cheap_resume(s, gi, g.lo + 1)}) {
      if (r >= s.resume(gi)) continue;
      const double cost0 = s.recompute_cost();
      size_t m = s.mark();
      s.set(gi, r);
      if (s.excess() > 0 || s.recompute_cost() >= cost0 - 1e-12) s.rollback(m);
    }
  }
}

SearchStats improve(KeepState& s, Clock::time_point deadline, SplitMix64& rng, long patience) {
  const StageDag& dag = s.dag();
  SearchStats stats;
  s.commit();
  long idle = 0;
  while (Clock::now() < deadline && idle < patience) {
    std::vector<int> moved;
    for (size_t gi = 0; gi < dag.gaps.size(); ++gi)
      if (!s.kept(static_cast<int>(gi))) moved.push_back(static_cast<int>(gi));
    if (moved.empty()) break;
    ++stats.rounds;
    ++idle;
    const double cost0 = s.recompute_cost();
    // Ruin: keep a dropped gap and up to two others that overlap it in time.
    int first = moved[rng.between(0, static_cast<int64_t>(moved.size()) - 1)];
    const Gap& g0 = dag.gaps[first];
    s.set(first, g0.lo);
    int extra = static_cast<int>(rng.between(0, 2));
    for (int tries = 0; extra > 0 && tries < 20; ++tries) {
      int gi = moved[rng.between(0, static_cast<int64_t>(moved.size()) - 1)];
      const Gap& g = dag.gaps[gi];
      if (s.kept(gi) || g.hi <= g0.lo || g.lo >= g0.hi) continue;
      s.set(gi, g.lo);
      --extra;
    }
    // Recreate.
    if (repair(s, deadline)) {
      polish(s, deadline);
      if (s.excess() == 0 && s.recompute_cost() < cost0 - 1e-9) {
        ++stats.accepted;
        idle = 0;
        s.commit();
        continue;
      }
    }
    s.rollback(0);
  }
  s.commit();
  return stats;
}

}  // namespace hiremate::dagremat
