// The forward view of a Graph that H-Partition clusters (research/hiremate.md §3.1).
//
// HiRemate clusters S-nodes; here an S-node is a *unit*: one forward compute node, with its backward
// attached by pairing. For a training graph the units are the forward nodes; a backward goes wherever
// its forward goes, and the loss stays outside every cluster (it is the parent's business). For a
// generic DAG (Checkmate's model, no backward) every compute node is a forward, hence a unit.
//
// Units are numbered in the graph's topological `order`, so a unit's predecessors have smaller numbers
// and a sorted list of units is in topological order. The forward DAG has an edge u -> v when v's
// forward reads a data node that u's forward writes.
//
// Sources (model inputs) are resident from the start and never freed (DESIGN §2), so crossing a
// cluster boundary costs nothing for them: the partitioners ignore them (interface memory, chains,
// cutting points). They still appear in a cluster's Interface, which the solvers need.
#pragma once
#include <cstdint>
#include <vector>

#include "hiremate/graph/graph.h"

namespace hiremate::partition {

// A contiguous range of ints (a CSR row).
struct IntRange {
  const int* first = nullptr;
  const int* last = nullptr;
  const int* begin() const { return first; }
  const int* end() const { return last; }
  size_t size() const { return static_cast<size_t>(last - first); }
  bool empty() const { return first == last; }
  int operator[](size_t i) const { return first[i]; }
};

// Rows of ints stored back to back.
struct Csr {
  std::vector<int> begin{0};
  std::vector<int> items;
  void push_row(const std::vector<int>& row);
  IntRange row(int r) const { return {items.data() + begin[r], items.data() + begin[r + 1]}; }
  int rows() const { return static_cast<int>(begin.size()) - 1; }
};

class ForwardGraph {
 public:
  // Keeps a reference to `g`, which must outlive this view.
  explicit ForwardGraph(const Graph& g);

  const Graph& graph() const { return *g_; }
  int size() const { return static_cast<int>(forward_.size()); }
  bool training() const { return training_; }

  NodeId forward(int u) const { return forward_[u]; }
  NodeId backward(int u) const { return g_->compute[forward_[u]].pair; }  // kNone without backward
  // The unit a compute node belongs to: a forward's own, a backward's forward's; -1 for the loss.
  int unit_of(NodeId c) const { return unit_of_[c]; }

  // The forward DAG, distinct and sorted: preds(u) < u < succs(u).
  IntRange preds(int u) const { return preds_.row(u); }
  IntRange succs(int u) const { return succs_.row(u); }

  // Training graphs: the unit has a backward. Generic DAGs: always true (every node is scheduled).
  bool requires_grad(int u) const { return requires_grad_[u]; }

  // Data nodes that matter for interfaces between units: non-grad, non-source data.
  // reads(u): read by u's forward or backward and not written by u (distinct, sorted).
  // writes(u): the `data` outputs of u's forward (phantoms are private to the unit).
  IntRange reads(int u) const { return reads_.row(u); }
  IntRange writes(int u) const { return writes_.row(u); }
  // The unit whose forward writes data node d; -1 for sources and grads.
  int producer(NodeId d) const { return producer_[d]; }
  // Units (distinct, sorted) whose forward or backward reads data node d.
  IntRange readers(NodeId d) const { return readers_.row(d); }
  // Data node d is read by the loss, or by nothing at all (a graph output): it leaves every cluster.
  bool graph_output(NodeId d) const { return graph_output_[d]; }
  int64_t bytes(NodeId d) const { return g_->data[d].bytes; }

  // A hash of the unit alone (times, overheads, output sizes and kinds of its forward and backward,
  // how many deps each has), equal for units that a repeated layer makes identical. Names are
  // ignored: `layer3.fc1` and `layer4.fc1` hash alike.
  uint64_t unit_hash(int u) const { return unit_hash_[u]; }

 private:
  const Graph* g_;
  bool training_ = false;
  std::vector<NodeId> forward_;
  std::vector<int> unit_of_;
  Csr preds_, succs_, reads_, writes_, readers_;
  std::vector<char> requires_grad_;
  std::vector<int> producer_;
  std::vector<char> graph_output_;
  std::vector<uint64_t> unit_hash_;
};

// Hash mixing shared by the structural hashes (splitmix64 finaliser; stable across runs and builds).
uint64_t mix_hash(uint64_t seed, uint64_t value);

}  // namespace hiremate::partition
