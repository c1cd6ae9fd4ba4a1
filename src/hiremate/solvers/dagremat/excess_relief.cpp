#include "hiremate/solvers/dagremat/excess_relief.h"

#include <algorithm>

namespace hiremate::dagremat {

ExcessRelief::ExcessRelief(const std::vector<int64_t>& peak, int64_t cap, int from) {
  for (int u = std::max(from, 0); u < static_cast<int>(peak.size()); ++u)
    if (peak[static_cast<size_t>(u)] > cap) {
      stage_.push_back(u);
      excess_.push_back(peak[static_cast<size_t>(u)] - cap);
    }
  sorted_ = excess_;
  sums_.resize(excess_.size());
  for (size_t b = 0; b < excess_.size(); b += kBlock) {
    const size_t e = std::min(excess_.size(), b + kBlock);
    std::sort(sorted_.begin() + static_cast<std::ptrdiff_t>(b), sorted_.begin() + static_cast<std::ptrdiff_t>(e));
    int64_t sum = 0;
    for (size_t i = b; i < e; ++i) sums_[i] = sum += sorted_[i];
  }
}

int64_t ExcessRelief::operator()(int64_t bytes, int r) const {
  const size_t end = static_cast<size_t>(std::lower_bound(stage_.begin(), stage_.end(), r) - stage_.begin());
  const size_t full = end / kBlock * kBlock;
  int64_t removed = 0;
  for (size_t b = 0; b < full; b += kBlock) {
    const auto first = sorted_.begin() + static_cast<std::ptrdiff_t>(b);
    const auto below = static_cast<size_t>(std::lower_bound(first, first + kBlock, bytes) - first);  // excess < bytes
    removed += (below ? sums_[b + below - 1] : 0) + bytes * static_cast<int64_t>(kBlock - below);
  }
  for (size_t i = full; i < end; ++i) removed += std::min(bytes, excess_[i]);
  return removed;
}

}  // namespace hiremate::dagremat
