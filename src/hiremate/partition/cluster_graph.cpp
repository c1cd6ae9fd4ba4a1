#include "hiremate/partition/cluster_graph.h"

#include <algorithm>

#include "hiremate/common/error.h"

namespace hiremate::partition {

int ClusterGraph::local(int unit) const {
  auto it = std::lower_bound(units_.begin(), units_.end(), unit);
  return it != units_.end() && *it == unit ? static_cast<int>(it - units_.begin()) : -1;
}

ClusterGraph::ClusterGraph(const ForwardGraph& fg, const std::vector<int>& units) : fg_(&fg), units_(units) {
  HM_ASSERT(std::is_sorted(units_.begin(), units_.end()), "cluster units must be sorted");
  const int n = size();
  for (int u : units_) {
    for (NodeId d : fg.reads(u)) data_.push_back(d);
    for (NodeId d : fg.writes(u)) data_.push_back(d);
  }
  std::sort(data_.begin(), data_.end());
  data_.erase(std::unique(data_.begin(), data_.end()), data_.end());
  auto local_data = [&](NodeId d) {
    return static_cast<int>(std::lower_bound(data_.begin(), data_.end(), d) - data_.begin());
  };

  producer_.assign(data_.size(), -1);
  read_outside_.assign(data_.size(), 0);
  std::vector<int> row;
  for (size_t ld = 0; ld < data_.size(); ++ld) {
    NodeId d = data_[ld];
    if (fg.producer(d) >= 0) producer_[ld] = local(fg.producer(d));
    row.clear();
    bool outside = fg.graph_output(d);
    for (int r : fg.readers(d)) {
      int l = local(r);
      if (l < 0) outside = true;
      else row.push_back(l);
    }
    read_outside_[ld] = outside;
    readers_.push_row(row);  // sorted: readers are sorted units, local() is monotone
  }

  reads_outside_.assign(n, 0);
  writes_outside_.assign(n, 0);
  std::vector<std::vector<int>> succ_lists(n);
  for (int i = 0; i < n; ++i) {
    int u = units_[i];
    row.clear();
    for (int p : fg.preds(u)) {
      int l = local(p);
      if (l >= 0) {
        row.push_back(l);
        succ_lists[l].push_back(i);
      }
    }
    preds_.push_row(row);
    row.clear();
    for (NodeId d : fg.reads(u)) {
      int ld = local_data(d);
      row.push_back(ld);
      if (producer_[ld] < 0) reads_outside_[i] = 1;
    }
    reads_.push_row(row);
    row.clear();
    for (NodeId d : fg.writes(u)) {
      int ld = local_data(d);
      row.push_back(ld);
      if (read_outside_[ld]) writes_outside_[i] = 1;
    }
    writes_.push_row(row);
  }
  for (int i = 0; i < n; ++i) succs_.push_row(succ_lists[i]);
}

}  // namespace hiremate::partition
