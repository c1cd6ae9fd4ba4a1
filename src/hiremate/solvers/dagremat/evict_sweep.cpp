#include "hiremate/solvers/dagremat/evict_sweep.h"

#include <algorithm>
#include <limits>

namespace hiremate::dagremat {

namespace {

// What recomputing value v in stage r costs: its time and that of every ancestor reached through
// values not resident on entry to r (the cone the stage recomputes), or infinity once above `limit`.
// One level of inputs (estimate()) misses the cones: on the 2,000-node dense DAG at 90 % the sweep's
// plan then cost 92 % more time; values read by skip connections keep inputs that died long before.
struct Cone {
  std::vector<int> stamp, stack;
  int clock = 0;
  double cost(const KeepState& s, int v, int r, double limit) {
    const StageDag& dag = s.dag();
    if (stamp.size() != static_cast<size_t>(dag.n)) stamp.assign(dag.n, 0);
    ++clock;
    double sum = dag.cost[v];
    stamp[v] = clock;
    stack.assign(1, v);
    while (!stack.empty()) {
      const int k = stack.back();
      stack.pop_back();
      for (int p : dag.pred[k]) {
        if (stamp[p] == clock || s.resident(p, r)) continue;
        stamp[p] = clock;
        sum += dag.cost[p];
        if (sum > limit) return std::numeric_limits<double>::infinity();
        stack.push_back(p);
      }
    }
    return sum;
  }
};

// The excess of stages from..r-1 that the absence of `bytes` relieves.
int64_t relieved(const KeepState& s, int64_t bytes, int from, int r) {
  int64_t removed = 0;
  for (int u = from; u < r && u < s.dag().n; ++u) removed += std::min(bytes, std::max<int64_t>(0, s.stage_peak(u) - s.cap()));
  return removed;
}

}  // namespace

bool evict_sweep(KeepState& s, Clock::time_point deadline, const SweepOptions& opt, SweepStats* stats) {
  const StageDag& dag = s.dag();
  SweepStats local;
  SweepStats& st = stats ? *stats : local;
  std::vector<char> pinned(dag.gaps.size(), 0);
  struct Candidate {
    double estimate;
    int gap;
    KeepState::Decision d;
  };
  std::vector<Candidate> candidates;
  Cone cone;
  for (int t = 0; t < dag.n; ++t) {
    while (s.stage_peak(t) > s.cap()) {
      s.commit();  // trials are undone within a step; the journal would otherwise grow with every stage evaluated
      if (Clock::now() > deadline) return false;
      candidates.clear();
      double kth = std::numeric_limits<double>::infinity();
      for (int v = 0; v < t; ++v) {
        const int gi = dag.gap_at_boundary(v, t);
        if (gi < 0 || pinned[gi] || dag.mem[v] == 0 || !s.resident(v, t)) continue;
        const Gap& g = dag.gaps[gi];
        if (g.hi == t) continue;  // t reads it
        const KeepState::Decision d = s.decisions()[gi];
        // A gap dropped and resumed before t is left alone: a second drop is not expressible.
        if (!s.kept(gi) && d.hold < t) continue;
        const int last = s.kept(gi) ? g.hi : d.resume;
        if (g.tail) {  // it serves recomputations only: free at once
          candidates.push_back({0, gi, {t - 1, g.hi}});
          continue;
        }
        const int cheap = opt.cheap_resumes ? latest_cheap_resume(s, gi, t + 1) : last;
        const int resumes[2] = {last, cheap};
        for (int i = 0; i < (cheap != last ? 2 : 1); ++i) {
          const int r = resumes[i];
          if (r <= t || r > last) continue;
          const int64_t removed = relieved(s, dag.mem[v], t, r);
          if (removed <= 0) continue;
          // Pruned at the k-th best score so far (a bound on what is worth evaluating).
          const double limit = kth < std::numeric_limits<double>::infinity() ? kth * static_cast<double>(removed)
                                                                              : std::numeric_limits<double>::infinity();
          const double score = cone.cost(s, v, r, limit) / static_cast<double>(removed);
          if (score == std::numeric_limits<double>::infinity()) continue;
          candidates.push_back({score, gi, {t - 1, r}});
          if (candidates.size() >= opt.exact) {
            std::nth_element(candidates.begin(), candidates.begin() + static_cast<long>(opt.exact) - 1, candidates.end(),
                             [](const Candidate& a, const Candidate& b) { return a.estimate < b.estimate; });
            candidates.resize(opt.exact);
            kth = candidates.back().estimate;
            for (const Candidate& c : candidates) kth = std::max(kth, c.estimate);
          }
        }
      }
      const size_t k = std::min(candidates.size(), opt.exact);
      std::partial_sort(candidates.begin(), candidates.begin() + static_cast<long>(k), candidates.end(),
                        [](const Candidate& a, const Candidate& b) { return a.estimate < b.estimate; });
      // The k best by the estimate, evaluated exactly: added recomputation per byte of excess removed.
      int best = -1;
      double best_score = std::numeric_limits<double>::infinity();
      for (size_t i = 0; i < k; ++i) {
        const Candidate& c = candidates[i];
        const double cost0 = s.recompute_cost();
        const int64_t excess0 = s.excess();
        const size_t m = s.mark();
        s.set(c.gap, c.d.hold, c.d.resume);
        const int64_t removed = excess0 - s.excess();
        const double score = (s.recompute_cost() - cost0) / static_cast<double>(std::max<int64_t>(removed, 1));
        s.rollback(m);
        if (removed > 0 && score < best_score) {
          best_score = score;
          best = static_cast<int>(i);
        }
      }
      if (best >= 0) {
        s.set(candidates[best].gap, candidates[best].d.hold, candidates[best].d.resume);
        ++st.evictions;
        continue;
      }
      // Stuck: keep (and pin) the value stage t recomputes whose keeping lowers its peak most.
      int keep = -1;
      int64_t keep_peak = s.stage_peak(t);
      for (int v : s.stage_ops(t)) {
        if (v == t) continue;
        const int gi = dag.gap_at_boundary(v, t);
        if (gi < 0 || pinned[gi] || dag.gaps[gi].tail) continue;
        if (Clock::now() > deadline) return false;
        const size_t m = s.mark();
        s.set(gi, dag.gaps[gi].lo, dag.gaps[gi].lo);
        if (s.stage_peak(t) < keep_peak) {
          keep_peak = s.stage_peak(t);
          keep = gi;
        }
        s.rollback(m);
      }
      if (keep < 0) {
        st.stuck_stage = t;
        s.commit();
        return false;
      }
      const Gap& g = dag.gaps[keep];
      s.set(keep, g.lo, g.lo);
      pinned[keep] = 1;
      ++st.pins;
      // Keeping it adds its bytes to the stages of its gap behind t: go back to the first that exceeds.
      for (int u = g.lo; u < t; ++u)
        if (s.stage_peak(u) > s.cap()) {
          t = u;
          break;
        }
    }
  }
  s.commit();
  return s.excess() == 0;
}

}  // namespace hiremate::dagremat
