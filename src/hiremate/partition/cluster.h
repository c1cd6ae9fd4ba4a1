// The cluster tree that H-Partition produces (research/hiremate.md §2.6, §2.7, §3.1, §3.2).
//
// A *cluster* is a set of units (forward nodes, each with its backward; see forward_graph.h). The root
// cluster holds every unit. A *partitioning* splits a cluster into *parts*, listed in a topological
// order of the quotient graph (parts as nodes, which is acyclic because every part is convex). A part
// is a single unit (a leaf) or a *sub-cluster* (two units or more). A cluster may carry several
// partitionings (one per partitioner); clusters with the same node set are one cluster. Every cluster
// of two units or more that is a representative carries at least one partitioning; the "flat" one
// (every unit its own part) is what a cluster too small to split gets.
//
// Clusters that are structurally identical (canonical.h) form an *equivalence class*; only its
// *representative* carries partitionings, and solvers solve only representatives. A solver visits
// ClusterTree::bottom_up() in order, so a representative comes after every representative its
// partitionings need; a part's cluster c is solved by representative_of(c), whose results a
// Translator (translate.h) maps onto c's node ids.
//
// A cluster's local lists (`compute`, `data`) are its canonical numbering: equivalent clusters list
// corresponding nodes at the same positions. That is what translation uses.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hiremate/graph/graph.h"

namespace hiremate::partition {

// What crosses a cluster's boundary (§2.7). Data node ids, each list sorted by id.
struct Interface {
  std::vector<NodeId> input_data;   // non-grad data its computes read, written outside it (sources too)
  std::vector<NodeId> output_data;  // data its forwards write that something outside it reads, or that
                                    // nothing reads (graph outputs); the loss is outside every cluster
  std::vector<NodeId> input_grad;   // grads its backwards write that something outside it reads, or
                                    // that nothing reads (the model inputs' grads)
  std::vector<NodeId> output_grad;  // grads its backwards read that something outside it writes
  // Bytes of input_data + output_data: what the forward interface holds (the value function's memory).
  int64_t data_bytes(const Graph& g) const;
};

// One part of a partitioning: a single unit (cluster == -1) or a sub-cluster.
struct Part {
  NodeId node = kNone;  // the forward compute id, for a single-unit part
  int cluster = -1;     // the sub-cluster id, for a part of two units or more
  bool leaf() const { return cluster < 0; }
};

struct Partitioning {
  std::string partitioner;  // the partitioner that made it ("bottom_to_top", "sequence", "flat", ...)
  std::vector<Part> parts;  // a topological order of the quotient graph
  // HiRemate's size estimate of the sub-problem (§3.3): 1 per leaf part, 2 per sub-cluster part.
  int estimate = 0;
  // The bound on `estimate` that the partitioner promised, unless `chain` (Rotor takes chains).
  int limit = 0;
  bool chain = false;  // the quotient graph is a path (each part feeds only the next)
};

struct Cluster {
  int id = -1;
  std::vector<NodeId> nodes;    // its units' forward compute ids, in the graph's topological order
  std::vector<NodeId> compute;  // canonical: the forwards in order, then the backwards in reverse
  std::vector<NodeId> data;     // canonical: every data node its computes touch, by first touch
  Interface interface;
  uint64_t hash = 0;            // canonical structural hash (canonical.h)
  int cls = -1;                 // its equivalence class
  int level = -1;               // depth in the tree (root 0), the smallest over the places it appears
  std::vector<Partitioning> partitionings;  // only representatives carry them
  size_t size() const { return nodes.size(); }
};

struct EquivalenceClass {
  int representative = -1;   // the cluster that carries the partitionings and gets solved
  std::vector<int> members;  // clusters, representative first, then in creation order
};

class ClusterTree {
 public:
  std::vector<Cluster> clusters;  // clusters[root] holds every unit
  std::vector<EquivalenceClass> classes;
  int root = -1;
  // Partitioners the tree was built with, and the wall time it took (seconds).
  std::vector<std::string> partitioners;
  double seconds = 0;

  const Cluster& cluster(int c) const { return clusters.at(c); }
  int representative_of(int c) const { return classes.at(clusters.at(c).cls).representative; }
  bool is_representative(int c) const { return representative_of(c) == c; }

  // Every representative reachable from the root, each once, each after the representatives of all
  // the sub-clusters its partitionings use (post-order): the order in which to solve them.
  std::vector<int> bottom_up() const;
  // Clusters reachable from the root through representatives' partitionings (copies included), in
  // breadth-first order; `level` follows this walk.
  std::vector<int> reachable() const;
};

}  // namespace hiremate::partition
