#include "hiremate/solvers/dagremat/retention_greedy.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <stdexcept>
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

// Per value, the last stage at which it could be recomputed from what keep-all holds, reaching at
// most `levels` levels of inputs that are gone (each recomputed there from its own inputs): level 0,
// every input resident (inputs_resident_until); level k, every input resident or recomputable at
// level k - 1. Values without inputs count as available everywhere at level 0.
std::vector<std::vector<int>> available_until(const StageDag& dag, int levels) {
  std::vector<std::vector<int>> until(static_cast<size_t>(levels) + 1, std::vector<int>(dag.n));
  for (int v = 0; v < dag.n; ++v) until[0][v] = inputs_resident_until(dag, v);
  for (int k = 1; k <= levels; ++k)
    for (int v = 0; v < dag.n; ++v) {
      int u = dag.n;
      for (int w : dag.pred[v]) u = std::min(u, std::max(dag.users[w].back(), until[k - 1][w]));
      until[k][v] = u;
    }
  return until;
}

struct Greedy {
  KeepState& s;
  const StageDag& dag;
  const RetentionOptions& opt;
  // Per value, the stages at whose entry a taken drop needs it (sorted, with repeats).
  std::vector<std::vector<int>> required;
  // The stages' peaks: a drop's relief and its holds' cost visit only the stages above a threshold
  // (the gaps of a 20,000-node dense DAG span thousands of stages).
  SegmentTree peaks;

  Greedy(KeepState& st, const RetentionOptions& o) : s(st), dag(st.dag()), opt(o), required(dag.n), peaks(dag.n) {
    peaks.assign(0, dag.n - 1, [&](int t) { return s.stage_peak(t); });
    // From a state with drops (the budget ladder's rungs), what its recomputations read resident is
    // required where they read it: a drop across such a stage would change that stage's recomputation,
    // which the inert moves below do not evaluate.
    std::vector<int> ops;
    for (int t = 0; t < dag.n; ++t) {
      ops = s.stage_ops(t);
      if (ops.size() < 2) continue;
      for (int x : ops) {
        if (x == t) continue;
        for (int w : dag.pred[x])
          if (s.resident(w, t)) require(w, t);
      }
    }
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
    double net = 0;   // bytes of excess relieved, less what the holds and recomputed inputs add
    double cost = 0;  // the value's time and its recomputed inputs'
    std::vector<int> holds;  // tail gaps of inputs held on to the resume stage
    std::vector<int> recs;   // inputs recomputed in the resume stage
  };

  // Makes w, an input gone at stage r, available there for a drop relieving `gain`: its tail gap held
  // on to r, or w recomputed in r from its own inputs (those gone supplied the same way, `depth`
  // levels down), whichever costs less time per net byte relieved. `loss` and `cost` accumulate.
  // Values without inputs are held: recomputing them too (time 0 on the public-style DAGs) left the
  // 2,000-node dense DAG 102 kB above the cap at 80 %, where holding them fits.
  bool supply(int w, int r, int depth, double gain, double& loss, double& cost, Drop& d) const {
    if (std::find(d.recs.begin(), d.recs.end(), w) != d.recs.end()) return true;
    const double inf = std::numeric_limits<double>::infinity();
    const int gw = dag.gap_at_boundary(w, r);
    double hold_loss = inf;
    if (gw >= 0 && dag.gaps[gw].tail) {
      if (std::find(d.holds.begin(), d.holds.end(), gw) != d.holds.end()) return true;
      double l = 0;
      peaks.above(s.decisions()[gw].hold + 1, r, s.cap() - dag.mem[w], [&](int t) {
        l += static_cast<double>(s.stage_peak(t) + dag.mem[w] - s.cap() - over(t));
        return l < gain - loss;  // no relief left: the rest need not be counted
      });
      hold_loss = l;
    }
    const double held = gain - loss - hold_loss > 0 ? cost / (gain - loss - hold_loss) : inf;
    // A recomputation costs at least its own time and bytes in stage r: where that is no better than
    // the hold, its inputs are not looked at.
    const double own = static_cast<double>(std::max<int64_t>(0, s.stage_peak(r) + dag.mem[w] - s.cap()) - over(r));
    double recomputed = inf;
    Drop trial;
    double trial_loss = loss + own, trial_cost = cost + dag.cost[w];
    if (depth > 0 && !dag.pred[w].empty() && gain - trial_loss > 0 && trial_cost / (gain - trial_loss) < held) {
      trial.holds = d.holds;
      trial.recs = d.recs;
      trial.recs.push_back(w);
      bool ok = true;
      for (int x : dag.pred[w])
        if (!s.resident(x, r) && !supply(x, r, depth - 1, gain, trial_loss, trial_cost, trial)) {
          ok = false;
          break;
        }
      if (ok && gain - trial_loss > 0) recomputed = trial_cost / (gain - trial_loss);
    }
    if (held == inf && recomputed == inf) return false;
    if (held <= recomputed) {
      loss += hold_loss;
      d.holds.push_back(gw);
    } else {
      loss = trial_loss;
      cost = trial_cost;
      d.holds = std::move(trial.holds);
      d.recs = std::move(trial.recs);
    }
    return true;
  }

  // Gap `gi` dropped from its last required stage (at least its start) and recomputed at stage r.
  Drop evaluate(int gi, int r) const {
    Drop d;
    const Gap& g = dag.gaps[gi];
    const int v = g.value;
    if (!s.kept(gi)) return d;
    // Required at r itself is no obstacle: recomputed in stage r, it is there for the reader that
    // required it, which stage r runs after it (graph order).
    const int req = last_required(v, g.lo + 1, r - 1);
    const int hold = std::max(g.lo, req);
    if (r - hold < 2) return d;
    double gain = 0;
    peaks.above(hold + 1, r - 1, s.cap(), [&](int t) {
      gain += static_cast<double>(std::min(dag.mem[v], over(t)));
      return true;
    });
    if (gain <= 0) return d;
    double loss = 0, cost = dag.cost[v];
    for (int w : dag.pred[v])
      if (!s.resident(w, r) && !supply(w, r, opt.depth, gain, loss, cost, d)) return d;
    d.ok = true;
    d.cost = cost;
    d.hold = hold;
    d.net = gain - loss;
    return d;
  }

  bool run(Clock::time_point deadline, RetentionStats* stats) {
    // Candidates: (gap, resume stage).
    // Per gap: at its read, and at the latest stage before it where the value's inputs are resident
    // in keep-all, or recomputable there from resident ones, level by level (available_until).
    std::vector<std::pair<int, int>> cands;
    const auto until = available_until(dag, opt.depth);
    for (int v = 0; v < dag.n; ++v) {
      if (dag.mem[v] == 0) continue;
      for (int gi = dag.first_gap[v]; gi < dag.first_gap[v + 1]; ++gi) {
        const Gap& g = dag.gaps[gi];
        if (!dag.relieves(g)) continue;
        cands.emplace_back(gi, g.hi);
        int previous = g.lo + 1;
        for (const auto& level : until) {
          const int r = std::min(g.hi, level[v]);
          if (r < g.hi && r > previous && r - g.lo >= 2) cands.emplace_back(gi, r);
          previous = std::max(previous, r);
        }
      }
    }
    using Entry = std::pair<double, int>;  // time per byte relieved, candidate
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
    auto score = [](const Drop& d) { return d.cost / d.net; };
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
      const double sc = score(d);
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
      if (s.recompute_cost() > before + d.cost * (1 + 1e-9) + 1e-12) {  // it recomputes more than counted
        s.rollback(at);
        if (stats) ++stats->undone;
        continue;
      }
      s.commit();
      int from = d.hold;
      for (int gw : d.holds) from = std::min(from, dag.gaps[gw].lo);
      peaks.assign(std::max(0, from), std::min(r + 1, dag.n - 1), [&](int t) { return s.stage_peak(t); });
      auto require_and_offer = [&](int x) {
        require(x, r);
        // x may join the stage's recomputation instead (evaluate): a candidate too.
        const int gx = dag.gap_at_boundary(x, r);
        if (gx < 0 || !dag.relieves(dag.gaps[gx]) || !s.kept(gx) || dag.gaps[gx].hi == r) return;
        const double most = static_cast<double>(dag.mem[x]) * (r - dag.gaps[gx].lo);
        cands.emplace_back(gx, r);
        queue.emplace(dag.cost[x] / most, static_cast<int>(cands.size() - 1));
      };
      for (int w : dag.pred[v])
        if (s.resident(w, r)) require_and_offer(w);
      for (int w : d.recs)
        for (int x : dag.pred[w])
          if (s.resident(x, r)) require_and_offer(x);
      if (stats) {
        ++stats->drops;
        stats->holds += static_cast<long>(d.holds.size());
      }
    }
    return s.excess() == 0;
  }
};

}  // namespace

double drop_coverage(const KeepState& keep_all, int levels) {
  const StageDag& dag = keep_all.dag();
  const std::vector<int> until = available_until(dag, levels).back();
  std::vector<int64_t> relief(static_cast<size_t>(dag.n) + 1, 0);
  for (int v = 0; v < dag.n; ++v) {
    for (int gi = dag.first_gap[v]; gi < dag.first_gap[v + 1]; ++gi) {
      const Gap& g = dag.gaps[gi];
      const int r = std::min(g.hi, until[v]);
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

bool retention_greedy(KeepState& s, Clock::time_point deadline, const RetentionOptions& opt, RetentionStats* stats) {
  if (opt.depth < 0) throw std::invalid_argument("retention_greedy: RetentionOptions::depth must be at least 0");
  Greedy greedy(s, opt);
  return greedy.run(deadline, stats);
}

}  // namespace hiremate::dagremat
