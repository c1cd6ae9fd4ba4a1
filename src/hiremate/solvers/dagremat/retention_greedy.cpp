#include "hiremate/solvers/dagremat/retention_greedy.h"

#include <algorithm>
#include <queue>
#include <utility>

#include "hiremate/common/segment_tree.h"

namespace hiremate::dagremat {

namespace {

// The last stage at which every input of v is still resident in keep-all (its inputs' last reads;
// n where v has none): one-op drops of v resume there at the latest without holding an input.
int inputs_resident_until(const StageDag& dag, int v) {
  int until = dag.n;
  for (int w : dag.pred[v]) until = std::min(until, dag.users[w].back());
  return until;
}

struct Greedy {
  KeepState& s;
  const StageDag& dag;
  // Per value, the stages at whose entry a taken drop needs it (sorted, with repeats).
  std::vector<std::vector<int>> required;
  // The stages' peaks: a drop's relief and its holds' cost visit only the stages above a threshold
  // (the gaps of a 20,000-node dense DAG span thousands of stages).
  SegmentTree peaks;

  explicit Greedy(KeepState& st) : s(st), dag(st.dag()), required(dag.n), peaks(dag.n) {
    peaks.assign(0, dag.n - 1, [&](int t) { return s.stage_peak(t); });
  }

  // The largest required stage of v in [from, to], or -1.
  int last_required(int v, int from, int to) const {
    const auto& r = required[v];
    auto it = std::upper_bound(r.begin(), r.end(), to);
    if (it == r.begin() || *std::prev(it) < from) return -1;
    return *std::prev(it);
  }
  void require(int v, int stage) {
    auto& r = required[v];
    r.insert(std::upper_bound(r.begin(), r.end(), stage), stage);
  }

  int64_t over(int t) const { return std::max<int64_t>(0, s.stage_peak(t) - s.cap()); }

  struct Drop {
    bool ok = false;
    int hold = 0;
    double net = 0;  // bytes of excess relieved, less what the holds add
    std::vector<int> holds;  // tail gaps of inputs held on to the resume stage
  };

  // Gap `gi` dropped from its last required stage (at least its start) and recomputed at stage r.
  Drop evaluate(int gi, int r) const {
    Drop d;
    const Gap& g = dag.gaps[gi];
    const int v = g.value;
    if (!s.kept(gi)) return d;
    const int req = last_required(v, g.lo + 1, r);
    if (req == r) return d;
    const int hold = std::max(g.lo, req);
    if (r - hold < 2) return d;
    double gain = 0;
    peaks.above(hold + 1, r - 1, s.cap(), [&](int t) {
      gain += static_cast<double>(std::min(dag.mem[v], over(t)));
      return true;
    });
    if (gain <= 0) return d;
    double loss = 0;
    for (int w : dag.pred[v]) {
      if (s.resident(w, r)) continue;
      const int gw = dag.gap_at_boundary(w, r);
      if (gw < 0 || !dag.gaps[gw].tail) return d;  // dropped there by another drop
      peaks.above(s.decisions()[gw].hold + 1, r, s.cap() - dag.mem[w], [&](int t) {
        loss += static_cast<double>(s.stage_peak(t) + dag.mem[w] - s.cap() - over(t));
        return loss < gain;  // no relief left: the rest need not be counted
      });
      if (loss >= gain) return d;
      d.holds.push_back(gw);
    }
    d.ok = true;
    d.hold = hold;
    d.net = gain - loss;
    return d;
  }

  bool run(Clock::time_point deadline, RetentionStats* stats) {
    // Candidates: (gap, resume stage).
    std::vector<std::pair<int, int>> cands;
    for (int v = 0; v < dag.n; ++v) {
      if (dag.mem[v] == 0) continue;
      const int inputs_until = inputs_resident_until(dag, v);
      for (int gi = dag.first_gap[v]; gi < dag.first_gap[v + 1]; ++gi) {
        const Gap& g = dag.gaps[gi];
        if (!dag.relieves(g)) continue;
        cands.emplace_back(gi, g.hi);
        const int early = std::min(g.hi, inputs_until);
        if (early < g.hi && early - g.lo >= 2) cands.emplace_back(gi, early);
      }
    }
    using Entry = std::pair<double, int>;  // time per byte relieved, candidate
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
    auto score = [&](int c, const Drop& d) { return dag.cost[dag.gaps[cands[c].first].value] / d.net; };
    // First keys: optimistic (every stage above the cap in the range relieved of the value's bytes,
    // no cost for holds), so that each candidate is evaluated exactly only when it comes up.
    std::vector<int> above(dag.n + 1, 0);
    for (int t = 0; t < dag.n; ++t) above[t + 1] = above[t] + (over(t) > 0);
    for (size_t c = 0; c < cands.size(); ++c) {
      const Gap& g = dag.gaps[cands[c].first];
      const double most = static_cast<double>(dag.mem[g.value]) * (above[cands[c].second] - above[g.lo + 1]);
      if (most > 0) queue.emplace(dag.cost[g.value] / most, static_cast<int>(c));
    }
    long steps = 0;
    while (!queue.empty() && s.excess() > 0) {
      if ((++steps & 63) == 0 && Clock::now() > deadline) return false;
      const int c = queue.top().second;
      queue.pop();
      const auto [gi, r] = cands[c];
      const Drop d = evaluate(gi, r);
      if (!d.ok || d.net <= 0) continue;
      const double sc = score(c, d);
      if (!queue.empty() && sc > queue.top().first) {  // relieves less than it did: back in line
        queue.emplace(sc, c);
        continue;
      }
      const int v = dag.gaps[gi].value;
      const size_t at = s.mark();
      const double before = s.recompute_cost();
      // Nothing reads the value inside the drop, nor the held inputs inside their holds (they are
      // required where a drop recomputes from them): inert moves.
      for (int gw : d.holds) s.set_inert(gw, r, dag.gaps[gw].hi);
      s.set_inert(gi, d.hold, r);
      if (s.recompute_cost() > before + dag.cost[v] * (1 + 1e-9) + 1e-12) {  // it recomputes a cone
        s.rollback(at);
        if (stats) ++stats->undone;
        continue;
      }
      s.commit();
      int from = d.hold;
      for (int gw : d.holds) from = std::min(from, dag.gaps[gw].lo);
      peaks.assign(std::max(0, from), std::min(r + 1, dag.n - 1), [&](int t) { return s.stage_peak(t); });
      for (int w : dag.pred[v]) require(w, r);
      if (stats) {
        ++stats->drops;
        stats->holds += static_cast<long>(d.holds.size());
      }
    }
    return s.excess() == 0;
  }
};

}  // namespace

double one_op_coverage(const KeepState& keep_all) {
  const StageDag& dag = keep_all.dag();
  std::vector<int64_t> relief(static_cast<size_t>(dag.n) + 1, 0);
  for (int v = 0; v < dag.n; ++v) {
    const int inputs_until = inputs_resident_until(dag, v);
    for (int gi = dag.first_gap[v]; gi < dag.first_gap[v + 1]; ++gi) {
      const Gap& g = dag.gaps[gi];
      const int r = std::min(g.hi, inputs_until);
      if (g.tail || r - g.lo < 2) continue;
      relief[g.lo + 1] += dag.mem[v];
      relief[r] -= dag.mem[v];
    }
  }
  double excess = 0, covered = 0;
  int64_t running = 0;
  for (int t = 0; t < dag.n; ++t) {
    running += relief[t];
    const int64_t over = std::max<int64_t>(0, keep_all.stage_peak(t) - keep_all.cap());
    excess += static_cast<double>(over);
    covered += static_cast<double>(std::min(over, running));
  }
  return excess > 0 ? covered / excess : 1.0;
}

bool retention_greedy(KeepState& s, Clock::time_point deadline, RetentionStats* stats) {
  Greedy greedy(s);
  return greedy.run(deadline, stats);
}

}  // namespace hiremate::dagremat
