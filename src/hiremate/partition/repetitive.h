// repetitive: cut a cluster at a window of its topological order that repeats (research/hiremate.md
// §3.5): the layers of a transformer.
//
// Each unit is hashed alone (ForwardGraph::unit_hash: times, sizes, kinds; not names). For a window
// length L, the non-overlapping repeats of each distinct window are collected greedily from the left;
// a window is accepted when repeats x L covers `min_percentage_covered_required` of the cluster and the
// blocks number at most `strict_max_number_of_top_level_nodes`. Over all L the solution with the most
// repeats wins (on ties the longest window: upstream keeps the shortest, which leaves the last repeat
// short of its tail). Blocks are [start_i, start_i+1) (the units between repeats go with the
// preceding one), plus a prefix and a suffix block: intervals of a topological order, hence convex.
// Each block of two units or more goes to bottom_to_top (sub-graph bound at its top).
//
// Which L are tried: upstream tries every L in [ceil(n / max_number_of_patterns x coverage), n / 2],
// O(n^2). Here that holds up to `exhaustive_up_to` units; above it, only the distances between
// consecutive equal unit hashes that occur most often, their multiples up to 4 and their first four
// multiples at or above the smallest L are tried (O(n log n) each): a repeated layer shows up as its
// own length between equal units, and groups of layers as its multiples.
#pragma once
#include "hiremate/partition/bottom_to_top.h"
#include "hiremate/partition/cluster_graph.h"

namespace hiremate::partition {

struct RepetitiveConfig {
  int strict_max_number_of_top_level_nodes = 50;  // most blocks (repeats + prefix + suffix)
  int max_number_of_patterns = 40;                // sets the smallest L tried (see above)
  int min_number_of_patterns = 2;                 // fewest repeats accepted
  double min_percentage_covered_required = 0.75;  // fraction of the units the repeats must cover
  bool put_intermediates_with_preceding_block = true;  // false: with the following repeat
  int exhaustive_up_to = 1000;                    // not upstream: see above
  void set(const std::string& key, const std::string& value);
  static std::vector<std::string> keys();
};

// The repeats found: window length and start positions (local numbers), empty when none qualifies.
struct Repeats {
  int length = 0;
  std::vector<int> starts;
};
Repeats find_repeats(const ClusterGraph& cg, const RepetitiveConfig& cfg);

class Repetitive : public Partitioner {
 public:
  // `sub`: the configuration of the bottom_to_top that splits the blocks (main_graph_as_any_other is
  // forced on).
  explicit Repetitive(RepetitiveConfig cfg = {}, BottomToTopConfig sub = {});
  std::string name() const override { return "repetitive"; }
  std::optional<Draft> split(const ForwardGraph& fg, const std::vector<int>& units, bool main) const override;
  const Partitioner* sub() const override { return &sub_; }

 private:
  RepetitiveConfig cfg_;
  BottomToTop sub_;
};

}  // namespace hiremate::partition
