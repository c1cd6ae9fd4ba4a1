#include "hiremate/solvers/dagremat/search.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hiremate::dagremat {

int latest_cheap_resume(const KeepState& s, int gap, int from) {
  const StageDag& dag = s.dag();
  const Gap& g = dag.gaps[gap];
  const int lower = std::max(from, g.lo + 1);
  // The largest r <= hi where every input is resident: lower r to each input's latest resident
  // stage until none moves it (a stage-by-stage scan took a third of the eviction sweep's time).
  int r = g.hi;
  for (bool moved = true; moved && r >= lower;) {
    moved = false;
    for (int p : dag.pred[g.value]) {
      const int u = s.latest_resident(p, r);
      if (u < lower) return g.hi;
      if (u < r) {
        r = u;
        moved = true;
      }
    }
  }
  return r >= lower ? r : g.hi;
}

CostliestStage::CostliestStage(const KeepState& s, int from) : from_(from) {
  const int n = s.dag().n;
  best_.assign(static_cast<size_t>(std::max(0, n - from)), -1);
  int best = -1;
  for (int u = from; u < n; ++u) {
    if (s.stage_cost(u) > 0 && (best < 0 || s.stage_cost(u) >= s.stage_cost(best))) best = u;
    best_[u - from] = best;
  }
}

namespace {

using Decision = KeepState::Decision;
using Change = std::vector<std::pair<int, Decision>>;  // (gap, decision)

struct Best {
  Change change;
  double score = std::numeric_limits<double>::infinity();
};

void apply_change(KeepState& s, const Change& c) {
  for (const auto& [gi, d] : c) s.set(gi, d.hold, d.resume);
}

void try_change(KeepState& s, const Change& c, Best& best) {
  const double cost0 = s.recompute_cost();
  const int64_t excess0 = s.excess();
  size_t m = s.mark();
  apply_change(s, c);
  const int64_t removed = excess0 - s.excess();
  const double added = s.recompute_cost() - cost0;
  s.rollback(m);
  if (removed <= 0) return;
  double score = added / static_cast<double>(removed);
  if (score < best.score) best = {c, score};
}

}  // namespace

Change resume_with_holds(const KeepState& s, int gap, int r) {
  const StageDag& dag = s.dag();
  const Gap& g = dag.gaps[gap];
  Change c{{gap, {std::min(s.hold(gap), r), r}}};
  // Hold every input that is not resident at r from where it is until r.
  for (int p : dag.pred[g.value]) {
    if (s.resident(p, r)) continue;
    int pg = dag.gap_at_boundary(p, r);
    if (pg < 0) continue;
    const Gap& gp = dag.gaps[pg];
    Decision d = s.decisions()[pg];
    if (d.hold >= gp.lo + 1 && d.hold < r && r <= d.resume) c.push_back({pg, {r, d.resume}});
    else if (d.hold == gp.lo && r <= d.resume) c.push_back({pg, {r, d.resume}});
  }
  return c;
}

// A quick estimate of a change's score (added cost per byte of excess removed), to pick the few
// candidates worth evaluating exactly: the value's recomputation plus that of its inputs that are
// not resident at r, against the excess of the stages its absence relieves.
double estimate(const KeepState& s, int gap, int from, int r, bool held) {
  const StageDag& dag = s.dag();
  const int v = dag.gaps[gap].value;
  double cost = dag.cost[v];
  if (!held)
    for (int p : dag.pred[v])
      if (!s.resident(p, r)) cost += dag.cost[p];
  int64_t removed = 0;
  for (int t = from; t < r && t < dag.n; ++t)
    removed += std::min(dag.mem[v], std::max<int64_t>(0, s.stage_peak(t) - s.cap()));
  return removed > 0 ? cost / static_cast<double>(removed) : std::numeric_limits<double>::infinity();
}

bool repair(KeepState& s, Clock::time_point deadline, const std::atomic<bool>* stop) {
  const StageDag& dag = s.dag();
  // Candidates evaluated exactly per step, best estimates first. Measured on rl4-n1000 at 80 %: with
  // 8 the repair's plan cost 314 % instead of 2.9 % (the estimate misses cascades of recomputations),
  // so up to 1,500 nodes every candidate is evaluated (18 s there, under a second on rl1-n100);
  // beyond, 16 (on a generated 5,000-node DAG at 90 % the full repair did not finish in 6 s).
  const size_t kExact = dag.n <= 1500 ? std::numeric_limits<size_t>::max() : 16;
  auto stopped = [&] { return Clock::now() > deadline || (stop && stop->load()); };
  while (s.excess() > 0) {
    if (stopped()) return false;
    const int t = s.worst_stage();
    const CostliestStage costliest(s, t + 1);
    std::vector<std::pair<double, Change>> candidates;
    for (int v = 0; v < t; ++v) {
      // The estimates of a 20,000-node DAG's stage take seconds: the deadline is checked among them.
      if ((v & 255) == 255 && stopped()) return false;
      int gi = dag.gap_at_boundary(v, t);
      if (gi < 0) continue;
      const Gap& g = dag.gaps[gi];
      const Decision d = s.decisions()[gi];
      if (s.resident(v, t) && t <= d.hold && d.hold < d.resume) {
        // Held for recomputations: hold it less.
        candidates.push_back({0, {{gi, {std::max(g.lo, t - 1), d.resume}}}});
        candidates.push_back({0, {{gi, {g.lo, d.resume}}}});
      } else if (s.resident(v, t) || d.resume == t) {
        // In memory during stage t: recompute it after t instead.
        if (g.hi == t || g.tail) continue;
        const int cheap = latest_cheap_resume(s, gi, t + 1);
        // Shared: the stage of the window that recomputes the most (evict_sweep.h).
        const int costliest_in_window = costliest.up_to(g.hi);
        const int shared = costliest_in_window < 0 ? g.hi : costliest_in_window;
        const int options[4] = {g.hi, t + 1, cheap, shared};
        const int from = std::max(g.lo + 1, std::min(d.hold, t - 1) + 1);
        for (int i = 0; i < 4; ++i) {
          const int r = options[i];
          if ((i >= 1 && r == options[0]) || (i >= 2 && r == options[1]) || (i == 3 && r == options[2])) continue;  // tried
          Change alone{{gi, {std::min(d.hold, t - 1) < g.lo ? g.lo : std::min(d.hold, t - 1), r}}};
          // A shared resume's cone is mostly recomputed there already: estimated at the value alone.
          candidates.push_back({estimate(s, gi, from, r, i == 3), alone});
          if (i == 3) continue;
          Change held = resume_with_holds(s, gi, r);
          if (held.size() > 1) candidates.push_back({estimate(s, gi, from, r, true), held});
        }
      } else if (!g.tail) {
        // Recomputed for later: keeping it may spare stage t recomputations.
        candidates.push_back({0, {{gi, {g.lo, g.lo}}}});
      }
    }
    // Holds and keeps (estimate 0) are always evaluated; drops by their estimate.
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    Best best;
    size_t drops = 0;
    for (const auto& [est, change] : candidates) {
      if (est > 0 && ++drops > kExact && !best.change.empty()) break;
      if (stopped()) return false;
      try_change(s, change, best);
    }
    if (best.change.empty()) return false;
    apply_change(s, best.change);
  }
  return true;
}

void polish(KeepState& s, Clock::time_point deadline) {
  const StageDag& dag = s.dag();
  std::vector<int> moved;
  for (size_t gi = 0; gi < dag.gaps.size(); ++gi)
    if (!dag.gaps[gi].tail && !s.kept(static_cast<int>(gi))) moved.push_back(static_cast<int>(gi));
  std::stable_sort(moved.begin(), moved.end(),
                   [&](int a, int b) { return dag.cost[dag.gaps[a].value] > dag.cost[dag.gaps[b].value]; });
  for (int gi : moved) {
    if (Clock::now() > deadline) return;
    const Gap& g = dag.gaps[gi];
    if (g.tail) continue;
    for (int r : {g.lo, latest_cheap_resume(s, gi, g.lo + 1)}) {
      if (r >= s.resume(gi)) continue;
      for (const Change& c : {Change{{gi, {r == g.lo ? g.lo : s.hold(gi), r}}}, resume_with_holds(s, gi, r)}) {
        const double cost0 = s.recompute_cost();
        size_t m = s.mark();
        apply_change(s, c);
        if (s.excess() > 0 || s.recompute_cost() >= cost0 - 1e-12) s.rollback(m);
        if (s.kept(gi)) break;
      }
    }
  }
}

SearchStats improve(KeepState& s, Clock::time_point deadline, SplitMix64& rng, long patience, double target,
                    const std::atomic<bool>* stop) {
  const StageDag& dag = s.dag();
  SearchStats stats;
  s.commit();
  long idle = 0;
  int level = 0;  // ruin size: up to 2 + 4 x level gaps kept besides the first
  while (Clock::now() < deadline && s.recompute_cost() > target + 1e-9 && !(stop && stop->load())) {
    if (idle >= (level < kRuinLevels ? kEscalateAfter : patience)) {
      if (level >= kRuinLevels) break;
      ++level;
      idle = 0;
    }
    std::vector<int> moved;
    for (size_t gi = 0; gi < dag.gaps.size(); ++gi)
      if (!dag.gaps[gi].tail && !s.kept(static_cast<int>(gi))) moved.push_back(static_cast<int>(gi));
    if (moved.empty()) break;
    ++stats.rounds;
    ++idle;
    const double cost0 = s.recompute_cost();
    // Ruin: keep a dropped gap and others that overlap it in time (up to 2, more at higher levels).
    int first = moved[rng.between(0, static_cast<int64_t>(moved.size()) - 1)];
    const Gap& g0 = dag.gaps[first];
    s.set(first, g0.lo, g0.lo);
    int extra = static_cast<int>(rng.between(0, 2 + 4 * level));
    for (int tries = 0; extra > 0 && tries < 20 + 20 * level; ++tries) {
      int gi = moved[rng.between(0, static_cast<int64_t>(moved.size()) - 1)];
      const Gap& g = dag.gaps[gi];
      if (s.kept(gi) || g.hi <= g0.lo || g.lo >= g0.hi) continue;
      s.set(gi, g.lo, g.lo);
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
      // An equal cost is accepted too (not counted as progress): a walk along the plateau, from
      // which the larger ruins find what the smaller ones did not.
      if (s.excess() == 0 && s.recompute_cost() <= cost0 + 1e-9) {
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

namespace hiremate::dagremat {

SearchStats anneal(KeepState& s, Clock::time_point deadline, SplitMix64& rng, std::vector<KeepState::Decision>& best,
                   double target) {
  const StageDag& dag = s.dag();
  SearchStats stats;
  s.commit();
  std::vector<int> movable;
  for (size_t gi = 0; gi < dag.gaps.size(); ++gi) {
    const Gap& g = dag.gaps[gi];
    if (!g.tail && g.hi - g.lo >= 2 && dag.mem[g.value] > 0) movable.push_back(static_cast<int>(gi));
  }
  if (movable.empty()) return stats;
  double sum_cost = 0, sum_mem = 0;
  for (int v = 0; v < dag.n; ++v) {
    sum_cost += dag.cost[v];
    sum_mem += static_cast<double>(dag.mem[v]);
  }
  // A byte of excess costs about what a byte of kept value saves, times a growing factor.
  double lambda = 4 * sum_cost / std::max(1.0, sum_mem);
  double best_cost = s.excess() == 0 ? s.recompute_cost() : std::numeric_limits<double>::infinity();
  if (s.excess() == 0) best = s.decisions();
  auto f = [&] { return s.recompute_cost() + lambda * static_cast<double>(s.excess()); };
  const auto t0 = Clock::now();
  const double total = std::chrono::duration<double>(deadline - t0).count();
  const double temp0 = 0.02 * sum_cost / dag.n, temp1 = temp0 * 1e-3;
  long infeasible_run = 0, since_best = 0;
  // Stops when no fitting plan cheaper than the best came in this many moves.
  const long patience = 50 * static_cast<long>(movable.size()) + 20000;
  // Without a fitting plan yet, only the deadline stops it.
  while (best_cost > target + 1e-9 && (since_best < patience || !std::isfinite(best_cost))) {
    if ((stats.rounds & 63) == 0 && Clock::now() >= deadline) break;
    ++since_best;
    ++stats.rounds;
    double frac = std::min(1.0, std::chrono::duration<double>(Clock::now() - t0).count() / std::max(1e-9, total));
    double temp = temp0 * std::pow(temp1 / temp0, frac);
    int gi = movable[rng.between(0, static_cast<int64_t>(movable.size()) - 1)];
    const Gap& g = dag.gaps[gi];
    int r = g.lo;
    bool with_holds = false;
    switch (rng.between(0, 4)) {
      case 0: r = g.lo; break;
      case 1: r = g.hi; break;
      case 2: r = latest_cheap_resume(s, gi, static_cast<int>(rng.between(g.lo + 1, g.hi))); break;
      case 3: r = static_cast<int>(rng.between(g.lo + 1, g.hi)); with_holds = true; break;
      default: r = static_cast<int>(rng.between(g.lo, g.hi)); break;
    }
    if (r == s.resume(gi) && !with_holds) continue;
    const double f0 = f();
    size_t m = s.mark();
    if (with_holds) apply_change(s, resume_with_holds(s, gi, r));
    else s.set(gi, r == g.lo ? g.lo : std::min(s.hold(gi), r), r);
    const double delta = f() - f0;
    if (delta <= 0 || rng.uniform(0, 1) < std::exp(-delta / temp)) {
      ++stats.accepted;
      s.commit();
      if (s.excess() == 0 && s.recompute_cost() < best_cost - 1e-9) {
        best_cost = s.recompute_cost();
        best = s.decisions();
        since_best = 0;
      }
    } else {
      s.rollback(m);
    }
    infeasible_run = s.excess() > 0 ? infeasible_run + 1 : 0;
    if (infeasible_run > 2000) {
      lambda *= 2;
      infeasible_run = 0;
    }
  }
  return stats;
}

}  // namespace hiremate::dagremat
