#include "hiremate/solvers/twremat/dag.h"

#include <algorithm>
#include <functional>
#include <queue>

#include "hiremate/common/error.h"

namespace hiremate::twremat {

namespace {

void unique_sorted(std::vector<int>& v, const std::vector<int>& key) {
  std::sort(v.begin(), v.end(), [&](int a, int b) { return key[a] < key[b]; });
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

Dag::Dag(const Graph& g) {
  const int real = static_cast<int>(g.compute.size());
  const bool training = g.is_training();
  virtual_loss = training && g.loss == kNone;
  n = real + (virtual_loss ? 1 : 0);
  loss = virtual_loss ? real : g.loss;
  preds.assign(n, {});
  succs.assign(n, {});
  recomputable.assign(n, 0);
  for (int c = 0; c < real; ++c) {
    const auto& node = g.compute[c];
    bool touches_grad = false;
    for (NodeId d : node.deps) {
      touches_grad |= g.data[d].kind == DataKind::Grad;
      if (g.data[d].source) continue;
      for (NodeId p : g.data[d].producers) preds[c].push_back(p);
    }
    for (NodeId d : node.outputs) touches_grad |= g.data[d].kind == DataKind::Grad;
    // A grad accumulates once per producer per step, so whatever writes or reads one runs once.
    recomputable[c] = node.kind == ComputeKind::Forward && !touches_grad;
  }

  // Backwards after the loss marker: an ordering edge where no data path already forces it.
  if (training) {
    std::vector<char> below(n, 0);
    std::vector<std::vector<int>> out(n);
    for (int c = 0; c < real; ++c)
      for (int p : preds[c]) out[p].push_back(c);
    std::vector<int> stack{loss};
    below[loss] = 1;
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      for (int s : out[v])
        if (!below[s]) {
          below[s] = 1;
          stack.push_back(s);
        }
    }
    for (int c = 0; c < real; ++c)
      if (g.compute[c].kind == ComputeKind::Backward && !below[c]) preds[c].push_back(loss);
  }

  // Rank: Kahn's algorithm, smallest graph.order position first; the virtual loss goes right
  // before the first backward of graph.order.
  std::vector<long> key(n, 0);
  for (size_t i = 0; i < g.order.size(); ++i) key[g.order[i]] = 2 * static_cast<long>(i);
  if (virtual_loss) {
    key[loss] = 2 * static_cast<long>(g.order.size());
    for (size_t i = 0; i < g.order.size(); ++i)
      if (g.compute[g.order[i]].kind == ComputeKind::Backward) {
        key[loss] = 2 * static_cast<long>(i) - 1;
        break;
      }
  }
  for (int c = 0; c < n; ++c) {
    std::sort(preds[c].begin(), preds[c].end());
    preds[c].erase(std::unique(preds[c].begin(), preds[c].end()), preds[c].end());
    for (int p : preds[c]) succs[p].push_back(c);
  }
  std::vector<int> missing(n);
  using Item = std::pair<long, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
  for (int c = 0; c < n; ++c) {
    missing[c] = static_cast<int>(preds[c].size());
    if (missing[c] == 0) ready.push({key[c], c});
  }
  rank.assign(n, -1);
  while (!ready.empty()) {
    int v = ready.top().second;
    ready.pop();
    rank[v] = static_cast<int>(by_rank.size());
    by_rank.push_back(v);
    for (int s : succs[v])
      if (--missing[s] == 0) ready.push({key[s], s});
  }
  HM_ASSERT(static_cast<int>(by_rank.size()) == n, "twremat: the dependency graph has a cycle");

  neighbours.assign(n, {});
  for (int c = 0; c < n; ++c) {
    unique_sorted(preds[c], rank);
    unique_sorted(succs[c], rank);
    neighbours[c] = preds[c];
    neighbours[c].insert(neighbours[c].end(), succs[c].begin(), succs[c].end());
    unique_sorted(neighbours[c], rank);
    if (succs[c].empty()) sinks.push_back(c);
  }
  unique_sorted(sinks, rank);
}

}  // namespace hiremate::twremat
