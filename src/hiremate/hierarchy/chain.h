// A training graph seen as Rotor's chain of blocks (research/hiremate.md §4.4; research/peers.md §3.2).
//
// Blocks are the intervals of the topological order that end at the forward graph's cutting points
// (partition/sequence.h): every path from the loss back to the inputs crosses each block boundary.
// The graph is a chain when, besides, block i reads no data but block i-1's outputs (and sources),
// the loss reads only the last block's outputs, and the grads crossing a boundary are the grads of
// those outputs. Grads of sources (model inputs) that several blocks write accumulate from the first
// backward that writes them to the end: they count as always resident (`constant`).
//
// Per block, every number is measured by the simulator on the block's cluster graph (hierarchy::extract),
// in bytes. Peaks include the block's interface data while they are resident (its input throughout,
// its output once written, the grads it reads and writes), never the parent's sources (`constant`);
// what the DP adds around them is stated in rotor_dp.h.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hiremate/graph/graph.h"
#include "hiremate/partition/cluster.h"
#include "hiremate/schedule/schedule.h"
#include "hiremate/hierarchy/option.h"

namespace hiremate::hierarchy {

// One way to run a block's forward (keeping `mem` for the backward) and its backward.
struct BlockOption {
  std::vector<Op> fwd_ops, bwd_ops;  // compute ops only, parent ids (frees are inserted on the whole plan)
  double fwd_time = 0, bwd_time = 0;
  int64_t mem = 0;       // internal bytes held from the forward to the backward
  int64_t fwd_peak = 0;  // bytes at the forward's peak: internal, the input, the output once written
  int64_t bwd_peak = 0;  // bytes at the backward's peak: internal, input, output grads, input grads
                         // once written (kept), output while resident
  bool needs_output = false;  // the backward reads the block's output data as the forward left it
  std::string solver;
};

struct Block {
  std::vector<NodeId> forwards;  // its units' forward compute ids
  int64_t out_bytes = 0;         // output data: the next block's input (or the loss's)
  int64_t grad_out_bytes = 0;    // grads of the output data: resident when the backward starts
  int64_t grad_in_bytes = 0;     // grads its backward writes (of its input, of sources it reads)
  std::vector<Op> ff_ops;        // fast forward: no phantoms kept, only the output left (compute ops)
  double ff_time = 0;
  int64_t ff_peak = 0;           // bytes at the fast forward's peak: internal, input, output once written
  std::vector<BlockOption> options;
};

struct Chain {
  std::vector<Block> blocks;
  NodeId loss = kNone;
  double loss_time = 0;
  int64_t loss_extra = 0;   // what the loss adds while it runs: its outputs (grads) and overhead
  int64_t constant = 0;     // always resident: sources, grads of sources written by several blocks
  int equivalence_classes = 0;  // distinct blocks up to structure (each solved once)
};

// The blocks' clusters (canonical numbering, partition/canonical.h) in chain order, or why the graph
// is not a chain (nullopt + `why`).
std::optional<std::vector<partition::Cluster>> chain_clusters(const Graph& g, std::string* why);

// The options of one block's cluster graph (the baselines, a menu, ...).
using OptionMaker = std::function<std::vector<hierarchy::Option>(const hierarchy::ClusterProblem&)>;
// Builds the chain; `make` runs once per equivalence class of blocks, its options translated to the
// copies. BadInput (with the reason) when the graph is not a chain.
Chain make_chain(const Graph& g, const OptionMaker& make);

}  // namespace hiremate::hierarchy
