#include "hiremate/hierarchy/save_front.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "hiremate/common/error.h"

namespace hiremate::hierarchy {

Schedule save_set_schedule(const Graph& g, const std::vector<char>& keep) {
  if (!g.is_training() || g.loss == kNone) throw BadInput("save_set_schedule needs a training graph with a loss");
  if (keep.size() != g.compute.size())
    throw BadInput(fmt::format("save_set_schedule: keep has {} entries for {} compute nodes", keep.size(),
                               g.compute.size()));
  std::vector<Op> ops;
  std::vector<char> present(g.data.size(), 0), backward_done(g.compute.size(), 0), queued(g.compute.size(), 0);
  for (size_t d = 0; d < g.data.size(); ++d) present[d] = g.data[d].source;
  auto mark_outputs = [&](NodeId c, bool phantoms) {
    for (NodeId d : g.compute[c].outputs)
      if (g.data[d].kind != DataKind::Phantoms || phantoms) present[d] = 1;
  };
  for (NodeId c : g.order)
    if (g.compute[c].kind == ComputeKind::Forward) {
      const bool k = keep[static_cast<size_t>(c)] != 0;
      ops.push_back(Op::compute(c, k));
      if (k) mark_outputs(c, true);  // held to the backward by its reads there
    }
  ops.push_back(Op::loss_marker(g.loss));
  mark_outputs(g.loss, true);
  // The forward node that makes d again, where d is missing (a forward's data or phantoms).
  auto missing_producer = [&](NodeId d) -> NodeId {
    if (present[d] || g.data[d].producers.empty()) return kNone;
    const NodeId p = g.data[d].producers.front();
    return g.compute[p].kind == ComputeKind::Forward ? p : kNone;
  };
  auto wants_phantoms = [&](NodeId f) {
    const NodeId b = g.compute[f].pair;
    return g.phantoms_of(f) != kNone && b != kNone && !backward_done[b];
  };
  std::vector<NodeId> stack;  // explicit: chains of recomputations can be as long as the graph
  auto recompute = [&](NodeId first) {
    stack.assign(1, first);
    queued[first] = 1;
    while (!stack.empty()) {
      const NodeId f = stack.back();
      NodeId next = kNone;
      for (NodeId d : g.compute[f].deps) {
        const NodeId p = missing_producer(d);
        if (p != kNone && !queued[p]) {
          next = p;
          break;
        }
      }
      if (next != kNone) {
        queued[next] = 1;
        stack.push_back(next);
        continue;
      }
      const bool phantoms = wants_phantoms(f);
      ops.push_back(Op::compute(f, phantoms));
      mark_outputs(f, phantoms);
      queued[f] = 0;
      stack.pop_back();
    }
  };
  for (NodeId c : g.order) {
    if (g.compute[c].kind != ComputeKind::Backward) continue;
    for (NodeId d : g.compute[c].deps) {
      const NodeId p = missing_producer(d);
      if (p != kNone) recompute(p);
    }
    ops.push_back(Op::compute(c));
    mark_outputs(c, true);
    backward_done[c] = 1;
  }
  return insert_frees(g, ops);
}

std::vector<Schedule> save_front(const Graph& g, int points) {
  if (!g.is_training() || g.loss == kNone) throw BadInput("save_front needs a training graph with a loss");
  struct Candidate {
    NodeId c;
    int64_t bytes;
    double per_byte;
  };
  std::vector<Candidate> cands;
  for (NodeId c : g.order) {
    const auto& n = g.compute[c];
    if (n.kind != ComputeKind::Forward) continue;
    int64_t bytes = 0;
    for (NodeId d : n.outputs) bytes += g.data[d].bytes;
    if (bytes > 0) cands.push_back({c, bytes, n.time / static_cast<double>(bytes)});
  }
  std::stable_sort(cands.begin(), cands.end(),
                   [](const Candidate& a, const Candidate& b) { return a.per_byte < b.per_byte; });
  int64_t total = 0;
  for (const auto& k : cands) total += k.bytes;
  std::vector<Schedule> out;
  if (points <= 0 || cands.empty()) return out;
  std::vector<char> keep(g.compute.size(), 1);
  int64_t dropped = 0;
  size_t next = 0;
  for (int k = 1; k <= points; ++k) {
    const int64_t target = total * k / points;
    const size_t before = next;
    while (next < cands.size() && (dropped < target || next == before)) {
      keep[static_cast<size_t>(cands[next].c)] = 0;
      dropped += cands[next++].bytes;
    }
    if (next == before) break;
    out.push_back(save_set_schedule(g, keep));
  }
  return out;
}

}  // namespace hiremate::hierarchy
