#include "hiremate/schedule/lower_bound.h"

#include <algorithm>

#include <fmt/format.h>
#include <unordered_map>
#include <vector>

#include "hiremate/schedule/chain_bound.h"

namespace hiremate {

std::optional<LossPointBound> loss_point_bound(const Graph& g, int64_t budget) {
  if (g.loss == kNone) return std::nullopt;
  LossPointBound out;
  for (const auto& c : g.compute) out.time += c.time;

  // Resident while the loss runs, whatever the plan: sources, the loss's inputs, outputs, overhead.
  const ComputeNode& loss = g.compute[g.loss];
  std::vector<bool> forced(g.data.size(), false);
  int64_t fixed = g.source_bytes() + loss.overhead;
  for (NodeId d : loss.deps)
    if (!g.data[d].source && !forced[d]) {
      forced[d] = true;
      fixed += g.data[d].bytes;
    }
  for (NodeId d : loss.outputs) fixed += g.data[d].bytes;
  if (fixed > budget) return std::nullopt;

  // Forwards the loss depends on run before it, so running one after it is a recomputation; a
  // forward outside that set might run for the first time after the loss, and is not counted.
  std::vector<bool> before_loss(g.compute.size(), false);
  std::vector<NodeId> stack{g.loss};
  while (!stack.empty()) {
    NodeId c = stack.back();
    stack.pop_back();
    for (NodeId d : g.compute[c].deps)
      for (NodeId p : g.data[d].producers)
        if (!before_loss[p]) {
          before_loss[p] = true;
          stack.push_back(p);
        }
  }
  // Per forward, the bytes of its outputs and phantoms that backwards read and that the loss does
  // not hold anyway.
  std::unordered_map<NodeId, int64_t> bytes_of;
  std::vector<bool> seen(g.data.size(), false);
  for (const auto& c : g.compute) {
    if (c.kind != ComputeKind::Backward) continue;
    for (NodeId d : c.deps) {
      const DataNode& dn = g.data[d];
      if (dn.source || dn.kind == DataKind::Grad || seen[d] || dn.producers.empty()) continue;
      seen[d] = true;
      NodeId f = dn.producers[0];
      if (g.compute[f].kind != ComputeKind::Forward || !before_loss[f]) continue;
      out.needed += dn.bytes;
      if (!forced[d]) bytes_of[f] += dn.bytes;
    }
  }
  struct Item {
    double time;
    int64_t bytes;
  };
  std::vector<Item> items;
  for (const auto& [f, b] : bytes_of)
    if (b > 0) items.push_back({g.compute[f].time, b});
  // Fractional knapsack: hold the most time per byte first; what does not fit is recomputed.
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return a.time * static_cast<double>(b.bytes) > b.time * static_cast<double>(a.bytes);
  });
  out.held_at_loss = budget - fixed;
  int64_t room = out.held_at_loss;
  for (const Item& it : items) {
    if (room >= it.bytes) {
      room -= it.bytes;
      continue;
    }
    double held = room > 0 ? static_cast<double>(room) / static_cast<double>(it.bytes) : 0.0;
    room = 0;
    out.recompute += it.time * (1.0 - held);
  }
  out.time += out.recompute;
  return out;
}

std::optional<ScheduleBound> schedule_bound(const Graph& g, int64_t budget,
                                            std::chrono::steady_clock::time_point deadline) {
  std::optional<ScheduleBound> out;
  if (g.loss == kNone) return out;  // generic DAGs: their fixed-order bound is dagremat's gap bound
  if (auto lp = loss_point_bound(g, budget))
    out = ScheduleBound{lp->time, fmt::format("what the budget cannot hold while the loss runs ({} of {} bytes the "
                                              "backward reads) must be recomputed",
                                              std::max<int64_t>(0, lp->needed - lp->held_at_loss), lp->needed)};
  if (auto cb = chain_bound(g, budget, kScheduleBoundSteps, deadline); cb && (!out || cb->time > out->time))
    out = ScheduleBound{cb->time, fmt::format("what the budget cannot hold at each of the {} nodes of the longest "
                                              "dependency path must be recomputed (chain bound, {} values' live "
                                              "spans)",
                                              cb->moments, cb->items)};
  return out;
}

}  // namespace hiremate
