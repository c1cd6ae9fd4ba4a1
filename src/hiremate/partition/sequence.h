// sequence: cut a cluster at the cutting points of its forward graph (research/hiremate.md §3.4).
//
// A cutting point is a unit that requires grad and that every path from the cluster's outputs back to
// its inputs crosses (found in one walk down the topological order, always taking the latest unit of
// the frontier: a unit is a cutting point when the frontier is empty as it is taken; units without a
// predecessor in the cluster, and units reading data from outside it, lead to a common virtual source
// that stays in the frontier). The blocks are the intervals of the topological order that end at a
// cutting point (and the rest after the last one): intervals are convex and the blocks form a chain.
// Each block of two units or more goes to the sub-partitioner, bottom_to_top with the sub-graph bound
// at the top too; with a single block the sub-partitioner takes the whole cluster.
#pragma once
#include "hiremate/partition/bottom_to_top.h"
#include "hiremate/partition/cluster_graph.h"

namespace hiremate::partition {

class Sequence : public Partitioner {
 public:
  // `sub`: the configuration of the bottom_to_top that splits the blocks (main_graph_as_any_other is
  // forced on, as upstream does for the string "bottom_to_top").
  explicit Sequence(BottomToTopConfig sub = {});
  std::string name() const override { return "sequence"; }
  std::optional<Draft> split(const ForwardGraph& fg, const std::vector<int>& units, bool main) const override;
  const Partitioner* sub() const override { return &sub_; }

 private:
  BottomToTop sub_;
};

// The cutting points of a cluster (local numbers, ascending); exposed for tests.
std::vector<int> cutting_points(const ClusterGraph& cg);

}  // namespace hiremate::partition
