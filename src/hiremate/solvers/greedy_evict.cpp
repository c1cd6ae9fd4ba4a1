#include "hiremate/solvers/greedy_evict.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include "hiremate/common/error.h"

namespace hiremate {

namespace {

struct Greedy {
  const Graph& g;
  int64_t budget;
  std::vector<int> pos;            // compute id -> position in the order
  std::vector<bool> resident;      // data
  std::vector<int> pinned;         // data: > 0 while a pending computation needs it
  std::vector<std::vector<int>> user_positions;  // data -> sorted positions of its readers
  int64_t memory = 0;
  int now = 0;                     // the stage being run
  // Recomputing on demand recurses through chains of evicted values: a run can take minutes
  // (rl3-n500 at 80 %: 48 s inside checkmate's model building), so it gives up here.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::vector<Op> ops;

  Greedy(const Graph& graph, int64_t b) : g(graph), budget(b) {
    pos.assign(g.compute.size(), 0);
    for (size_t p = 0; p < g.order.size(); ++p) pos[g.order[p]] = static_cast<int>(p);
    resident.assign(g.data.size(), false);
    pinned.assign(g.data.size(), 0);
    user_positions.assign(g.data.size(), {});
    for (size_t d = 0; d < g.data.size(); ++d) {
      for (NodeId u : g.data[d].users) user_positions[d].push_back(pos[u]);
      std::sort(user_positions[d].begin(), user_positions[d].end());
      if (g.data[d].source) {
        resident[d] = true;
        memory += g.data[d].bytes;
      }
    }
  }

  // Steps until the next first computation that reads d (the order's future), or "never".
  int next_use(NodeId d) const {
    auto it = std::upper_bound(user_positions[d].begin(), user_positions[d].end(), now - 1);
    return it == user_positions[d].end() ? std::numeric_limits<int>::max() : *it - now;
  }

  // Frees values that no future first computation reads (a later recomputation would recompute them).
  void drop_dead() {
    for (size_t d = 0; d < g.data.size(); ++d)
      if (resident[d] && !g.data[d].source && pinned[d] == 0 && next_use(static_cast<NodeId>(d)) ==
                                                                       std::numeric_limits<int>::max()) {
        resident[d] = false;
        memory -= g.data[d].bytes;
      }
  }

  bool evict_one() {
    NodeId best = kNone;
    double best_score = std::numeric_limits<double>::infinity();
    for (size_t d = 0; d < g.data.size(); ++d) {
      if (!resident[d] || g.data[d].source || pinned[d] > 0 || g.data[d].bytes == 0) continue;
      // DTR's "evicted neighbourhood", one level deep: recomputing d also recomputes the inputs of
      // its producer that are gone, and deep recomputation chains are what make a run get stuck.
      const auto& producer = g.compute[g.data[d].producers[0]];
      double cost = producer.time + 1e-9;
      for (NodeId e : producer.deps)
        if (!resident[e]) cost += 2 * g.compute[g.data[e].producers[0]].time + 1;
      double score = cost / (static_cast<double>(g.data[d].bytes) * (1.0 + next_use(static_cast<NodeId>(d))));
      if (score < best_score) {
        best_score = score;
        best = static_cast<NodeId>(d);
      }
    }
    if (best == kNone) return false;
    resident[best] = false;
    memory -= g.data[best].bytes;
    return true;
  }

  // Makes every dep of c resident (recomputing as needed), then computes c. Deps stay pinned
  // until c has run. False when it cannot fit.
  bool compute(NodeId c, int depth) {
    if (depth > static_cast<int>(g.compute.size()) || std::chrono::steady_clock::now() > deadline) return false;
    const auto& node = g.compute[c];
    std::vector<NodeId> held;
    bool ok = true;
    for (NodeId d : node.deps) {
      if (!resident[d] && !compute(g.data[d].producers[0], depth + 1)) {
        ok = false;
        break;
      }
      ++pinned[d];
      held.push_back(d);
    }
    int64_t fresh = node.overhead;
    for (NodeId d : node.outputs) fresh += resident[d] ? 0 : g.data[d].bytes;
    while (ok && memory + fresh > budget)
      if (!evict_one()) ok = false;
    if (ok) {
      for (NodeId d : node.outputs)
        if (!resident[d]) {
          resident[d] = true;
          memory += g.data[d].bytes;
        }
      ops.push_back(Op::compute(c));
    }
    for (NodeId d : held) --pinned[d];
    return ok;
  }
};

}  // namespace

static std::optional<std::vector<Op>> run_greedy(const Graph& g, int64_t budget,
                                                 std::chrono::steady_clock::time_point deadline) {
  Greedy greedy(g, budget);
  greedy.deadline = deadline;
  for (size_t p = 0; p < g.order.size(); ++p) {
    greedy.now = static_cast<int>(p);
    if (!greedy.compute(g.order[p], 0)) return std::nullopt;
    greedy.now = static_cast<int>(p) + 1;
    greedy.drop_dead();
  }
  return greedy.ops;
}

std::optional<std::vector<Op>> greedy_evict_sequence(const Graph& g, int64_t budget, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(
                            std::min(seconds, 1e9)));
  HM_ASSERT(!g.is_training(), "greedy_evict_sequence works on generic DAGs");
  // Recomputing on demand pins the inputs of every pending computation, so a run can get stuck
  // where a run with a slightly smaller working budget evicts earlier and gets through: try a few.
  for (double factor : {1.0, 0.99, 0.97, 0.95, 0.92, 0.9, 0.85, 0.8}) {
    if (std::chrono::steady_clock::now() > deadline) break;
    auto ops = run_greedy(g, static_cast<int64_t>(static_cast<double>(budget) * factor), deadline);
    if (ops) return ops;
  }
  return std::nullopt;
}

}  // namespace hiremate
