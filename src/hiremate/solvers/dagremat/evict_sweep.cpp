#include "hiremate/solvers/dagremat/evict_sweep.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "hiremate/solvers/dagremat/excess_relief.h"

namespace hiremate::dagremat {

namespace {

// What recomputing value v in stage r costs: its time and that of every ancestor reached through
// values not resident on entry to r (the cone the stage recomputes), or infinity once above `limit`.
// One level of inputs (estimate()) misses the cones: on the 2,000-node dense DAG at 90 % the sweep's
// plan then cost 92 % more time; values read by skip connections keep inputs that died long before.
struct Cone {
  std::vector<int> stamp, stack;
  int clock = 0;
  // `shared`: what stage r recomputes already (resuming there joins its cone), or nothing.
  double cost(const KeepState& s, int v, int r, double limit, const std::vector<int>* shared = nullptr) {
    const StageDag& dag = s.dag();
    if (stamp.size() != static_cast<size_t>(dag.n)) stamp.assign(dag.n, 0);
    ++clock;
    if (shared)
      for (int u : *shared) stamp[u] = clock;
    if (stamp[v] == clock) return 0;
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
  std::unordered_map<int, std::vector<int>> stage_ops;  // per step: what stages recompute
  for (int t = 0; t < dag.n; ++t) {
    while (s.stage_peak(t) > s.cap()) {
      s.commit();  // trials are undone within a step; the journal would otherwise grow with every stage evaluated
      if (Clock::now() > deadline) return false;
      // The best `exact` by the cone estimate; where none of them lowers the excess (each moves it to
      // its resume stage), the best `exact_when_stuck`.
      int best = -1;
      const CostliestStage costliest(s, opt.shared_resumes ? t + 1 : dag.n);
      const ExcessRelief relief(s.stage_peaks(), s.cap(), t);
      for (size_t want : {opt.exact, opt.exact_when_stuck}) {
        candidates.clear();
        stage_ops.clear();
        double kth = std::numeric_limits<double>::infinity();
        for (int v = 0; v < t; ++v) {
          if (dag.mem[v] == 0 || !s.resident(v, t)) continue;  // a bit test first (keep_state.h)
          const int gi = dag.gap_at_boundary(v, t);
          if (gi < 0 || pinned[gi]) continue;
          const Gap& g = dag.gaps[gi];
          if (g.hi == t) continue;  // t reads it
          const KeepState::Decision d = s.decisions()[gi];
          // A gap dropped and resumed before t (so resident at t): a second drop is not expressible, but
          // its resume can move past t, widening the one drop (otherwise the sweep got stuck on values
          // resumed cheaply before a peak: the 2,000-node dense DAG at 85 %).
          const int hold = s.kept(gi) || d.hold >= t ? t - 1 : d.hold;
          const int last = g.hi;
          if (g.tail) {  // it serves recomputations only: free at once
            candidates.push_back({0, gi, {hold, g.hi}});
            continue;
          }
          const int cheap = opt.cheap_resumes ? latest_cheap_resume(s, gi, t + 1) : last;
          // The stage of the window that recomputes the most: a deep cone resumed there is shared.
          const int batch = opt.shared_resumes ? costliest.up_to(last) : -1;
          const int resumes[3] = {last, cheap, batch};
          for (int i = 0; i < 3; ++i) {
            const int r = resumes[i];
            if (r <= t || r > last || (i == 1 && r == last) || (i == 2 && (r == last || r == cheap))) continue;
            const int64_t removed = relief(dag.mem[v], r);
            if (removed <= 0) continue;
            // Pruned at the k-th best score so far (a bound on what is worth evaluating).
            const double limit = kth < std::numeric_limits<double>::infinity() ? kth * static_cast<double>(removed)
                                                                                : std::numeric_limits<double>::infinity();
            const std::vector<int>* shared = nullptr;
            if (i == 2) {
              auto it = stage_ops.find(r);
              if (it == stage_ops.end()) it = stage_ops.emplace(r, s.stage_ops(r)).first;
              shared = &it->second;
            }
            const double score = cone.cost(s, v, r, limit, shared) / static_cast<double>(removed);
            if (score == std::numeric_limits<double>::infinity()) continue;
            candidates.push_back({score, gi, {hold, r}});
            if (candidates.size() >= want) {
              std::nth_element(candidates.begin(), candidates.begin() + static_cast<long>(want) - 1, candidates.end(),
                               [](const Candidate& a, const Candidate& b) { return a.estimate < b.estimate; });
              candidates.resize(want);
              kth = candidates.back().estimate;
              for (const Candidate& c : candidates) kth = std::max(kth, c.estimate);
            }
          }
        }
        const size_t k = std::min(candidates.size(), want);
        std::partial_sort(candidates.begin(), candidates.begin() + static_cast<long>(k), candidates.end(),
                          [](const Candidate& a, const Candidate& b) { return a.estimate < b.estimate; });
        // The k best by the estimate, evaluated exactly: added recomputation per byte of excess removed.
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
        if (best >= 0 || want >= opt.exact_when_stuck) break;
      }
      if (best >= 0) {
        const Candidate& c = candidates[best];
        s.set(c.gap, c.d.hold, c.d.resume);
        ++st.evictions;
        // A widened drop no longer resumes where recomputations behind t read the value: they now
        // recompute it too, and may exceed (the sweep ended with excess on the 5,000-node dense DAG).
        for (int u = c.d.hold + 1; u < t; ++u)
          if (s.stage_peak(u) > s.cap()) {
            t = u;
            break;
          }
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
