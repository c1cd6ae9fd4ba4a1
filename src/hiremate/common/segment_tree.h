// Range add and range maximum over int64 values at positions 0..n-1, in O(log n) each, and the
// positions above a threshold in a range in O(k log n): the memory profile of a schedule while
// TW-Remat's greedy pass tries removals (twremat/memory_model.h), the stages' peaks while dagremat's
// retention greedy prices drops (dagremat/retention_greedy.cpp).
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace hiremate {

class SegmentTree {
 public:
  explicit SegmentTree(int n) : n_(std::max(1, n)), max_(4 * static_cast<size_t>(n_), 0), add_(max_.size(), 0) {}
  int size() const { return n_; }
  // Adds `delta` to every position in [l, r] (nothing when l > r).
  void add(int l, int r, int64_t delta) {
    if (l <= r) add(1, 0, n_ - 1, l, r, delta);
  }
  int64_t max() const { return max_[1]; }
  int64_t max(int l, int r) const { return l > r ? kLowest : max(1, 0, n_ - 1, l, r); }
  int64_t at(int i) const { return max(i, i); }
  void set(int i, int64_t value) { add(i, i, value - at(i)); }
  // Sets every position i in [l, r] to value(i), in O(r - l + log n).
  template <class F>
  void assign(int l, int r, F&& value) {
    if (l <= r) assign(1, 0, n_ - 1, l, r, 0, value);
  }
  // Calls f(i) for the positions i in [l, r] whose value is above x, in order, while f returns true.
  template <class F>
  void above(int l, int r, int64_t x, F&& f) const {
    if (l <= r) above(1, 0, n_ - 1, l, r, x, 0, f);
  }

  static constexpr int64_t kLowest = std::numeric_limits<int64_t>::min() / 4;

 private:
  void add(size_t node, int lo, int hi, int l, int r, int64_t delta) {
    if (r < lo || hi < l) return;
    if (l <= lo && hi <= r) {
      max_[node] += delta;
      add_[node] += delta;
      return;
    }
    int mid = lo + (hi - lo) / 2;
    add(2 * node, lo, mid, l, r, delta);
    add(2 * node + 1, mid + 1, hi, l, r, delta);
    max_[node] = add_[node] + std::max(max_[2 * node], max_[2 * node + 1]);
  }
  int64_t max(size_t node, int lo, int hi, int l, int r) const {
    if (r < lo || hi < l) return kLowest;
    if (l <= lo && hi <= r) return max_[node];
    int mid = lo + (hi - lo) / 2;
    return add_[node] + std::max(max(2 * node, lo, mid, l, r), max(2 * node + 1, mid + 1, hi, l, r));
  }

  // `outer`: the adds of the node's ancestors (its subtree's values are max_ and below, plus outer).
  template <class F>
  void assign(size_t node, int lo, int hi, int l, int r, int64_t outer, F& value) {
    if (r < lo || hi < l) return;
    if (lo == hi) {
      max_[node] = add_[node] = value(lo) - outer;
      return;
    }
    int mid = lo + (hi - lo) / 2;
    assign(2 * node, lo, mid, l, r, outer + add_[node], value);
    assign(2 * node + 1, mid + 1, hi, l, r, outer + add_[node], value);
    max_[node] = add_[node] + std::max(max_[2 * node], max_[2 * node + 1]);
  }
  template <class F>
  bool above(size_t node, int lo, int hi, int l, int r, int64_t x, int64_t outer, F& f) const {
    if (r < lo || hi < l || max_[node] + outer <= x) return true;
    if (lo == hi) return f(lo);
    int mid = lo + (hi - lo) / 2;
    outer += add_[node];
    return above(2 * node, lo, mid, l, r, x, outer, f) && above(2 * node + 1, mid + 1, hi, l, r, x, outer, f);
  }

  int n_;
  std::vector<int64_t> max_, add_;  // max of the subtree including its own pending add; the add
};

}  // namespace hiremate
