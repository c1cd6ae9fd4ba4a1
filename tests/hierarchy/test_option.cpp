#include "hiremate/hierarchy/option.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "hiremate/common/error.h"
#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/baselines.h"
#include "hiremate/solvers/checkmate/checkmate.h"
#include "hierarchy/cluster_support.h"
#include "support/tiny_graphs.h"

using namespace hiremate;
using hiremate::testing::cluster_of;
using hiremate::testing::compute_id;
using hiremate::testing::data_id;

namespace {

// Rebuilds the cluster schedule from the option's op lists and checks, with the simulator alone,
// every number the option reports.
void check_against_simulator(const hierarchy::ClusterProblem& cg, const hierarchy::Option& o) {
  SCOPED_TRACE(cg.graph.name + " / " + o.solver);
  Schedule s = hierarchy::cluster_schedule(cg, o);
  SimResult full = simulate(cg.graph, s);
  ASSERT_TRUE(full.valid) << full.reason;
  EXPECT_EQ(full.peak, o.peak);
  EXPECT_NEAR(full.time, o.fwd_time + o.bwd_time, 1e-9 * (1 + full.time));
  SimulateOptions partial;
  partial.require_complete = false;
  Schedule fwd;
  fwd.ops.assign(s.ops.begin(), s.ops.begin() + static_cast<long>(o.fwd_ops.size()) + 1);
  EXPECT_NEAR(simulate(cg.graph, fwd, partial).time, o.fwd_time, 1e-12);
  SimResult inner = simulate(cg.interior(), s);
  ASSERT_TRUE(inner.valid);
  EXPECT_EQ(inner.bytes_at_loss, o.mem);
  EXPECT_EQ(inner.peak, o.inner_peak);
  // The overheads put the halves' peaks back where the simulator has them.
  const size_t L = o.fwd_ops.size();
  int64_t fwd_peak = 0, bwd_peak = 0;
  for (size_t i = 0; i < inner.timeline.size(); ++i) {
    if (i <= L) fwd_peak = std::max(fwd_peak, inner.timeline[i].during);
    if (i >= L) bwd_peak = std::max(bwd_peak, inner.timeline[i].during);
  }
  EXPECT_EQ(o.mem + o.fwd_overhead, fwd_peak);
  EXPECT_EQ(o.mem + o.bwd_overhead + inner.timeline.back().after, bwd_peak);
  EXPECT_EQ(std::max(fwd_peak, bwd_peak), o.inner_peak);
  // Its op lists are in parent ids, and the option is a fixed point of make_option.
  for (const auto* half : {&o.fwd_ops, &o.bwd_ops})
    for (const Op& op : *half) EXPECT_NE(op.kind, Op::Kind::Loss);
  hierarchy::Option again = hierarchy::make_option(cg, s, o.solver, o.budget);
  EXPECT_EQ(again.fwd_ops, o.fwd_ops);
  EXPECT_EQ(again.bwd_ops, o.bwd_ops);
  EXPECT_EQ(again.mem, o.mem);
  EXPECT_EQ(again.dep_interfaces_data, o.dep_interfaces_data);
}

// Output data the backward does not list must be droppable right after the loss; those it lists not.
void check_dep_interfaces(const hierarchy::ClusterProblem& cg, const hierarchy::Option& o) {
  SCOPED_TRACE(cg.graph.name + " / " + o.solver);
  Schedule s = hierarchy::cluster_schedule(cg, o);
  const size_t L = o.fwd_ops.size();
  for (NodeId d : cg.interface.output_data) {
    Schedule t = s;
    // Remove its own delete, then drop it right after the loss.
    t.ops.erase(std::remove(t.ops.begin() + static_cast<long>(L) + 1, t.ops.end(), Op::del(d)), t.ops.end());
    t.ops.insert(t.ops.begin() + static_cast<long>(L) + 1, Op::del(d));
    bool needed = std::binary_search(o.dep_interfaces_data.begin(), o.dep_interfaces_data.end(),
                                     cg.data_to_parent[d]);
    EXPECT_EQ(simulate(cg.graph, t).valid, !needed) << cg.graph.data[d].name;
  }
  for (NodeId p : o.dep_interfaces_data) {
    NodeId d = cg.data_of(p);
    ASSERT_NE(d, kNone);
    EXPECT_TRUE(std::binary_search(cg.interface.input_data.begin(), cg.interface.input_data.end(), d) ||
                std::binary_search(cg.interface.output_data.begin(), cg.interface.output_data.end(), d));
  }
}

TEST(HilpOption, BaselinesOfTheFirstLayer) {
  Graph g = hiremate::testing::two_layer();
  hierarchy::ClusterProblem cg = hierarchy::extract(g, cluster_of(g, {compute_id(g, "F1")}));
  hierarchy::Option ag = hierarchy::autograd_option(cg), ra = hierarchy::recompute_all_option(cg);
  // Autograd keeps F1's phantoms (5 bytes) across the loss; x and a are interfaces.
  EXPECT_EQ(ag.mem, 5);
  EXPECT_EQ(ag.fwd_time, 1);
  EXPECT_EQ(ag.bwd_time, 4);
  EXPECT_EQ(ag.fwd_overhead, 0);
  EXPECT_TRUE(ag.dep_interfaces_data.empty());  // B1 reads its phantoms and a's grad only
  EXPECT_EQ(ag.solver, "autograd");
  // Recompute-all keeps nothing and runs F1 again, reading x, after the loss.
  EXPECT_EQ(ra.mem, 0);
  EXPECT_EQ(ra.fwd_time, 1);
  EXPECT_EQ(ra.bwd_time, 5);
  EXPECT_EQ(ra.dep_interfaces_data, std::vector<NodeId>{data_id(g, "x")});
  EXPECT_EQ(ra.fwd_ops, std::vector<Op>{Op::compute(compute_id(g, "F1"), false)});
  for (const auto& o : {ag, ra}) {
    check_against_simulator(cg, o);
    check_dep_interfaces(cg, o);
  }
  hierarchy::FastForward ff = hierarchy::fast_forward(cg);
  EXPECT_EQ(ff.ops, ra.fwd_ops);
  EXPECT_EQ(ff.time, 1);
  EXPECT_EQ(ff.overhead, 0);
}

// a is output data (F3, outside, reads it) that B2, inside, reads too; B1 reads the input x. The
// backward needs both from the parent unless it recomputes a first.
TEST(HilpOption, BackwardNeedsOutputDataItDoesNotRegenerate) {
  Graph g = hiremate::testing::two_producer_grad();
  hierarchy::ClusterProblem cg = hierarchy::extract(g, cluster_of(g, {compute_id(g, "F1"), compute_id(g, "F2")}));
  hierarchy::Option ag = hierarchy::autograd_option(cg), ra = hierarchy::recompute_all_option(cg);
  EXPECT_EQ(ag.dep_interfaces_data, (std::vector<NodeId>{data_id(g, "x"), data_id(g, "a")}));
  EXPECT_EQ(ra.dep_interfaces_data, std::vector<NodeId>{data_id(g, "x")});  // F1 runs again first
  for (const auto& o : {ag, ra}) {
    check_against_simulator(cg, o);
    check_dep_interfaces(cg, o);
  }
}

TEST(HilpOption, OverheadsAreRelativeToTheSavedMemory) {
  Graph g = hiremate::testing::two_layer(/*f2_overhead=*/7);
  hierarchy::ClusterProblem cg = hierarchy::extract(g, cluster_of(g, {compute_id(g, "F2")}));
  hierarchy::Option ag = hierarchy::autograd_option(cg);
  EXPECT_EQ(ag.mem, 0);            // every node of F2/B2 is an interface
  EXPECT_EQ(ag.fwd_overhead, 7);   // F2's own transient bytes
  EXPECT_EQ(ag.bwd_overhead, 0);
  EXPECT_EQ(ag.inner_peak, 7);
  // The full peak counts the interfaces: a (10) + b (20) + bg (20) at the loss.
  EXPECT_EQ(ag.peak, 50);
  check_against_simulator(cg, ag);
  hierarchy::FastForward leaf = hierarchy::fast_forward(g, compute_id(g, "F2"));
  EXPECT_EQ(leaf.ops, std::vector<Op>{Op::compute(compute_id(g, "F2"), false)});
  EXPECT_EQ(leaf.time, 2);
  EXPECT_EQ(leaf.overhead, 7);
  EXPECT_THROW(hierarchy::fast_forward(g, compute_id(g, "B2")), BadInput);
}

TEST(HilpOption, RefusesInvalidSchedules) {
  Graph g = hiremate::testing::two_layer();
  hierarchy::ClusterProblem cg = hierarchy::extract(g, cluster_of(g, {compute_id(g, "F1")}));
  Schedule s = keep_all_schedule(cg.graph);
  Schedule no_loss = s;
  no_loss.ops.erase(std::remove_if(no_loss.ops.begin(), no_loss.ops.end(),
                                   [](const Op& op) { return op.kind == Op::Kind::Loss; }),
                    no_loss.ops.end());
  EXPECT_THROW(hierarchy::make_option(cg, no_loss, "test"), BadInput);
  Schedule no_phantoms = s;
  no_phantoms.ops[0].keep_phantoms = false;  // B1 then misses F1's phantoms
  EXPECT_THROW(hierarchy::make_option(cg, no_phantoms, "test"), BadInput);
  Plan empty;
  empty.solver = "test";
  EXPECT_THROW(hierarchy::make_option(cg, empty), BadInput);
}

TEST(HilpOption, BaselinesOfEveryGeneratedCluster) {
  for (const Graph& g : hiremate::testing::generated_graphs()) {
    for (const auto& c : hiremate::testing::all_clusters(g)) {
      hierarchy::ClusterProblem cg = hierarchy::extract(g, c);
      hierarchy::Option ag = hierarchy::autograd_option(cg), ra = hierarchy::recompute_all_option(cg);
      SCOPED_TRACE(cg.graph.name);
      check_against_simulator(cg, ag);
      check_against_simulator(cg, ra);
      check_dep_interfaces(cg, ag);
      check_dep_interfaces(cg, ra);
      EXPECT_LE(ag.fwd_time + ag.bwd_time, ra.fwd_time + ra.bwd_time);
      EXPECT_GE(ag.mem, ra.mem);
      EXPECT_EQ(ra.mem, 0);  // recompute-all keeps nothing internal across the loss
      EXPECT_GT(ag.mem, 0);  // these graphs' clusters have internal data or phantoms
      hierarchy::FastForward ff = hierarchy::fast_forward(cg);
      EXPECT_EQ(ff.ops, ra.fwd_ops);
      EXPECT_NEAR(ff.time, ra.fwd_time, 1e-12);
      EXPECT_EQ(ff.overhead, ra.fwd_overhead);
    }
  }
}

// The exact solver, asked to hold less at the loss than autograd, yields an option between the two
// baselines: no faster than autograd, no slower than recompute-all, its saved memory in between.
TEST(HilpOption, ExactSolverLiesBetweenTheBaselines) {
  generate::ChainParams p;
  p.n = 6;
  p.bytes = 1000;
  p.period = 3;
  Graph g = generate::chain(p);
  std::vector<NodeId> forwards;
  for (NodeId k : g.order)
    if (g.compute[k].kind == ComputeKind::Forward) forwards.push_back(k);
  // The middle four layers: input and output data on both sides.
  hierarchy::ClusterProblem cg =
      hierarchy::extract(g, cluster_of(g, std::vector<NodeId>(forwards.begin() + 1, forwards.end() - 1)));
  hierarchy::Option ag = hierarchy::autograd_option(cg), ra = hierarchy::recompute_all_option(cg);
  ASSERT_GT(ag.mem, ra.mem);
  // Peak budget: enough for either baseline. Save budget: halfway between their bytes at the loss.
  const int64_t peak = std::max(ag.peak, ra.peak);
  SolveOptions opt;
  opt.time_limit = 60;
  int64_t interface_at_loss = simulate(cg.graph, hierarchy::cluster_schedule(cg, ra)).bytes_at_loss - ra.mem;
  opt.save_budget = interface_at_loss + (ag.mem + ra.mem) / 2;
  Plan plan = solve_checked(CheckmateSolver(), cg.graph, peak, opt);
  ASSERT_TRUE(plan.has_schedule) << plan.note;
  EXPECT_TRUE(optimal_in_model(plan)) << plan.note;
  hierarchy::Option o = hierarchy::make_option(cg, plan);
  EXPECT_EQ(o.solver, "checkmate");
  EXPECT_EQ(o.budget, peak);
  check_against_simulator(cg, o);
  check_dep_interfaces(cg, o);
  const double t_ag = ag.fwd_time + ag.bwd_time, t_ra = ra.fwd_time + ra.bwd_time, t = o.fwd_time + o.bwd_time;
  EXPECT_GT(t, t_ag);  // it must recompute something to save memory
  EXPECT_LE(t, t_ra + 1e-9);
  EXPECT_LT(o.mem, ag.mem);
  EXPECT_GE(o.mem, ra.mem);
  EXPECT_LE(o.peak, peak);
}

}  // namespace
