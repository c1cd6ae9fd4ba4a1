#include "hiremate/hierarchy/correction.h"

#include <algorithm>

#include "hiremate/common/error.h"

namespace hiremate::hierarchy {

namespace {

// Whether data node `a` is resident during each op of `s`: the simulator's timeline on a copy of the
// graph where only `a` weighs anything and no op has overhead.
std::vector<char> presence(const Graph& g, const Schedule& s, NodeId a) {
  Graph probe = g;
  for (auto& d : probe.data) d.bytes = 0;
  for (auto& c : probe.compute) c.overhead = 0;
  probe.data[a].bytes = 1;
  SimResult r = simulate(probe, s);
  HM_ASSERT(r.valid && r.timeline.size() == s.ops.size(), "the probe accepts what the graph does");
  std::vector<char> p(s.ops.size());
  for (size_t i = 0; i < p.size(); ++i) p[i] = r.timeline[i].during > 0;
  return p;
}

std::vector<NodeId> merged(std::vector<NodeId> a, const std::vector<NodeId>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  return a;
}

void half(const ClusterProblem& cg, const Schedule& s, const SimResult& inner, size_t first, size_t end,
          const std::vector<NodeId>& ins, const std::vector<NodeId>& outs, std::vector<Correction>& out) {
  struct Tracked {
    NodeId id;
    bool output;
    std::vector<char> present;
  };
  std::vector<Tracked> tracked;
  for (NodeId a : merged(ins, outs)) {
    bool input = std::binary_search(ins.begin(), ins.end(), a);
    tracked.push_back({a, !input, presence(cg.graph, s, a)});  // an input first: it is there at the start
  }
  for (size_t i = first; i < end; ++i) {
    Correction c;
    c.save = inner.timeline[i].after;
    c.overhead = inner.timeline[i].during - inner.timeline[i].after;
    for (const Tracked& t : tracked) {
      if (t.present[i]) continue;
      bool seen = std::any_of(t.present.begin() + static_cast<long>(first),
                              t.present.begin() + static_cast<long>(i), [](char p) { return p != 0; });
      (t.output && !seen ? c.not_yet_created : c.freed).push_back(cg.data_to_parent[t.id]);
    }
    std::sort(c.not_yet_created.begin(), c.not_yet_created.end());
    std::sort(c.freed.begin(), c.freed.end());
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(std::move(c));
  }
}

}  // namespace

Corrections make_corrections(const ClusterProblem& cg, const Schedule& s, size_t loss, const SimResult& inner,
                             const std::vector<NodeId>& dep_interfaces_data) {
  HM_ASSERT(loss < s.ops.size() && inner.timeline.size() == s.ops.size(), "a valid schedule and its simulation");
  const partition::Interface& in = cg.interface;
  Corrections r;
  half(cg, s, inner, 0, loss, in.input_data, in.output_data, r.fwd);
  half(cg, s, inner, loss + 1, s.ops.size(), merged(in.output_grad, dep_interfaces_data), in.input_grad, r.bwd);
  return r;
}

}  // namespace hiremate::hierarchy
