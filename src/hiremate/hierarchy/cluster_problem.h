// One cluster as a standalone training Graph: HiRemate's sub-problem (research/hiremate.md §4.2, §6.3),
// which any bottom solver can plan like a whole graph. (Not partition::ClusterGraph, the partitioners'
// view of a cluster's forward units.)
//
// The extracted graph holds the cluster's forward and backward compute nodes with the data, grads and
// phantoms they touch, and a synthetic loss:
//  - interface input data (partition::Interface::input_data, the parent's sources among them) become
//    sources: the parent hands them in, so the sub-problem never computes or frees them;
//  - the synthetic loss reads the cluster's output data and writes its output grads, standing for
//    everything the parent runs between this cluster's forward and backward;
//  - input grads are written by the cluster's backwards as usual (only the producers inside count:
//    contributions from outside are the parent's business);
//  - a data node that a backward reads only as a fake dep (shape only) and that the cluster does not
//    produce is dropped with that fake dep: nothing inside needs its content.
// Rules the extracted graph relies on, beyond Graph::validate(): an output grad with producers inside
// the cluster (accumulation across the boundary) keeps them and gains the loss as one more producer,
// which runs first; grads of interface inputs (sources here) are ordinary grads with the cluster's
// backwards as producers. Ids map back to the parent graph through compute_to_parent/data_to_parent.
#pragma once
#include <unordered_map>
#include <vector>

#include "hiremate/graph/graph.h"
#include "hiremate/partition/cluster.h"

namespace hiremate::hierarchy {

struct ClusterProblem {
  Graph graph;                          // finalized training graph of the cluster
  std::vector<NodeId> compute_to_parent;  // per compute node; kNone for the synthetic loss
  std::vector<NodeId> data_to_parent;     // per data node
  partition::Interface interface;       // the cluster's interface, in this graph's data ids
  std::vector<char> is_interface;       // per data node: one of the four interface lists

  // This graph's id of a parent node, kNone when it is not part of the cluster graph.
  NodeId compute_of(NodeId parent) const;
  NodeId data_of(NodeId parent) const;
  // A copy of `graph` whose interface data weigh 0 bytes: simulating a schedule on it yields the
  // memory internal to the cluster (HiRemate's save_mem, §6.3), which is what the parent does not
  // already account for.
  Graph interior() const;

  // The inverse maps (parent id -> this graph's id), behind compute_of / data_of.
  std::unordered_map<NodeId, NodeId> compute_from_parent, data_from_parent;
};

// Throws BadInput when the cluster is not a set of units of `g` (e.g. a backward without its forward).
ClusterProblem extract(const Graph& g, const partition::Cluster& c);

}  // namespace hiremate::hierarchy
