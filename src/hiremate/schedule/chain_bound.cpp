#include "hiremate/schedule/chain_bound.h"

#include <algorithm>
#include <vector>

#include "hiremate/schedule/interval_cover.h"

namespace hiremate {
namespace {

// The chain: the longest dependency path (in nodes) through the loss, or through the graph where
// there is no loss. `succ` lists each compute node's direct successors.
std::vector<NodeId> longest_path(const Graph& g, const std::vector<std::vector<NodeId>>& succ,
                                 const std::vector<std::vector<NodeId>>& pred) {
  const size_t n = g.compute.size();
  std::vector<int> before(n, 1), after(n, 1);
  std::vector<NodeId> from(n, kNone), to(n, kNone);
  for (NodeId c : g.order)
    for (NodeId p : pred[c])
      if (before[p] + 1 > before[c]) {
        before[c] = before[p] + 1;
        from[c] = p;
      }
  for (auto it = g.order.rbegin(); it != g.order.rend(); ++it)
    for (NodeId s : succ[*it])
      if (after[s] + 1 > after[*it]) {
        after[*it] = after[s] + 1;
        to[*it] = s;
      }
  NodeId mid = g.loss;
  if (mid == kNone)
    for (NodeId c : g.order)
      if (mid == kNone || before[c] + after[c] > before[mid] + after[mid]) mid = c;
  std::vector<NodeId> path;
  for (NodeId c = mid; c != kNone; c = from[c]) path.push_back(c);
  std::reverse(path.begin(), path.end());
  for (NodeId c = to[mid]; c != kNone; c = to[c]) path.push_back(c);
  return path;
}

}  // namespace

std::optional<ChainBound> chain_bound(const Graph& g, int64_t budget, int max_iterations,
                                      std::chrono::steady_clock::time_point deadline) {
  const int n = static_cast<int>(g.compute.size());
  std::vector<std::vector<NodeId>> succ(n), pred(n);
  for (NodeId c = 0; c < n; ++c)
    for (NodeId d : g.compute[c].deps)
      for (NodeId p : g.data[d].producers)
        if (p != c && std::find(pred[c].begin(), pred[c].end(), p) == pred[c].end()) {
          pred[c].push_back(p);
          succ[p].push_back(c);
        }
  const std::vector<NodeId> chain = longest_path(g, succ, pred);
  const int k = static_cast<int>(chain.size());
  std::vector<int> on_chain(n, -1);
  for (int i = 0; i < k; ++i) on_chain[chain[i]] = i;
  // Per node, the chain's moments forced around it: below[c] the last chain index strictly before
  // c on every schedule (an ancestor), above[c] the first strictly after it (a descendant).
  std::vector<int> below(n, -1), above(n, k);
  for (NodeId c : g.order)
    for (NodeId p : pred[c]) below[c] = std::max(below[c], on_chain[p] >= 0 ? on_chain[p] : below[p]);
  for (auto it = g.order.rbegin(); it != g.order.rend(); ++it)
    for (NodeId s : succ[*it]) above[*it] = std::min(above[*it], on_chain[s] >= 0 ? on_chain[s] : above[s]);

  ChainBound out;
  out.moments = k;
  IntervalCover cover;
  cover.floor.assign(k, g.source_bytes());
  std::vector<int> counted(g.data.size(), -1);  // the moment whose floor already counts it
  for (int i = 0; i < k; ++i) {
    const ComputeNode& c = g.compute[chain[i]];
    cover.floor[i] += c.overhead;
    for (const auto* list : {&c.deps, &c.outputs})
      for (NodeId d : *list)
        if (!g.data[d].source && counted[d] != i) {
          counted[d] = i;
          cover.floor[i] += g.data[d].bytes;
        }
  }
  if (*std::max_element(cover.floor.begin(), cover.floor.end()) > budget) return std::nullopt;

  // Per data with one producer p: its live moments, [exists, needed], split at the chain's own reads
  // and writes of it and at readers forced between two moments.
  std::vector<double> share_bytes(n, 0);  // per producer: bytes of its outputs that make items
  struct Run {
    int first, last;
    NodeId data;
  };
  std::vector<Run> runs;
  for (NodeId d = 0; d < static_cast<NodeId>(g.data.size()); ++d) {
    const DataNode& dn = g.data[d];
    if (dn.source || dn.producers.size() != 1 || dn.bytes == 0) continue;
    const NodeId p = dn.producers[0];
    const int exists = on_chain[p] >= 0 ? on_chain[p] + 1 : above[p];
    int needed = -1;
    // cut[i]: the live moments up to i are apart from those from i + 1 on.
    std::vector<int> cuts;
    std::vector<int> forced;
    for (NodeId r : dn.users) {
      const int last_before = on_chain[r] >= 0 ? on_chain[r] - 1 : below[r];
      needed = std::max(needed, last_before);
      if (on_chain[r] >= 0) forced.push_back(on_chain[r]);
      else if (above[r] == below[r] + 1) cuts.push_back(below[r]);
    }
    if (exists > needed) continue;
    std::sort(cuts.begin(), cuts.end());
    std::sort(forced.begin(), forced.end());
    // Walk the split points only (O(readers) per data, not O(moments)): a forced read at i removes
    // moment i (resident there) and splits; a cut at i splits between i and i + 1.
    int start = exists;
    auto close = [&](int first, int last) {
      if (first <= last) runs.push_back({first, last, d});
    };
    size_t ci = 0, fi = 0;
    while (ci < cuts.size() || fi < forced.size()) {
      const bool take_forced = ci == cuts.size() || (fi < forced.size() && forced[fi] <= cuts[ci]);
      const int at = take_forced ? forced[fi++] : cuts[ci++];
      if (at < start || at > needed) continue;
      close(start, take_forced ? at - 1 : at);
      start = at + 1;
    }
    close(start, needed);
  }
  std::vector<char> in_items(g.data.size(), 0);
  for (const Run& r : runs) in_items[r.data] = 1;
  for (NodeId d = 0; d < static_cast<NodeId>(g.data.size()); ++d)
    if (in_items[d]) share_bytes[g.data[d].producers[0]] += static_cast<double>(g.data[d].bytes);
  for (const Run& r : runs) {
    const DataNode& dn = g.data[r.data];
    const NodeId p = dn.producers[0];
    cover.items.push_back({r.first, r.last, g.compute[p].time * static_cast<double>(dn.bytes) / share_bytes[p],
                           dn.bytes});
  }
  out.items = static_cast<int>(cover.items.size());
  const IntervalCoverDual dual = interval_cover_dual(cover, budget, max_iterations, deadline);
  for (const auto& c : g.compute) out.time += c.time;
  out.recompute = dual.bound;
  out.time += dual.bound;
  out.iterations = dual.iterations;
  return out;
}

}  // namespace hiremate
