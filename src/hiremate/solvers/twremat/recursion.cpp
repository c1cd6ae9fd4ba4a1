#include "hiremate/solvers/twremat/recursion.h"

#include <algorithm>

#include "hiremate/common/error.h"

namespace hiremate::twremat {

Recursion::Recursion(const Graph& g, const Dag& dag, const TreeDecomposition& td, int leaf_size, size_t max_ops,
                     Deadline deadline)
    : g_(g),
      dag_(dag),
      td_(td),
      separators_(td),
      leaf_size_(std::max(1, leaf_size)),
      max_ops_(max_ops),
      deadline_(deadline),
      done_(dag.n, 0),
      in_separator_(dag.n, 0),
      visited_(dag.n, 0),
      label_(dag.n, -1),
      pending_(g.data.size(), 0),
      pending_id_(g.data.size(), 0),
      target_id_(dag.n, 0) {}

void Recursion::compute(const std::vector<int>& nodes, const std::vector<int>& targets, std::vector<int>& out,
                        bool hold) {
  out_ = &out;
  run(nodes, targets, hold, 0);
  out_ = nullptr;
}

uint64_t Recursion::mark(const std::vector<int>& nodes, size_t level) {
  if (stamps_.size() <= level) stamps_.resize(level + 1, std::vector<uint64_t>(dag_.n, 0));
  uint64_t id = ++next_id_;
  for (int v : nodes) stamps_[level][v] = id;
  return id;
}

void Recursion::emit(int v) {
  HM_ASSERT(!done_[v], "twremat: a node that runs once was scheduled twice");
  if (++emitted_ > max_ops_) throw TooManyOps{};
  if (emitted_ % 1024 == 0 && deadline_.expired()) throw OutOfTime{};
  out_->push_back(v);
  if (!dag_.recomputable[v]) {
    done_[v] = 1;
    done_log_.push_back(v);
  }
}

void Recursion::emit_all(std::vector<int> nodes) {
  std::sort(nodes.begin(), nodes.end(), [&](int a, int b) { return dag_.rank[a] < dag_.rank[b]; });
  for (int v : nodes) emit(v);
}

void Recursion::run(const std::vector<int>& U, const std::vector<int>& T, bool hold, size_t level) {
  // 1. A: the targets and their ancestors inside U that still have to run.
  uint64_t in_u = mark(U, level);
  uint64_t seen = ++next_id_;
  std::vector<int> A;
  for (int t : T)
    if (marked(t, level, in_u) && !done_[t] && visited_[t] != seen) {
      visited_[t] = seen;
      A.push_back(t);
    }
  for (size_t i = 0; i < A.size(); ++i)
    for (int p : dag_.preds[A[i]])
      if (marked(p, level, in_u) && !done_[p] && visited_[p] != seen) {
        visited_[p] = seen;
        A.push_back(p);
      }
  if (A.empty()) return;
  // 2. Small enough: once, in rank order.
  if (static_cast<int>(A.size()) <= leaf_size_) {
    emit_all(std::move(A));
    return;
  }
  uint64_t in_a = mark(A, level);

  // 3. Components of A in the skeleton, each on its own (targets split before recursing, since the
  // recursion reuses label_).
  std::vector<std::vector<int>> components;
  uint64_t reached = ++next_id_;
  for (int s : A) {
    if (visited_[s] == reached) continue;
    visited_[s] = reached;
    std::vector<int> comp{s};
    for (size_t i = 0; i < comp.size(); ++i)
      for (int w : dag_.neighbours[comp[i]])
        if (marked(w, level, in_a) && visited_[w] != reached) {
          visited_[w] = reached;
          comp.push_back(w);
        }
    components.push_back(std::move(comp));
  }
  if (components.size() > 1) {
    auto first_rank = [&](const std::vector<int>& c) {
      int r = dag_.n;
      for (int v : c) r = std::min(r, dag_.rank[v]);
      return r;
    };
    std::sort(components.begin(), components.end(),
              [&](const auto& a, const auto& b) { return first_rank(a) < first_rank(b); });
    std::vector<std::vector<int>> targets(components.size());
    for (size_t k = 0; k < components.size(); ++k)
      for (int v : components[k]) label_[v] = static_cast<int>(k);
    for (int t : T)
      if (marked(t, level, in_a)) targets[label_[t]].push_back(t);
    for (size_t k = 0; k < components.size(); ++k) run(components[k], targets[k], hold, level + 1);
    return;
  }

  // 4. The separator split, kept only when it holds less than running A once in rank order.
  const size_t out_mark = out_->size(), done_mark = done_log_.size(), emitted_mark = emitted_;
  bool keep_split = false;
  try {
    split(A, in_a, T, hold, level);
    std::vector<int> held, in_order = A;
    for (int t : T)
      if (hold && marked(t, level, in_a)) held.push_back(t);
    std::sort(in_order.begin(), in_order.end(), [&](int a, int b) { return dag_.rank[a] < dag_.rank[b]; });
    keep_split = local_peak(*out_, out_mark, held) < local_peak(in_order, 0, held);
  } catch (const TooManyOps&) {
    // Over the cap: this level runs in rank order instead.
  }
  if (keep_split) return;
  out_->resize(out_mark);
  for (size_t i = done_mark; i < done_log_.size(); ++i) done_[done_log_[i]] = 0;
  done_log_.resize(done_mark);
  emitted_ = emitted_mark;
  emit_all(std::move(A));
}

void Recursion::split(const std::vector<int>& A, uint64_t in_a, const std::vector<int>& T, bool hold,
                      size_t level) {
  std::vector<int> X;
  for (int v : td_.bags[separators_.centroid(A)])
    if (marked(v, level, in_a)) X.push_back(v);
  if (X.empty()) X.push_back(A.front());  // not for a connected A; keeps the recursion finite
  std::sort(X.begin(), X.end(), [&](int a, int b) { return dag_.rank[a] < dag_.rank[b]; });
  for (int x : X) in_separator_[x] = 1;
  std::vector<int> rest;
  for (int v : A)
    if (!in_separator_[v]) rest.push_back(v);
  try {
    for (int x : X) {
      std::vector<int> P;
      for (int p : dag_.preds[x])
        if (marked(p, level, in_a) && !in_separator_[p] && !done_[p]) P.push_back(p);
      if (!P.empty()) run(rest, P, true, level + 1);
      emit(x);
    }
  } catch (...) {
    for (int x : X) in_separator_[x] = 0;
    throw;
  }
  std::vector<int> outside;
  for (int t : T)
    if (marked(t, level, in_a) && !in_separator_[t] && !done_[t]) outside.push_back(t);
  for (int x : X) in_separator_[x] = 0;
  run(rest, outside, hold, level + 1);
}

// The peak of sequence[from..] counting the values it writes, each from its write through its last
// read there (the targets' last values through the end), the caller's values it reads, from the
// start through their last read, and each op's overhead. Sources are the same for every choice.
int64_t Recursion::local_peak(const std::vector<int>& sequence, size_t from, const std::vector<int>& targets) {
  const size_t len = sequence.size() - from;
  const uint64_t target = ++next_id_, pending = ++next_id_, later = ++next_id_;
  for (int t : targets) target_id_[t] = target;
  profile_.assign(len + 1, 0);
  std::vector<NodeId> read;
  for (size_t k = len; k-- > 0;) {
    const int v = sequence[from + k];
    if (dag_.is_virtual(v)) continue;
    const auto& node = g_.compute[v];
    const bool held = visited_[v] != later && target_id_[v] == target;  // its last run, a target
    visited_[v] = later;
    for (NodeId d : node.outputs) {
      const auto& dn = g_.data[d];
      if (dn.source) continue;
      size_t end = held && dn.kind != DataKind::Phantoms ? len - 1
                   : pending_id_[d] == pending                ? static_cast<size_t>(pending_[d])
                                                              : k;
      pending_id_[d] = 0;
      profile_[k] += dn.bytes;
      profile_[end + 1] -= dn.bytes;
    }
    profile_[k] += node.overhead;
    profile_[k + 1] -= node.overhead;
    for (NodeId d : node.deps)
      if (!g_.data[d].source && pending_id_[d] != pending) {
        pending_id_[d] = pending;
        pending_[d] = static_cast<int>(k);
        read.push_back(d);
      }
  }
  // Values of the caller read here: resident at least through their last read.
  for (NodeId d : read)
    if (pending_id_[d] == pending) {
      pending_id_[d] = 0;
      profile_[0] += g_.data[d].bytes;
      profile_[pending_[d] + 1] -= g_.data[d].bytes;
    }
  int64_t now = 0, peak = 0;
  for (size_t k = 0; k < len; ++k) {
    now += profile_[k];
    peak = std::max(peak, now);
  }
  return peak;
}

}  // namespace hiremate::twremat
