#include "hiremate/solvers/dagremat/keep_state.h"

#include <algorithm>

#include "hiremate/common/error.h"

namespace hiremate::dagremat {

KeepState::KeepState(const StageDag& dag, int64_t cap)
    : dag_(dag), cap_(cap), resume_(dag.gaps.size()), resume_at_(dag.n), base_(dag.n, 0), cost_(dag.n, 0),
      peak_(dag.n, 0), stamp_(dag.n, 0), last_read_(dag.n, -1) {
  for (size_t gi = 0; gi < dag_.gaps.size(); ++gi) {
    const Gap& g = dag_.gaps[gi];
    resume_[gi] = g.lo;
    for (int t = g.lo + 1; t <= g.hi; ++t) base_[t] += dag_.mem[g.value];
  }
  for (int t = 0; t < dag_.n; ++t) store(t, evaluate(t));
  journal_.clear();
}

bool KeepState::resident(int value, int t) const {
  int gi = dag_.gap_at_boundary(value, t);
  return gi >= 0 && t > resume_[gi];
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
  journal_.push_back({-1, t, cost_[t], peak_[t]});
  recompute_cost_ += e.cost - cost_[t];
  excess_ += std::max<int64_t>(0, e.peak - cap_) - std::max<int64_t>(0, peak_[t] - cap_);
  cost_[t] = e.cost;
  peak_[t] = e.peak;
}

void KeepState::move(int gap, int resume) {
  const Gap& g = dag_.gaps[gap];
  const int old = resume_[gap];
  const int64_t m = dag_.mem[g.value];
  // Resident at entries r+1..hi.
  if (resume > old)
    for (int t = old + 1; t <= resume; ++t) base_[t] -= m;
  else
    for (int t = resume + 1; t <= old; ++t) base_[t] += m;
  if (old > g.lo && old < g.hi) {
    auto& at = resume_at_[old];
    at.erase(std::find(at.begin(), at.end(), gap));
  }
  if (resume > g.lo && resume < g.hi) resume_at_[resume].push_back(gap);
  resume_[gap] = resume;
}

void KeepState::set(int gap, int resume) {
  const Gap& g = dag_.gaps[gap];
  HM_ASSERT(resume >= g.lo && resume <= g.hi, "KeepState::set: resume outside the gap");
  const int old = resume_[gap];
  if (old == resume) return;
  journal_.push_back({gap, old, 0, 0});
  move(gap, resume);
  for (int t = std::min(old, resume); t <= std::max(old, resume); ++t) store(t, evaluate(t));
}

void KeepState::assign(const std::vector<int>& resume) {
  HM_ASSERT(resume.size() == resume_.size(), "KeepState::assign: one decision per gap");
  for (size_t gi = 0; gi < resume.size(); ++gi) {
    const Gap& g = dag_.gaps[gi];
    HM_ASSERT(resume[gi] >= g.lo && resume[gi] <= g.hi, "KeepState::assign: resume outside the gap");
    if (resume_[gi] != resume[gi]) move(static_cast<int>(gi), resume[gi]);
  }
  for (int t = 0; t < dag_.n; ++t) store(t, evaluate(t));
  journal_.clear();
}

void KeepState::rollback(size_t mark) {
  while (journal_.size() > mark) {
    Entry e = journal_.back();
    journal_.pop_back();
    if (e.gap >= 0) {
      move(e.gap, e.t);
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
