#include "hiremate/solvers/twremat/memory_model.h"

#include <algorithm>
#include <iterator>

#include "hiremate/common/error.h"

namespace hiremate::twremat {

namespace {
constexpr int64_t kRemoved = int64_t{1} << 60;  // subtracted at a removed entry: never the peak
}

// What one tentative change did, to put it back.
struct MemoryModel::Journal {
  struct RangeAdd {
    int l, r;
    int64_t delta;
  };
  struct SetOp {
    std::set<int>* set;
    int value;
    bool inserted;
  };
  std::vector<RangeAdd> adds;
  std::vector<SetOp> sets;
  std::vector<int> kept;         // positions whose keep flag was raised
  std::vector<int> deactivated;  // positions made inactive
};

MemoryModel::MemoryModel(const Graph& g, const Dag& dag, std::vector<Entry> entries)
    : g_(g),
      dag_(dag),
      entries_(std::move(entries)),
      active_(entries_.size(), 1),
      active_count_(entries_.size()),
      writes_at_(g.data.size()),
      reads_at_(g.data.size()),
      runs_(g.compute.size()),
      deps_(g.compute.size()),
      movable_(g.data.size(), 0),
      profile_(static_cast<int>(entries_.size())) {
  sources_ = g.source_bytes();
  for (size_t d = 0; d < g.data.size(); ++d) movable_[d] = !g.data[d].source && g.data[d].kind != DataKind::Grad;
  for (size_t c = 0; c < g.compute.size(); ++c) {
    for (NodeId d : g.compute[c].deps)
      if (movable_[d]) deps_[c].push_back(d);
    std::sort(deps_[c].begin(), deps_[c].end());
    deps_[c].erase(std::unique(deps_[c].begin(), deps_[c].end()), deps_[c].end());
  }
  // Grads: from the first producer through the last read or producer, fixed (their nodes run once).
  std::vector<int> grad_from(g.data.size(), -1), grad_to(g.data.size(), -1);
  for (int q = 0; q < static_cast<int>(entries_.size()); ++q) {
    const Entry& e = entries_[q];
    if (e.node == kNone) {
      loss_at_ = q;
      continue;
    }
    if (e.loss) {
      loss_at_ = q;
      loss_overhead_ = g.compute[e.node].overhead;
    }
    runs_[e.node].insert(q);
    profile_.add(q, q, g.compute[e.node].overhead);
    for (NodeId d : g.compute[e.node].outputs) {
      if (!writes(q, d) || g.data[d].source) continue;
      if (movable_[d]) {
        writes_at_[d].insert(q);
      } else {
        if (grad_from[d] < 0) grad_from[d] = q;
        grad_to[d] = q;
      }
    }
    for (NodeId d : g.compute[e.node].deps) {
      if (movable_[d]) reads_at_[d].insert(q);
      else if (!g.data[d].source) grad_to[d] = std::max(grad_to[d], q);
    }
  }
  for (size_t d = 0; d < g.data.size(); ++d) {
    if (grad_from[d] >= 0) profile_.add(grad_from[d], grad_to[d], g.data[d].bytes);
    for (int a : writes_at_[d]) profile_.add(a, interval_end(static_cast<NodeId>(d), a), g.data[d].bytes);
  }
}

int64_t MemoryModel::peak() const { return sources_ + std::max<int64_t>(0, profile_.max()); }

int64_t MemoryModel::at_loss() const {
  return loss_at_ < 0 ? 0 : sources_ + profile_.at(loss_at_) - loss_overhead_;
}

double MemoryModel::time() const {
  double t = 0;
  for (size_t q = 0; q < entries_.size(); ++q)
    if (active_[q] && entries_[q].node != kNone) t += g_.compute[entries_[q].node].time;
  return t;
}

std::vector<Op> MemoryModel::ops() const {
  std::vector<Entry> live;
  for (size_t q = 0; q < entries_.size(); ++q)
    if (active_[q]) live.push_back(entries_[q]);
  return to_ops(live);
}

bool MemoryModel::writes(int q, NodeId x) const {
  return g_.data[x].kind != DataKind::Phantoms || entries_[q].keep;
}

void MemoryModel::add(int l, int r, int64_t delta, Journal* j) {
  profile_.add(l, r, delta);
  if (j) j->adds.push_back({l, r, delta});
}

// The last read of the value written at a before its next write, or a when nothing reads it.
int MemoryModel::interval_end(NodeId x, int a) const {
  const auto& w = writes_at_[x];
  auto next = w.upper_bound(a);
  int limit = next == w.end() ? static_cast<int>(entries_.size()) : *next;
  const auto& r = reads_at_[x];
  auto it = r.lower_bound(limit);
  if (it == r.begin()) return a;
  --it;
  return *it > a ? *it : a;
}

// Adds (sign +1) or removes (-1) the intervals of x that a change at positions lo..hi can move:
// those written in [lo, hi] and the one written last before lo.
void MemoryModel::window(NodeId x, int lo, int hi, int sign, Journal* j) {
  const auto& w = writes_at_[x];
  auto it = w.lower_bound(lo);
  if (it != w.begin()) --it;
  for (; it != w.end() && *it <= hi; ++it) add(*it, interval_end(x, *it), sign * g_.data[x].bytes, j);
}

void MemoryModel::erase_production(NodeId x, int a, Journal* j) {
  if (writes_at_[x].erase(a) && j) j->sets.push_back({&writes_at_[x], a, false});
}

void MemoryModel::insert_production(NodeId x, int a, Journal* j) {
  if (writes_at_[x].insert(a).second && j) j->sets.push_back({&writes_at_[x], a, true});
}

void MemoryModel::erase_use(NodeId x, int a, Journal* j) {
  if (reads_at_[x].erase(a) && j) j->sets.push_back({&reads_at_[x], a, false});
}

bool MemoryModel::mergeable(int q) const {
  const Entry& e = entries_[q];
  return active_[q] && !e.loss && dag_.recomputable[e.node] && *runs_[e.node].begin() != q;
}

void MemoryModel::apply_merge(int q, Journal* j) {
  const NodeId c = entries_[q].node;
  auto& runs = runs_[c];
  const int p = *std::prev(runs.find(q));
  std::vector<NodeId> outs;
  for (NodeId x : g_.compute[c].outputs)
    if (movable_[x] && writes(q, x)) outs.push_back(x);
  for (NodeId x : outs) window(x, p, q, -1, j);
  for (NodeId d : deps_[c]) window(d, q, q, -1, j);
  for (NodeId x : outs) {
    erase_production(x, q, j);
    insert_production(x, p, j);  // phantoms that p did not keep; a no-op for its data
  }
  if (entries_[q].keep && !entries_[p].keep) {
    entries_[p].keep = true;
    if (j) j->kept.push_back(p);
  }
  for (NodeId d : deps_[c]) erase_use(d, q, j);
  runs.erase(q);
  if (j) j->sets.push_back({&runs, q, false});
  active_[q] = 0;
  --active_count_;
  if (j) j->deactivated.push_back(q);
  add(q, q, -kRemoved, j);
  for (NodeId x : outs) window(x, p, q, +1, j);
  for (NodeId d : deps_[c]) window(d, q, q, +1, j);
}

void MemoryModel::remove_run(int q, Journal* j) {
  const NodeId c = entries_[q].node;
  std::vector<NodeId> outs;
  for (NodeId x : g_.compute[c].outputs)
    if (movable_[x] && writes(q, x)) outs.push_back(x);
  for (NodeId x : outs) window(x, q, q, -1, j);
  for (NodeId d : deps_[c]) window(d, q, q, -1, j);
  for (NodeId x : outs) erase_production(x, q, j);
  for (NodeId d : deps_[c]) erase_use(d, q, j);
  runs_[c].erase(q);
  if (j) j->sets.push_back({&runs_[c], q, false});
  active_[q] = 0;
  --active_count_;
  if (j) j->deactivated.push_back(q);
  add(q, q, -kRemoved, j);
  for (NodeId x : outs) window(x, q, q, +1, j);
  for (NodeId d : deps_[c]) window(d, q, q, +1, j);
}

void MemoryModel::undo(Journal& j) {
  for (auto it = j.adds.rbegin(); it != j.adds.rend(); ++it) profile_.add(it->l, it->r, -it->delta);
  for (auto it = j.sets.rbegin(); it != j.sets.rend(); ++it) {
    if (it->inserted) it->set->erase(it->value);
    else it->set->insert(it->value);
  }
  for (int p : j.kept) entries_[p].keep = false;
  for (int q : j.deactivated) {
    active_[q] = 1;
    ++active_count_;
  }
}

MemoryModel::Outcome MemoryModel::try_merge(int q) {
  HM_ASSERT(mergeable(q), "twremat: try_merge of an entry that cannot merge");
  Journal j;
  apply_merge(q, &j);
  Outcome o{peak(), at_loss()};
  undo(j);
  return o;
}

bool MemoryModel::unread(int q) const {
  if (!active_[q] || entries_[q].loss) return false;
  const NodeId c = entries_[q].node;
  if (!dag_.recomputable[c] || *runs_[c].begin() == q) return false;
  for (NodeId x : g_.compute[c].outputs)
    if (movable_[x] && writes(q, x) && interval_end(x, q) != q) return false;
  return true;
}

// Checks the given runs, and the runs feeding each one dropped, for being unread.
void MemoryModel::drop_unread_from(std::vector<int> work) {
  while (!work.empty()) {
    int q = work.back();
    work.pop_back();
    if (!unread(q)) continue;
    for (NodeId d : deps_[entries_[q].node]) {
      const auto& w = writes_at_[d];
      auto it = w.lower_bound(q);
      if (it != w.begin()) work.push_back(*std::prev(it));
    }
    remove_run(q, nullptr);
  }
}

void MemoryModel::merge(int q) {
  HM_ASSERT(mergeable(q), "twremat: merge of an entry that cannot merge");
  std::vector<int> feeders;
  for (NodeId d : deps_[entries_[q].node]) {
    const auto& w = writes_at_[d];
    auto it = w.lower_bound(q);
    if (it != w.begin()) feeders.push_back(*std::prev(it));
  }
  apply_merge(q, nullptr);
  drop_unread_from(std::move(feeders));
}

void MemoryModel::drop_unread() {
  std::vector<int> work;
  for (size_t q = 0; q < entries_.size(); ++q) work.push_back(static_cast<int>(q));
  drop_unread_from(std::move(work));  // the last first: their inputs are checked again after
}

}  // namespace hiremate::twremat
