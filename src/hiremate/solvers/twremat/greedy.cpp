#include "hiremate/solvers/twremat/greedy.h"

#include <algorithm>
#include <queue>
#include <tuple>
#include <vector>

namespace hiremate::twremat {

const char* to_string(PathOrder order) {
  switch (order) {
    case PathOrder::LowestPeak: return "lowest peak first";
    case PathOrder::TimePerByte: return "time per byte first";
  }
  return "?";
}

namespace {

struct Key {
  int64_t peak;      // the peak after the removal (LowestPeak), 0 (TimePerByte)
  double per_byte;   // minus the time saved per byte written: smaller is better
  int entry;
  bool operator>(const Key& o) const {
    return std::tie(peak, per_byte, entry) > std::tie(o.peak, o.per_byte, o.entry);
  }
};

}  // namespace

WalkResult walk_removal_path(MemoryModel& model, const Graph& g, PathOrder order, int64_t budget,
                             std::optional<int64_t> save_budget, Deadline deadline) {
  WalkResult result;
  const bool by_peak = order == PathOrder::LowestPeak;
  auto per_byte = [&](int q) {
    const auto& node = g.compute[model.entries()[q].node];
    int64_t bytes = 0;
    for (NodeId d : node.outputs) bytes += g.data[d].bytes;
    return -node.time / static_cast<double>(std::max<int64_t>(1, bytes));
  };
  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> queue;
  const int n = static_cast<int>(model.entries().size());
  for (int q = 0; q < n; ++q) {
    if (!model.mergeable(q)) continue;
    if (by_peak && (q & 255) == 0 && deadline.expired()) {
      result.out_of_time = true;
      return result;
    }
    queue.push({by_peak ? model.try_merge(q).peak : 0, per_byte(q), q});
  }
  for (size_t step = 0; !queue.empty(); ++step) {
    if ((step & 255) == 0 && deadline.expired()) {
      result.out_of_time = true;
      break;
    }
    Key top = queue.top();
    queue.pop();
    if (!model.mergeable(top.entry)) continue;  // dropped with an earlier removal
    auto outcome = model.try_merge(top.entry);
    if (by_peak) {
      Key fresh{outcome.peak, top.per_byte, top.entry};
      if (!queue.empty() && fresh > queue.top()) {
        queue.push(fresh);  // stale: it grew since it was queued
        continue;
      }
    }
    if (outcome.peak > budget || (save_budget && outcome.at_loss > *save_budget)) break;
    model.merge(top.entry);
    ++result.merges;
  }
  return result;
}

}  // namespace hiremate::twremat
