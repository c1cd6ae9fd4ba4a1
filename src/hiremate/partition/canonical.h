// Canonical numbering and structural hash of a cluster (research/hiremate.md §2.6, §10.3).
//
// Local numbering: the cluster's forwards in topological order, then their backwards in reverse; the
// data nodes in the order these computes first touch them (deps, fake deps, outputs). The canonical
// form (`signature`) lists, in that numbering, each compute's kind, time (bit-exact), overhead,
// partner and the local ids of its deps, fake deps and outputs; then each data node's kind, bytes,
// source flag and interface role (input/output data, input/output grad). Names are ignored.
// Two clusters are equivalent iff their signatures are equal; then the i-th local node of one
// corresponds to the i-th of the other, which is how node ids are translated between copies.
// The hash is only a fast key: classes are decided on the full signature, never on the hash alone.
#pragma once
#include <cstdint>
#include <vector>

#include "hiremate/partition/cluster.h"
#include "hiremate/partition/forward_graph.h"

namespace hiremate::partition {

struct Canonical {
  std::vector<NodeId> compute;
  std::vector<NodeId> data;
  Interface interface;
  std::vector<int64_t> signature;
  uint64_t hash = 0;
};

// Reusable scratch space over the graph's node ids, so that canonicalizing a cluster costs its own
// size, not the graph's.
class Canonicalizer {
 public:
  explicit Canonicalizer(const ForwardGraph& fg);
  // `units`: sorted unit numbers (forward_graph.h) of the cluster.
  Canonical operator()(const std::vector<int>& units);

 private:
  const ForwardGraph* fg_;
  std::vector<int> compute_local_, data_local_;
};

}  // namespace hiremate::partition
