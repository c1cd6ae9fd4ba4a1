// Translation of node ids between equivalent clusters (research/hiremate.md §2.6, ClusterTranslator).
//
// Equivalent clusters have equal canonical forms (canonical.h), so the i-th entry of one's `compute`
// and `data` lists corresponds to the i-th entry of the other's. A solver solves a representative and
// maps its schedule onto each copy with a Translator from the representative to the copy.
#pragma once
#include <unordered_map>

#include "hiremate/partition/cluster.h"

namespace hiremate::partition {

class Translator {
 public:
  // `from` and `to` must be in the same equivalence class (an internal error otherwise).
  Translator(const ClusterTree& tree, int from, int to);
  // The node of `to` that corresponds to `from`'s node c / d. Ids that are not in `from`'s local
  // lists are an internal error.
  NodeId compute(NodeId c) const;
  NodeId data(NodeId d) const;
  bool has_compute(NodeId c) const { return compute_.count(c) > 0; }
  bool has_data(NodeId d) const { return data_.count(d) > 0; }

 private:
  std::unordered_map<NodeId, NodeId> compute_, data_;
};

}  // namespace hiremate::partition
