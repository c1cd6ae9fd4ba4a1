// bottom_to_top, the default partitioner (research/hiremate.md §3.3).
//
// Starting from the cluster's units, each round merges groups of the current top-level nodes into new
// nodes, until the top level is small enough or is a chain (Rotor takes chains):
//  - candidates ("options") are sequences (maximal chains of the top-level graph) and flows (for a node
//    p, the nodes between p and its immediate dominator q towards the inputs: F, F\{p}, F\{q}, F\{p,q});
//  - the greedy merges the option of highest value = -(interface bytes in + out) x (leaves)^0.5, i.e.
//    the group whose boundary holds the least memory for its size, and rewrites the options that
//    shared a member to use the new node (dropping duplicates);
//  - an option whose size estimate (1 per member node, +1 per member that is itself a group; a group
//    merged in this same round counts its members) exceeds 20 is dropped, except a sequence of nodes
//    from earlier rounds; each round adds exactly one level (merged nodes of the same round flatten).
// Not upstream:
//  - a merge that would make the quotient graph cyclic is rejected (§3.7), so every part is convex
//    (on the generated graphs of the tests it never triggers: overlapping flows unite into convex sets);
//  - `repeats_first`: options whose shape another option shares are merged first (see the config);
//  - when a round shrinks the top level by less than `min_round_shrink` while it is still too large
//    (graphs without local structure: random DAGs, or the U of a forward+backward DAG peeled ~20 nodes
//    per round, which makes rounds O(n)), the top level is cut into intervals of a topological order
//    (convex by construction) whose estimate fits, at the cuts that the least bytes cross, round
//    after round (`interval_fallback`); in the round that can make the top level fit, among the cuts
//    that leave it at least `min_top_fill` of its bound (else at the finest that fit).
//
// Cost: flows are searched only up to the size an admissible option can have, options sit in a heap
// updated when a member merges, and slow rounds hand over to the fallback, so a cluster costs about
// O(E x S x log) for S the size bound (upstream: O(V^2) flows, a rescan of all options per merge, and
// as many rounds as the graph allows).
#pragma once
#include <string>
#include <vector>

#include "hiremate/partition/partitioner.h"

namespace hiremate::partition {

struct BottomToTopConfig {
  int max_len_seq = 99;                   // sequences longer than this are cut into near-equal pieces
  int max_estimate_for_main_graph = 30;   // the root cluster's top level may reach this estimate
  int max_estimate_per_sub_graph = 20;    // the bound for every sub-cluster's partitioning
  bool main_graph_as_any_other = false;   // the root's top level bound is max_estimate_per_sub_graph too
  bool can_use_rotor = true;              // a chain is fine at the top; sequences may exceed the bound
  double estimate_coeff_size = 1;         // estimate = coeff_size x nodes + coeff_sub_graph x sub-groups
  double estimate_coeff_sub_graph = 1;
  double value_coeff_input_interfaces = 1;   // value = -(in x bytes in + out x bytes out) x size^power
  double value_coeff_output_interfaces = 1;
  double value_power_total_size = 0.5;
  // Not upstream: options whose shape another option of the round shares go before all others (then
  // by value). Identical clusters are solved once, so a group that repeats (a transformer layer) is
  // preferred to a unique one that would cut into a repeat (the first layer swallowing the
  // embedding). Graphs without repeats rank as upstream.
  bool repeats_first = true;
  bool interval_fallback = true;          // not upstream: see above
  // Not upstream: the interval fallback's last round leaves the top level at least this share of its
  // bound where it can (the cuts with the least bytes alone left a 4,969-node encoder-decoder's root
  // 3 parts, estimate 6 of 30: hilp 32.8 % at 50 %, 8.5 % with the 8 parts it now has; the finest
  // cuts everywhere made a 2,527-node one's root 15 parts where 10 were 2-3 points better).
  // measured: bench/results/partition_fallback.md
  double min_top_fill = 0.5;
  double min_round_shrink = 0.1;          // not upstream: a round that shrinks the top level by less
                                          // than this fraction hands over to the interval fallback
  // Sets one parameter by name; BadInput listing the keys for an unknown key or a malformed value.
  void set(const std::string& key, const std::string& value);
  static std::vector<std::string> keys();
};

class BottomToTop : public Partitioner {
 public:
  explicit BottomToTop(BottomToTopConfig cfg = {}) : cfg_(cfg) {}
  std::string name() const override { return "bottom_to_top"; }
  // Never nullopt: a cluster already small enough (or a chain) gets the flat split.
  std::optional<Draft> split(const ForwardGraph& fg, const std::vector<int>& units, bool main) const override;
  const BottomToTopConfig& config() const { return cfg_; }

 private:
  BottomToTopConfig cfg_;
};

}  // namespace hiremate::partition
