// Range add and range maximum over int64 values at positions 0..n-1, in O(log n) each: the memory
// profile of a schedule while the greedy pass tries removals (memory_model.h).
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace hiremate::twremat {

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

  int n_;
  std::vector<int64_t> max_, add_;  // max of the subtree including its own pending add; the add
};

}  // namespace hiremate::twremat
