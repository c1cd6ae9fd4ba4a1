// The memory of insert_frees(entries) kept up to date while runs are removed: the greedy pass's
// incremental equivalent of simulate() (tests check that they agree after every step).
//
// Under insert_frees a value written at position a stays resident through its last read before it
// is written again (through a alone when nothing reads it); a grad, written once per producer,
// from its first producer through its last read. So the bytes while entry j runs are the sources,
// j's overhead and every value whose interval holds j, and the peak is their maximum over the active
// entries: a segment tree over positions holds that profile, and removing a run only moves the
// intervals of the values it writes and reads.
//
// Merging run q of a recomputable node into its previous run p (the greedy step) keeps p's values
// until the reads that q served; p also keeps the phantoms when q did. Reads that q made end
// earlier. Runs that nobody reads any more (and that are not the node's first) are dropped with it.
#pragma once
#include <cstdint>
#include <set>
#include <vector>

#include "hiremate/common/segment_tree.h"
#include "hiremate/graph/graph.h"
#include "hiremate/solvers/twremat/dag.h"
#include "hiremate/solvers/twremat/start.h"

namespace hiremate::twremat {

class MemoryModel {
 public:
  // `entries` must be valid (every read finds its value written earlier, the loss marker at most once).
  MemoryModel(const Graph& g, const Dag& dag, std::vector<Entry> entries);

  int64_t peak() const;     // simulate(g, insert_frees(ops())).peak
  int64_t at_loss() const;  // its bytes_at_loss (0 without a loss marker)
  double time() const;      // its time
  size_t active() const { return active_count_; }
  const std::vector<Entry>& entries() const { return entries_; }
  bool is_active(int q) const { return active_[q]; }
  std::vector<Op> ops() const;  // the active entries

  // Whether entry q can be merged into an earlier run of its node.
  bool mergeable(int q) const;
  struct Outcome {
    int64_t peak = 0;
    int64_t at_loss = 0;
  };
  // The peak and bytes at the loss after merging q, leaving the model unchanged.
  Outcome try_merge(int q);
  // Merges q, then drops the runs left unread.
  void merge(int q);
  // Drops every run nobody reads (not a node's first run, not a node that runs once).
  void drop_unread();

 private:
  struct Journal;
  void add(int l, int r, int64_t delta, Journal* j);
  int interval_end(NodeId x, int a) const;
  void window(NodeId x, int lo, int hi, int sign, Journal* j);
  void erase_production(NodeId x, int a, Journal* j);
  void insert_production(NodeId x, int a, Journal* j);
  void erase_use(NodeId x, int a, Journal* j);
  bool writes(int q, NodeId x) const;
  void apply_merge(int q, Journal* j);
  void remove_run(int q, Journal* j);
  bool unread(int q) const;
  void drop_unread_from(std::vector<int> work);
  void undo(Journal& j);

  const Graph& g_;
  const Dag& dag_;
  std::vector<Entry> entries_;
  std::vector<char> active_;
  size_t active_count_ = 0;
  std::vector<std::set<int>> writes_at_, reads_at_;  // data id -> positions writing / reading it
  std::vector<std::set<int>> runs_;                  // compute id -> active positions running it
  std::vector<std::vector<NodeId>> deps_;            // compute id -> data read, unique, movable only
  std::vector<char> movable_;                        // data id: not a source, not a grad
  SegmentTree profile_;
  int64_t sources_ = 0;
  int loss_at_ = -1;
  int64_t loss_overhead_ = 0;
};

}  // namespace hiremate::twremat
