// H-Partition's driver (research/hiremate.md §3.2): builds the cluster tree of a graph.
//
// The root cluster holds every unit (forward node; see forward_graph.h for training graphs versus
// generic DAGs). Each partitioner is applied to the root in turn, so the root (and any cluster that
// two of them produce) may carry several partitionings, which the solvers pool. Parts of two units
// or more become sub-clusters, deduplicated by node set; each new cluster is canonicalized
// (canonical.h) and joins the equivalence class of an identical one, or founds its own. Only a class's
// representative (its first cluster) is split further: copies are solved through it. Clusters below
// `min_size_to_trigger_partitioning` units get the flat partitioning.
//
// Every recorded partitioning is checked: its parts cover the cluster exactly once and its quotient
// graph is acyclic (an internal error otherwise). Same graph and options, same tree.
#pragma once
#include <string>
#include <vector>

#include "hiremate/graph/graph.h"
#include "hiremate/partition/cluster.h"
#include "hiremate/partition/partitioner.h"

namespace hiremate::partition {

struct PartitionOptions {
  // Partitioner specs for make_partitioner, applied to the root in this order.
  std::vector<std::string> partitioners{"bottom_to_top"};
  int min_size_to_trigger_partitioning = 4;
};

// Throws BadInput for an unknown partitioner or parameter.
ClusterTree partition(const Graph& g, const PartitionOptions& opt = {});
ClusterTree partition(const Graph& g, const std::vector<const Partitioner*>& partitioners,
                      int min_size_to_trigger_partitioning = 4);

}  // namespace hiremate::partition
