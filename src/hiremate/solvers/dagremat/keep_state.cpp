#include "hiremate/solvers/dagremat/keep_state.h"

#include <algorithm>

#include "hiremate/common/error.h"

namespace hiremate::dagremat {

void KeepState::set_cap(int64_t cap) {
  commit();
  cap_ = cap;
  excess_ = 0;
  for (int64_t p : peak_) excess_ += std::max<int64_t>(0, p - cap_);
}

KeepState::KeepState(const StageDag& dag, int64_t cap)
    : dag_(dag), cap_(cap), dec_(dag.gaps.size()), resume_at_(dag.n), base_(dag.n, 0), cost_(dag.n, 0),
      peak_(dag.n, 0), stamp_(dag.n, 0), last_read_(dag.n, -1) {
  // The resident bytes per stage as a difference array: a stage loop per gap took 8 s on a
  // 100,000-node random DAG (285,000 gaps, long ones), past a 10 s limit.
  std::vector<int64_t> diff(dag_.n + 1, 0);
  auto add = [&](int from, int to, int64_t bytes) {  // stages from..to inclusive
    if (from > to) return;
    diff[from] += bytes;
    diff[to + 1] -= bytes;
  };
  for (size_t gi = 0; gi < dag_.gaps.size(); ++gi) {
    const Gap& g = dag_.gaps[gi];
    const Decision d = g.tail ? Decision{g.lo, g.hi} : Decision{g.lo, g.lo};
    dec_[gi] = d;
    // Resident at t in (lo, hi] iff t <= hold or t > resume (resident_with).
    const int first = g.lo + 1, last = std::min(g.hi, dag_.n - 1);
    const int64_t bytes = dag_.mem[g.value];
    if (d.hold >= d.resume) {
      add(first, last, bytes);
    } else {
      add(first, std::min(d.hold, last), bytes);
      add(std::max(d.resume + 1, first), last, bytes);
    }
  }
  int64_t running = 0;
  for (int t = 0; t < dag_.n; ++t) base_[t] = running += diff[t];
  if (static_cast<int64_t>(dag_.n) * dag_.n <= kResidencyBitsMax) {
    words_ = (dag_.n + 63) / 64;
    bits_.assign(static_cast<size_t>(dag_.n) * static_cast<size_t>(words_), 0);
    for (size_t gi = 0; gi < dag_.gaps.size(); ++gi) {
      const Gap& g = dag_.gaps[gi];
      for (int t = g.lo + 1; t <= std::min(g.hi, dag_.n - 1); ++t)
        if (resident_with(static_cast<int>(gi), dec_[gi], t)) set_bit(g.value, t, true);
    }
  }
  for (int t = 0; t < dag_.n; ++t) store(t, evaluate(t));
  journal_.clear();
}

bool KeepState::resident_with(int gap, Decision d, int t) const {
  (void)gap;
  return t <= d.hold || t > d.resume;
}

bool KeepState::resident(int value, int t) const {
  if (!bits_.empty()) return t > value && t < dag_.n && bit(value, t);
  int gi = dag_.gap_at_boundary(value, t);
  return gi >= 0 && resident_with(gi, dec_[gi], t);
}

int KeepState::latest_resident(int value, int t) const {
  const auto& users = dag_.users[value];
  if (users.empty()) return -1;
  int u = std::min(t, dag_.n - 1);
  while (u > value) {
    const int gi = dag_.gap_at_boundary(value, u);
    if (gi < 0) {  // past the last user with no tail gap: the last user's entry is the next candidate
      if (u <= users.back()) return -1;
      u = users.back();
      continue;
    }
    const Gap& g = dag_.gaps[gi];
    const Decision d = dec_[gi];
    if (resident_with(gi, d, u)) return u;
    // Not resident at u: u lies in (hold, resume]; resident at hold when it is inside the gap, else
    // the candidate is the gap's first moment lo, which belongs to the gap before.
    u = d.hold >= g.lo + 1 ? d.hold : g.lo;
  }
  return -1;
}

KeepState::Eval KeepState::evaluate(int t) const {
  if (++clock_ == 0) {  // wrapped: reset the stamps
    std::fill(stamp_.begin(), stamp_.end(), 0);
    clock_ = 1;
  }
  const int now = clock_;
  list_.clear();
  list_.push_back(t);
  stamp_[t] = now;
  for (int gi : resume_at_[t]) {
    int v = dag_.gaps[gi].value;
    if (stamp_[v] != now) {
      stamp_[v] = now;
      list_.push_back(v);
    }
  }
  for (size_t idx = 0; idx < list_.size(); ++idx) {
    int k = list_[idx];
    for (int p : dag_.pred[k]) {
      if (stamp_[p] == now || resident(p, t)) continue;
      stamp_[p] = now;
      list_.push_back(p);
    }
  }
  std::sort(list_.begin(), list_.end());
  Eval e{0, 0};
  for (int k : list_) {
    if (k != t) e.cost += dag_.cost[k];
    last_read_[k] = -1;
  }
  for (int k : list_)
    for (int p : dag_.pred[k])
      if (stamp_[p] == now) last_read_[p] = k;
  int64_t cur = base_[t];
  for (int k : list_) {
    e.peak = std::max(e.peak, cur + dag_.mem[k] + dag_.overhead[k]);
    cur += dag_.mem[k];
    // Freed right after it runs when nothing in the stage reads it and the next stage does not hold it
    // (k = t: its output leaves after the stage unless kept; no later op of the stage sees it).
    if (k != t && last_read_[k] < 0 && !resident(k, t + 1)) cur -= dag_.mem[k];
    for (int p : dag_.pred[k])
      if (stamp_[p] == now && last_read_[p] == k && !resident(p, t + 1)) cur -= dag_.mem[p];
  }
  return e;
}

void KeepState::store(int t, Eval e) {
  journal_.push_back({-1, t, {0, 0}, cost_[t], peak_[t]});
  recompute_cost_ += e.cost - cost_[t];
  excess_ += std::max<int64_t>(0, e.peak - cap_) - std::max<int64_t>(0, peak_[t] - cap_);
  cost_[t] = e.cost;
  peak_[t] = e.peak;
}

namespace {
// A gap recomputes its value in stage r when it resumes strictly inside and is not held through r.
bool seeds(const Gap& g, KeepState::Decision d) { return d.resume > g.lo && d.resume < g.hi && d.hold < d.resume; }
}  // namespace

// The stages whose evaluation can differ between two decisions of a gap: stage t reads the gap's
// residency on entry to t (its base bytes, what it recomputes) and on entry to t + 1 (what it frees),
// and whether the gap resumes in t. Exact, so that a drop re-evaluates only the stages from the one
// before it to the gap's end (a difference of the holds and resumes also covered the stages behind).
std::pair<int, int> KeepState::changed(int gap, Decision a, Decision b) const {
  const Gap& g = dag_.gaps[gap];
  int lo = dag_.n, hi = -1;
  auto cover = [&](int t) {
    lo = std::min(lo, t);
    hi = std::max(hi, t);
  };
  // Residency differs only where one decision's hold or resume lies between the other's: scan
  // entries from the least of the four to the greatest (never beyond the gap).
  const int from = std::max(g.lo + 1, std::min({a.hold, a.resume, b.hold, b.resume}));
  const int to = std::min({g.hi, dag_.n - 1, std::max({a.hold, a.resume, b.hold, b.resume}) + 1});
  for (int t = from; t <= to; ++t)
    if (resident_with(gap, a, t) != resident_with(gap, b, t)) {
      cover(t - 1);
      cover(t);
    }
  if (seeds(g, a)) cover(a.resume);
  if (seeds(g, b)) cover(b.resume);
  return {std::max(lo, 0), hi};
}

void KeepState::move(int gap, Decision d) {
  const Gap& g = dag_.gaps[gap];
  const Decision old = dec_[gap];
  const int64_t m = dag_.mem[g.value];
  auto [lo, hi] = changed(gap, old, d);
  for (int t = std::max(lo + 1, g.lo + 1); t <= std::min({hi, g.hi, dag_.n - 1}); ++t) {
    bool was = resident_with(gap, old, t), now = resident_with(gap, d, t);
    if (was != now) {
      base_[t] += now ? m : -m;
      if (!bits_.empty()) set_bit(g.value, t, now);
    }
  }
  if (seeds(g, old)) {
    auto& at = resume_at_[old.resume];
    at.erase(std::find(at.begin(), at.end(), gap));
  }
  if (seeds(g, d)) resume_at_[d.resume].push_back(gap);
  dec_[gap] = d;
}

void KeepState::set(int gap, int hold, int resume) { set_through(gap, hold, resume, dag_.n - 1); }

void KeepState::set_through(int gap, int hold, int resume, int last) {
  const Gap& g = dag_.gaps[gap];
  HM_ASSERT(hold >= g.lo && hold <= g.hi && resume >= g.lo && resume <= g.hi, "KeepState::set: outside the gap");
  HM_ASSERT(!g.tail || resume == g.hi, "KeepState::set: a tail gap never resumes");
  Decision d{hold, resume};
  if (!g.tail && hold >= resume) d = {g.lo, g.lo};  // kept
  const Decision old = dec_[gap];
  if (old.hold == d.hold && old.resume == d.resume) return;
  auto [lo, hi] = changed(gap, old, d);
  journal_.push_back({gap, 0, old, 0, 0});
  move(gap, d);
  for (int t = lo; t <= std::min({hi, last, dag_.n - 1}); ++t) store(t, evaluate(t));
}

void KeepState::set_inert(int gap, int hold, int resume) {
  const Gap& g = dag_.gaps[gap];
  HM_ASSERT(hold >= g.lo && hold <= g.hi && resume >= g.lo && resume <= g.hi, "KeepState::set_inert: outside the gap");
  HM_ASSERT(!g.tail || resume == g.hi, "KeepState::set_inert: a tail gap never resumes");
  Decision d{hold, resume};
  if (!g.tail && hold >= resume) d = {g.lo, g.lo};
  const Decision old = dec_[gap];
  if (old.hold == d.hold && old.resume == d.resume) return;
  const auto [lo, hi] = changed(gap, old, d);
  journal_.push_back({gap, 0, old, 0, 0});
  // The stages that compute or read the value (its ends, the resumes) are evaluated after the move;
  // in between, only the bytes on entry change.
  auto evaluated = [&](int t) {
    return t == g.lo || t == g.hi || (seeds(g, old) && t == old.resume) || (seeds(g, d) && t == d.resume);
  };
  const int64_t m = dag_.mem[g.value];
  for (int t = std::max(lo, g.lo + 1); t <= std::min({hi, g.hi, dag_.n - 1}); ++t) {
    const bool was = resident_with(gap, old, t), now = resident_with(gap, d, t);
    if (was != now && !evaluated(t)) store(t, {cost_[t], peak_[t] + (now ? m : -m)});
  }
  move(gap, d);
  for (int t = std::max(lo, 0); t <= std::min(hi, dag_.n - 1); ++t)
    if (evaluated(t)) store(t, evaluate(t));
}

void KeepState::assign(const std::vector<Decision>& decisions) {
  HM_ASSERT(decisions.size() == dec_.size(), "KeepState::assign: one decision per gap");
  for (size_t gi = 0; gi < decisions.size(); ++gi) {
    const Gap& g = dag_.gaps[gi];
    Decision d = decisions[gi];
    HM_ASSERT(d.hold >= g.lo && d.hold <= g.hi && d.resume >= g.lo && d.resume <= g.hi,
              "KeepState::assign: outside the gap");
    if (dec_[gi].hold != d.hold || dec_[gi].resume != d.resume) move(static_cast<int>(gi), d);
  }
  for (int t = 0; t < dag_.n; ++t) store(t, evaluate(t));
  journal_.clear();
}

void KeepState::rollback(size_t mark) {
  while (journal_.size() > mark) {
    Entry e = journal_.back();
    journal_.pop_back();
    if (e.gap >= 0) {
      move(e.gap, e.old);
      continue;
    }
    recompute_cost_ += e.cost - cost_[e.t];
    excess_ += std::max<int64_t>(0, e.peak - cap_) - std::max<int64_t>(0, peak_[e.t] - cap_);
    cost_[e.t] = e.cost;
    peak_[e.t] = e.peak;
  }
}

int KeepState::worst_stage() const {
  int worst = -1;
  int64_t most = 0;
  for (int t = 0; t < dag_.n; ++t)
    if (peak_[t] - cap_ > most) {
      most = peak_[t] - cap_;
      worst = t;
    }
  return worst;
}

std::vector<int> KeepState::stage_ops(int t) const {
  evaluate(t);
  return list_;
}

std::vector<Op> KeepState::ops() const {
  std::vector<Op> out;
  for (int t = 0; t < dag_.n; ++t)
    for (int k : stage_ops(t)) out.push_back(Op::compute(dag_.order[k]));
  return out;
}

}  // namespace hiremate::dagremat
