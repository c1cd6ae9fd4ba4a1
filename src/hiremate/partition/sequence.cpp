#include "hiremate/partition/sequence.h"

#include <algorithm>
#include <queue>

#include "hiremate/partition/cluster_graph.h"

namespace hiremate::partition {

static BottomToTopConfig as_any_other(BottomToTopConfig cfg) {
  cfg.main_graph_as_any_other = true;
  return cfg;
}

Sequence::Sequence(BottomToTopConfig sub) : sub_(as_any_other(sub)) {}

std::vector<int> cutting_points(const ClusterGraph& cg) {
  const int n = cg.size();
  std::vector<int> cuts;
  std::vector<char> seen(n, 0);
  std::priority_queue<int> frontier;  // local numbers are topological: latest first
  for (int i = 0; i < n; ++i)
    if (cg.writes_outside(i) || cg.succs(i).empty()) {  // fed to the virtual root above the outputs
      seen[i] = 1;
      frontier.push(i);
    }
  bool source_seen = false;  // the virtual source below the inputs, never taken
  while (!frontier.empty()) {
    int i = frontier.top();
    frontier.pop();
    if (frontier.empty() && !source_seen && cg.requires_grad(i)) cuts.push_back(i);
    if (cg.preds(i).empty() || cg.reads_outside(i)) source_seen = true;
    for (int p : cg.preds(i))
      if (!seen[p]) {
        seen[p] = 1;
        frontier.push(p);
      }
  }
  std::reverse(cuts.begin(), cuts.end());
  return cuts;
}

std::optional<Draft> Sequence::split(const ForwardGraph& fg, const std::vector<int>& units, bool) const {
  ClusterGraph cg(fg, units);
  std::vector<int> cuts = cutting_points(cg);
  Draft d;
  d.units = units;
  d.limit = 0;  // no bound: the blocks form a chain
  int start = 0;
  for (int c : cuts) {
    d.parts.push_back({{units.begin() + start, units.begin() + c + 1}, {}, 0});
    start = c + 1;
  }
  if (start < cg.size()) d.parts.push_back({{units.begin() + start, units.end()}, {}, 0});
  if (d.parts.size() <= 1) return std::nullopt;
  return d;
}

}  // namespace hiremate::partition
