// The induced view of one cluster that the partitioners work on: its units renumbered 0..n-1 in
// topological order (local numbers), the forward edges among them, and, per unit, the interface data
// it reads and writes (sources excluded, see forward_graph.h), renumbered as local data.
#pragma once
#include <cstdint>
#include <vector>

#include "hiremate/partition/forward_graph.h"

namespace hiremate::partition {

class ClusterGraph {
 public:
  // `units`: sorted unit numbers (forward_graph.h) of the cluster. Costs O(size x degree x log size).
  ClusterGraph(const ForwardGraph& fg, const std::vector<int>& units);

  const ForwardGraph& forward_graph() const { return *fg_; }
  int size() const { return static_cast<int>(units_.size()); }
  const std::vector<int>& units() const { return units_; }
  int unit(int i) const { return units_[i]; }
  // Local number of a global unit, -1 when it is not in the cluster.
  int local(int unit) const;

  IntRange preds(int i) const { return preds_.row(i); }  // local, sorted, < i
  IntRange succs(int i) const { return succs_.row(i); }  // local, sorted, > i
  bool requires_grad(int i) const { return fg_->requires_grad(units_[i]); }
  uint64_t unit_hash(int i) const { return fg_->unit_hash(units_[i]); }
  // The unit reads data written outside the cluster / writes data read outside it (or never read).
  bool reads_outside(int i) const { return reads_outside_[i]; }
  bool writes_outside(int i) const { return writes_outside_[i]; }

  // Local data: the interface-relevant data nodes its units read or write.
  int data_count() const { return static_cast<int>(data_.size()); }
  NodeId data(int ld) const { return data_[ld]; }
  int64_t bytes(int ld) const { return fg_->bytes(data_[ld]); }
  IntRange reads(int i) const { return reads_.row(i); }    // local data read by unit i, not written by it
  IntRange writes(int i) const { return writes_.row(i); }  // local data written by unit i
  int producer(int ld) const { return producer_[ld]; }      // local unit, -1 outside the cluster
  IntRange readers(int ld) const { return readers_.row(ld); }  // local units
  bool read_outside(int ld) const { return read_outside_[ld]; }

 private:
  const ForwardGraph* fg_;
  std::vector<int> units_;
  Csr preds_, succs_, reads_, writes_, readers_;
  std::vector<char> reads_outside_, writes_outside_, read_outside_;
  std::vector<NodeId> data_;
  std::vector<int> producer_;
};

}  // namespace hiremate::partition
