// A Schedule is a flat list of ops (DESIGN §2): compute(node, keep_phantoms), delete(data node),
// and the loss marker between the forward and backward halves. The loss marker runs the graph's
// loss compute node when it has one; a generic DAG needs no marker.
#pragma once
#include <string>
#include <vector>

#include "hiremate/graph/graph.h"

namespace hiremate {

struct Op {
  enum class Kind { Compute, Delete, Loss };
  Kind kind = Kind::Compute;
  NodeId node = kNone;        // compute id (Compute), data id (Delete), loss compute id or kNone (Loss)
  bool keep_phantoms = true;  // Compute of a forward: also keep what its backward needs (autograd)

  static Op compute(NodeId c, bool keep_phantoms = true) { return {Kind::Compute, c, keep_phantoms}; }
  static Op del(NodeId d) { return {Kind::Delete, d, true}; }
  static Op loss_marker(NodeId loss) { return {Kind::Loss, loss, true}; }
  bool operator==(const Op& o) const {
    return kind == o.kind && node == o.node && keep_phantoms == o.keep_phantoms;
  }
  bool operator!=(const Op& o) const { return !(*this == o); }
};

struct Schedule {
  std::vector<Op> ops;
  bool operator==(const Schedule& o) const { return ops == o.ops; }
};

// "compute(fc1)", "compute(fc1, no phantoms)", "delete(fc1 data)", "loss".
std::string describe(const Graph& g, const Op& op);

// Turns a list of compute and loss ops into a schedule that frees every data node right after
// its last use before it is produced again (PyTorch's behaviour). Sources are never freed. A data
// node that nothing reads is freed right after it is produced. Deletes present in `ops` are
// dropped first. Used by the baselines and by every solver that decides only what to compute.
Schedule insert_frees(const Graph& g, const std::vector<Op>& ops);

}  // namespace hiremate
