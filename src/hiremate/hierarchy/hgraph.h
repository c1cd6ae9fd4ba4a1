// The H-graph of one partitioning (research/hiremate.md §5.1): the level the H-ILP sees.
//
// A cluster (or the whole graph, at the top) is its *host* graph. Its partitioning's parts become
// HCNs: each part's forward, the loss, then each part's backward (in reverse part order), which is a
// topological order of the host because the parts are listed in a topological order of the quotient
// graph. A part is either a single unit (a forward compute node of the host and its backward) or a
// sub-cluster, whose inside is hidden behind its options (option.h). HANs are the host's data nodes
// that HCNs read or write: the units' own data and the sub-clusters' interfaces. Internal data of a
// sub-cluster never appear here; its options account for them.
//
// Every way of running an HCN is a *choice*: a forward may keep what its backward needs (a unit's
// phantoms, or a sub-cluster option's saved memory) or run fast (ff, nothing kept); a backward
// consumes what exactly one keeping choice of its forward left (`tie`). Choices carry their op lists
// in host ids (compute and loss ops only: the extraction inserts the frees, §6.2).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hiremate/graph/graph.h"
#include "hiremate/partition/cluster.h"
#include "hiremate/schedule/schedule.h"
#include "hiremate/hierarchy/option.h"

namespace hiremate::hierarchy {

struct HChoice {
  std::string name;        // "keep", "ff", or the option's solver and index
  double time = 0;
  int64_t overhead = 0;    // bytes held while it runs beyond what it leaves (outputs, kept bytes)
  int64_t kept = 0;        // forward: internal bytes left for the backward (phantoms / option mem)
  bool keeps = false;      // forward: its backward can run from what it leaves
  int tie = -1;            // backward: the index of the forward's keeping choice it consumes (-1: none)
  std::vector<NodeId> deps;  // backward of a sub-cluster: the interface data this choice reads
  std::vector<Op> ops;     // host ids
  // A sub-cluster option's per-op records (§5.5, correction.h), host ids: the level above subtracts
  // the interface bytes that are certainly absent at each op (outputs not created yet, grads freed
  // inside), which turns the option's worst-case overhead into a per-op one (hilp_model.cpp).
  std::vector<Correction> records;
};

struct HNode {
  std::string name;
  ComputeKind kind = ComputeKind::Forward;
  // HANs (host data ids, sources excluded): data-kind inputs and outputs, grad inputs and outputs.
  // A backward's data_in is the union over its choices (every choice's deps are in it).
  std::vector<NodeId> data_in, data_out, grad_in, grad_out;
  std::vector<HChoice> choices;
  int pair = -1;           // forward <-> backward HCN index, -1 when none
  bool backward_needs_choice_deps = false;  // a sub-cluster backward: data deps depend on the choice
};

struct HGraph {
  const Graph* host = nullptr;
  std::vector<HNode> nodes;  // stage order: forwards, the loss, backwards
  int loss = -1;
};

// One part as the H-graph builder takes it, in host ids.
struct HPart {
  NodeId unit = kNone;             // a single unit: its forward compute id in the host
  std::string name;                // a sub-cluster's name, for reports
  std::vector<Option> options;     // a sub-cluster's options (host ids)
  FastForward ff;                  // a sub-cluster's fast forward (host ids)
  partition::Interface interface;  // a sub-cluster's interface (host ids, sorted lists)
  bool leaf() const { return unit != kNone; }
};

// Builds the H-graph; parts in a topological order of the quotient graph, covering every forward of
// the host. Throws BadInput when a part is malformed (no options, ids outside the host).
HGraph build_hgraph(const Graph& host, const std::vector<HPart>& parts);

// Maps an option's / a fast forward's / an interface's ids (compute via fc, data via fd).
using IdMap = std::function<NodeId(NodeId)>;
Option remap(const Option& o, const IdMap& fc, const IdMap& fd);
FastForward remap(const FastForward& f, const IdMap& fc);  // keeps the compute ops only
partition::Interface remap(const partition::Interface& in, const IdMap& fd);

}  // namespace hiremate::hierarchy
