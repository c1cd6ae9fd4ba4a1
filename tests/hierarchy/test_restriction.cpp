// A whole graph's schedule restricted to a cluster (restriction.h): the planner offers TW-Remat's
// whole-graph plan so restricted in every cluster's menu.
#include "hiremate/hierarchy/restriction.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "hiremate/partition/partition.h"
#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/baselines.h"
#include "hiremate/solvers/solver.h"
#include "hiremate/solvers/twremat/twremat.h"
#include "hierarchy/cluster_support.h"

using namespace hiremate;

namespace {

// The cluster's computations of `whole`, in order, in the cluster graph's ids.
std::vector<Op> cluster_computes(const hierarchy::ClusterProblem& cg, const Schedule& whole) {
  std::vector<Op> out;
  for (const Op& op : whole.ops)
    if (op.kind == Op::Kind::Compute && cg.compute_of(op.node) != kNone)
      out.push_back(Op::compute(cg.compute_of(op.node), op.keep_phantoms));
  return out;
}

std::vector<Op> computes(const Schedule& s) {
  std::vector<Op> out;
  for (const Op& op : s.ops)
    if (op.kind == Op::Kind::Compute) out.push_back(op);
  return out;
}

}  // namespace

// The keep-all schedule of the whole graph, restricted to any cluster, runs the cluster as its own
// keep-all option does: the same times and the same bytes held at the loss.
TEST(HilpRestriction, KeepAllRestrictedIsTheClustersAutogradOption) {
  for (const Graph& g : hiremate::testing::generated_graphs()) {
    const Schedule whole = keep_all_schedule(g);
    for (const auto& c : hiremate::testing::all_clusters(g)) {
      const hierarchy::ClusterProblem cg = hierarchy::extract(g, c);
      SCOPED_TRACE(cg.graph.name);
      const auto s = hierarchy::restrict_schedule(cg, whole);
      ASSERT_TRUE(s);
      EXPECT_EQ(computes(*s), cluster_computes(cg, whole));
      const hierarchy::Option o = hierarchy::make_option(cg, *s, "restricted");
      const hierarchy::Option ag = hierarchy::autograd_option(cg);
      EXPECT_NEAR(o.fwd_time, ag.fwd_time, 1e-12 * (1 + ag.fwd_time));
      EXPECT_NEAR(o.bwd_time, ag.bwd_time, 1e-12 * (1 + ag.bwd_time));
      EXPECT_EQ(o.mem, ag.mem);
    }
  }
}

// TW-Remat's plan of the whole graph under a tight budget, restricted to every cluster: a valid
// cluster schedule that computes what the plan computes of the cluster, recomputations included, in
// the plan's order; and no schedule where the whole one has no loss marker.
TEST(HilpRestriction, TwRematsPlanRestrictedToEveryClusterIsValid) {
  int recomputing = 0;
  for (const Graph& g : hiremate::testing::generated_graphs()) {
    const Baseline b = baseline(g);
    SolveOptions o;
    o.time_limit = 10;
    const Plan p = TwRematSolver().solve(g, b.peak / 2, o);
    if (!p.has_schedule) continue;
    for (const auto& c : hiremate::testing::all_clusters(g)) {
      const hierarchy::ClusterProblem cg = hierarchy::extract(g, c);
      SCOPED_TRACE(cg.graph.name);
      const auto s = hierarchy::restrict_schedule(cg, p.schedule);
      ASSERT_TRUE(s);
      EXPECT_TRUE(simulate(cg.graph, *s).valid);
      const auto ops = computes(*s);
      EXPECT_EQ(ops, cluster_computes(cg, p.schedule));
      recomputing += ops.size() > cg.graph.compute.size() - 1;  // the synthetic loss is not computed
      Schedule no_loss;
      for (const Op& op : p.schedule.ops)
        if (op.kind != Op::Kind::Loss) no_loss.ops.push_back(op);
      EXPECT_FALSE(hierarchy::restrict_schedule(cg, no_loss));
    }
  }
  EXPECT_GT(recomputing, 0);  // some cluster is run with recomputations: the test sees them
}

// The copies of a cluster (its equivalence class) restricted from TW-Remat's whole-graph plan, each
// mapped onto the representative: a valid schedule of the representative's cluster graph whose
// option has the times, memory and overheads of the copy's own restriction, and somewhere a copy
// that the plan runs unlike the representative (which its own restriction alone could not offer).
TEST(HilpRestriction, EveryCopyIsOfferedAsThePlanRunsIt) {
  int classes = 0, differing = 0;
  for (const Graph& g : hiremate::testing::generated_graphs()) {
    partition::PartitionOptions po;
    po.partitioners = {
        "bottom_to_top:max_estimate_per_sub_graph=8,max_estimate_for_main_graph=8,can_use_rotor=false"};
    const partition::ClusterTree tree = partition::partition(g, po);
    const Baseline b = baseline(g);
    for (double f : {0.5, 0.35}) {
      SolveOptions so;
      so.time_limit = 10;
      const Plan p = TwRematSolver().solve(g, static_cast<int64_t>(f * static_cast<double>(b.peak)), so);
      if (!p.has_schedule) continue;
      for (int c : tree.bottom_up()) {
        const auto& members = tree.classes.at(tree.cluster(c).cls).members;
        if (members.size() < 2) continue;
        const hierarchy::ClusterProblem cg = hierarchy::extract(g, tree.cluster(c));
        SCOPED_TRACE(cg.graph.name);
        const auto own = hierarchy::restrict_schedule(cg, p.schedule);
        ASSERT_TRUE(own);
        const hierarchy::Option mine = hierarchy::make_option(cg, *own, "restricted");
        const auto copies = hierarchy::restricted_copies(tree, cg, c, p.schedule, 1000);
        ASSERT_EQ(copies.size(), members.size() - 1);  // every copy's restriction is valid
        EXPECT_TRUE(hierarchy::restricted_copies(tree, cg, c, p.schedule, 0).empty());
        EXPECT_EQ(hierarchy::restricted_copies(tree, cg, c, p.schedule, 1).size(), 1u);
        ++classes;
        for (size_t i = 0; i < copies.size(); ++i) {
          ASSERT_TRUE(simulate(cg.graph, copies[i]).valid);
          const hierarchy::Option o = hierarchy::make_option(cg, copies[i], "restricted");
          const int m = members[i + 1];  // the representative is the class's first member
          const hierarchy::ClusterProblem cm = hierarchy::extract(g, tree.cluster(m));
          const hierarchy::Option direct = hierarchy::make_option(cm, *hierarchy::restrict_schedule(cm, p.schedule), "restricted");
          EXPECT_NEAR(o.fwd_time, direct.fwd_time, 1e-12 * (1 + direct.fwd_time));
          EXPECT_NEAR(o.bwd_time, direct.bwd_time, 1e-12 * (1 + direct.bwd_time));
          EXPECT_EQ(o.mem, direct.mem);
          EXPECT_EQ(o.fwd_overhead, direct.fwd_overhead);
          EXPECT_EQ(o.bwd_overhead, direct.bwd_overhead);
          differing += o.mem != mine.mem || std::abs(o.fwd_time - mine.fwd_time) > 1e-12 * (1 + mine.fwd_time);
        }
      }
    }
  }
  EXPECT_GT(classes, 0);
  EXPECT_GT(differing, 0);
  std::printf("  %d classes, %d copies run unlike their representative\n", classes, differing);
}
