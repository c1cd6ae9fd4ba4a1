// The TW-Remat recursion (Kumar et al., NeurIPS 2019; research/peers.md §3.7): a low-memory
// compute sequence from balanced separators of a tree decomposition.
//
// compute(U, T) computes the targets T within the node set U, everything U's nodes read from
// outside U being resident:
//  1. restrict U to A, the targets and their ancestors inside U (nodes that ran once and may not
//     run again, `done`, count as resident);
//  2. |A| <= leaf_size: run A once in rank order;
//  3. A not connected: each component in turn (no edge between them);
//  4. otherwise take the bag X of a centroid of the decomposition weighted by A; for each x of X
//     in rank order, compute x's predecessors within A \ X (recursively), then x; the earlier
//     separator nodes stay resident, the predecessors are dropped; last, compute the targets
//     outside X within A \ X.
// Memory stays near (bag size) x (depth), depth ~ log2 |A|, while recomputation grows with depth.
// That bound only helps where it is below what running A once in order holds (a training graph's
// activations; not a narrow generic DAG, whose keep-all frontier is small): so step 4 is kept only
// when its local peak is below the rank-order run's (values it writes, held through their last
// read there; the targets through the end where the caller reads them; the caller's values it
// reads, through their last read); otherwise A runs once in rank order. A step 4 that would push
// the ops past max_ops is abandoned the same way, so the cap degrades the recursion instead of
// failing it.
// The output is the compute sequence only: freeing after the last use (insert_frees) is never
// worse than the recursion's own frees. leaf_size trades memory for recomputation: 1 is the
// recursion of the paper, |graph| is one run in rank order (keep-all).
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hiremate/solvers/twremat/dag.h"
#include "hiremate/solvers/twremat/tree_decomposition.h"

namespace hiremate::twremat {

// A wall-clock limit shared by the phases of one solve.
struct Deadline {
  std::chrono::steady_clock::time_point at;
  bool expired() const { return std::chrono::steady_clock::now() >= at; }
};

// Thrown by Recursion when it would emit more than max_ops ops (only where no level can fall back
// to rank order), or when the deadline passes.
struct TooManyOps {};
struct OutOfTime {};

class Recursion {
 public:
  Recursion(const Graph& g, const Dag& dag, const TreeDecomposition& td, int leaf_size, size_t max_ops,
            Deadline deadline);

  // Appends to `out` a sequence computing `targets` (see above). `nodes` and `targets` are any
  // order; targets outside `nodes` or already done are ignored. `hold`: whether the caller reads
  // the targets afterwards (false for the sinks of the whole graph), for the peak comparisons.
  void compute(const std::vector<int>& nodes, const std::vector<int>& targets, std::vector<int>& out,
               bool hold = true);
  // The cap on ops emitted in all (what compute() added so far counts).
  void set_max_ops(size_t max_ops) { max_ops_ = max_ops; }
  // Non-recomputable nodes that have run.
  const std::vector<char>& done() const { return done_; }

 private:
  void run(const std::vector<int>& U, const std::vector<int>& T, bool hold, size_t level);
  void split(const std::vector<int>& A, uint64_t in_a, const std::vector<int>& T, bool hold, size_t level);
  int64_t local_peak(const std::vector<int>& sequence, size_t from, const std::vector<int>& targets);
  void emit(int v);
  void emit_all(std::vector<int> nodes);
  uint64_t mark(const std::vector<int>& nodes, size_t level);
  bool marked(int v, size_t level, uint64_t id) const { return stamps_[level][v] == id; }

  const Graph& g_;
  const Dag& dag_;
  const TreeDecomposition& td_;
  SeparatorFinder separators_;
  int leaf_size_;
  size_t max_ops_;
  Deadline deadline_;
  std::vector<int>* out_ = nullptr;
  std::vector<char> done_;
  std::vector<char> in_separator_;
  std::vector<uint64_t> visited_;              // scratch: a BFS's call id
  std::vector<int> label_;                     // scratch: component index
  std::vector<int> done_log_;                  // nodes marked done, in order (to undo a step 4)
  std::vector<int> pending_;                   // scratch of local_peak: data id -> last read
  std::vector<uint64_t> pending_id_, target_id_;
  std::vector<int64_t> profile_;
  std::vector<std::vector<uint64_t>> stamps_;  // per recursion level: set membership by call id
  uint64_t next_id_ = 0;
  size_t emitted_ = 0;
};

}  // namespace hiremate::twremat
