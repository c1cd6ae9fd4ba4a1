#include "hiremate/partition/cluster.h"

#include <functional>

namespace hiremate::partition {

int64_t Interface::data_bytes(const Graph& g) const {
  int64_t total = 0;
  for (NodeId d : input_data) total += g.data[d].bytes;
  for (NodeId d : output_data) total += g.data[d].bytes;
  return total;
}

std::vector<int> ClusterTree::bottom_up() const {
  std::vector<int> out;
  if (root < 0) return out;
  std::vector<char> seen(clusters.size(), 0);
  // Sub-clusters are strictly smaller than their parent, so the recursion ends; its depth is the
  // tree's depth.
  std::function<void(int)> visit = [&](int c) {
    int r = representative_of(c);
    if (seen[r]) return;
    seen[r] = 1;
    for (const Partitioning& p : clusters[r].partitionings)
      for (const Part& part : p.parts)
        if (!part.leaf()) visit(part.cluster);
    out.push_back(r);
  };
  visit(root);
  return out;
}

std::vector<int> ClusterTree::reachable() const {
  std::vector<int> out;
  if (root < 0) return out;
  std::vector<char> seen(clusters.size(), 0);
  out.push_back(root);
  seen[root] = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    const Cluster& c = clusters[representative_of(out[i])];
    for (const Partitioning& p : c.partitionings)
      for (const Part& part : p.parts)
        if (!part.leaf() && !seen[part.cluster]) {
          seen[part.cluster] = 1;
          out.push_back(part.cluster);
        }
  }
  return out;
}

}  // namespace hiremate::partition
