#include "hiremate/hierarchy/menu.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "hiremate/common/error.h"
#include "hiremate/graph/generate.h"
#include "hiremate/planner/registry.h"
#include "hiremate/schedule/simulate.h"
#include "hierarchy/cluster_support.h"

using namespace hiremate;
using hiremate::testing::cluster_of;

namespace {

// The middle four layers of a 6-layer chain with sizes 1000, 2000, 3000, ...: input and output data
// on both sides, internal data to keep or recompute.
hierarchy::ClusterProblem middle_of_chain() {
  static const Graph g = [] {
    generate::ChainParams p;
    p.n = 6;
    p.bytes = 1000;
    p.period = 3;
    return generate::chain(p);
  }();
  std::vector<NodeId> forwards;
  for (NodeId k : g.order)
    if (g.compute[k].kind == ComputeKind::Forward) forwards.push_back(k);
  return hierarchy::extract(g, cluster_of(g, std::vector<NodeId>(forwards.begin() + 1, forwards.end() - 1)));
}

double time_of(const hierarchy::Option& o) { return o.fwd_time + o.bwd_time; }

hierarchy::Option fake(const std::string& solver, double time, int64_t mem, int64_t fwd_overhead = 0,
                  int64_t bwd_overhead = 0) {
  hierarchy::Option o;
  o.solver = solver;
  o.fwd_time = time;
  o.mem = mem;
  o.fwd_overhead = fwd_overhead;
  o.bwd_overhead = bwd_overhead;
  return o;
}

}  // namespace

TEST(HilpMenu, ParetoDeduplicatedBaselinesIncludedAndMeasured) {
  hierarchy::ClusterProblem cg = middle_of_chain();
  hierarchy::MenuOptions mo;
  mo.solvers = {make_solver("checkmate")};
  mo.peak_points = 3;
  mo.save_points = 3;
  mo.time_limit = 10;
  hierarchy::Menu menu = hierarchy::build_menu(cg, mo);
  EXPECT_GT(menu.solves, 0);
  EXPECT_LE(menu.solves, 9);
  ASSERT_GE(menu.options.size(), 3u) << "the grid should add options between the baselines";
  EXPECT_EQ(menu.options[0].solver, "autograd");
  EXPECT_EQ(menu.options[1].solver, "recompute_all");
  size_t from_solver = 0;
  for (size_t i = 0; i < menu.options.size(); ++i) {
    const hierarchy::Option& a = menu.options[i];
    from_solver += a.solver == "checkmate";
    // Every number is the simulator's on the op lists.
    Schedule s = hierarchy::cluster_schedule(cg, a);
    SimResult full = simulate(cg.graph, s), inner = simulate(cg.interior(), s);
    ASSERT_TRUE(full.valid && inner.valid) << full.reason;
    EXPECT_EQ(full.peak, a.peak);
    EXPECT_NEAR(full.time, time_of(a), 1e-9);
    EXPECT_EQ(inner.bytes_at_loss, a.mem);
    EXPECT_EQ(inner.peak, a.inner_peak);
    if (a.budget) {
      EXPECT_LE(a.peak, *a.budget);
    }
    for (size_t j = 0; j < menu.options.size(); ++j) {
      if (i == j) continue;
      const hierarchy::Option& b = menu.options[j];
      bool baselines = j < 2 && i < 2;
      if (!baselines) {
        EXPECT_FALSE(std::abs(time_of(a) - time_of(b)) < 1e-9 && a.mem == b.mem) << i << " " << j;
      }
      if (i >= 2) {  // solver options are not dominated
        bool dominated = time_of(b) <= time_of(a) && b.mem <= a.mem && b.mem + b.fwd_overhead <= a.mem + a.fwd_overhead &&
                         b.mem + b.bwd_overhead <= a.mem + a.bwd_overhead &&
                         std::includes(a.dep_interfaces_data.begin(), a.dep_interfaces_data.end(),
                                       b.dep_interfaces_data.begin(), b.dep_interfaces_data.end());
        EXPECT_FALSE(dominated) << "option " << i << " is dominated by option " << j;
      }
    }
  }
  EXPECT_GE(from_solver, 1u);
  // Options between the baselines: faster than recompute-all, holding less than autograd.
  for (size_t i = 2; i < menu.options.size(); ++i) {
    EXPECT_LT(menu.options[i].mem, menu.options[0].mem);
    EXPECT_LT(time_of(menu.options[i]), time_of(menu.options[1]));
  }
}

TEST(HilpMenu, RefusesBadOptions) {
  hierarchy::ClusterProblem cg = middle_of_chain();
  hierarchy::MenuOptions mo;
  EXPECT_THROW(make_solver("no_such_solver"), BadInput);  // names are resolved by the registry now
  mo.solvers = {nullptr};
  EXPECT_THROW(hierarchy::build_menu(cg, mo), BadInput);
  mo = {};
  mo.peak_points = 0;
  EXPECT_THROW(hierarchy::build_menu(cg, mo), BadInput);
  mo = {};
  mo.time_limit = 0;
  EXPECT_THROW(hierarchy::build_menu(cg, mo), BadInput);
}

TEST(HilpMenu, BaselinesAloneWithoutSolvers) {
  hierarchy::ClusterProblem cg = middle_of_chain();
  hierarchy::MenuOptions mo;
  mo.solvers = {};
  hierarchy::Menu menu = hierarchy::build_menu(cg, mo);
  EXPECT_EQ(menu.solves, 0);
  ASSERT_EQ(menu.options.size(), 2u);
}

TEST(HilpMenu, PruneKeepsBaselinesDropsDuplicatesAndDominated) {
  std::vector<hierarchy::Option> in{
      fake("autograd", 10, 100), fake("recompute_all", 20, 0),
      fake("checkmate", 20, 0),        // duplicate of recompute_all
      fake("checkmate", 12, 50),       // kept
      fake("checkmate", 13, 60),       // dominated by the one above
      fake("checkmate", 12, 50, 0, 5), // dominated: same time and mem, higher backward peak
      fake("checkmate", 15, 40, 100),  // kept: less memory though a higher forward peak
      fake("checkmate", 15, 40, 100),  // duplicate of the previous
  };
  auto out = hierarchy::prune_options(in);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].solver, "autograd");
  EXPECT_EQ(out[1].solver, "recompute_all");
  EXPECT_EQ(time_of(out[2]), 12);
  EXPECT_EQ(out[2].bwd_overhead, 0);
  EXPECT_EQ(out[3].mem, 40);
  // A baseline stays even when dominated.
  auto kept = hierarchy::prune_options({fake("recompute_all", 20, 10), fake("checkmate", 5, 0)});
  EXPECT_EQ(kept.size(), 2u);
  // Needing fewer interfaces is an advantage: neither dominates.
  hierarchy::Option x = fake("checkmate", 10, 10), y = fake("checkmate", 11, 10);
  x.dep_interfaces_data = {3, 4};
  y.dep_interfaces_data = {3};
  EXPECT_EQ(hierarchy::prune_options({x, y}).size(), 2u);
}

TEST(HilpMenu, QuotaIsProportionalToSize) {
  EXPECT_EQ(hierarchy::option_quota(10, 40), 25u);
  EXPECT_EQ(hierarchy::option_quota(1, 1000), 1u);  // at least one
  EXPECT_EQ(hierarchy::option_quota(3, 7, 10), 4u);
  EXPECT_EQ(hierarchy::option_quota(5, 5, 100), 100u);
  EXPECT_THROW(hierarchy::option_quota(1, 0), BadInput);
  EXPECT_THROW(hierarchy::option_quota(6, 5), BadInput);
}

TEST(HilpMenu, SelectKeepsTheExtremesAndTheQuota) {
  std::vector<hierarchy::Option> in;
  for (int i = 0; i < 11; ++i) in.push_back(fake("checkmate", 10 + i, 100 - 10 * i));  // mem 100, 90, ..., 0
  for (size_t q = 1; q <= 12; ++q) {
    auto out = hierarchy::select_options(in, q);
    EXPECT_EQ(out.size(), std::min<size_t>(q, in.size()));
    if (q == 1) {
      EXPECT_EQ(out[0].mem, 100);  // the fastest
      continue;
    }
    EXPECT_EQ(out.front().mem, 100);  // input order kept, extremes in
    EXPECT_EQ(out.back().mem, 0);
    for (size_t i = 1; i < out.size(); ++i) EXPECT_LT(out[i].mem, out[i - 1].mem);
  }
  // Three: the middle is the farthest from both extremes.
  auto three = hierarchy::select_options(in, 3);
  EXPECT_EQ(three[1].mem, 50);
  // Duplicated mem values: sampling stops when only distance-0 options are left.
  std::vector<hierarchy::Option> dup{fake("a", 1, 10), fake("b", 2, 10), fake("c", 3, 0), fake("d", 4, 0)};
  auto two = hierarchy::select_options(dup, 4);
  EXPECT_EQ(two.size(), 4u);  // within quota: everything
  auto capped = hierarchy::select_options(dup, 3);
  ASSERT_EQ(capped.size(), 2u);
  EXPECT_EQ(capped[0].solver, "a");  // the fastest of the two holding the most
  EXPECT_EQ(capped[1].solver, "c");
  EXPECT_TRUE(hierarchy::select_options(dup, 0).empty());
}

TEST(HilpMenu, SelectTakesTheOptionFarthestBelowTheHull) {
  // Extremes (mem 100, time 10) and (mem 0, time 20); between them a slow option at mem 50 (the
  // farthest on mem) and a fast one at mem 40, far below the segment between the extremes (where
  // copies of a cluster share a budget, the H-ILP mixes hull points: that is the one to keep).
  std::vector<hierarchy::Option> in{fake("autograd", 10, 100), fake("checkmate", 19, 50), fake("checkmate", 11, 40),
                                    fake("recompute_all", 20, 0)};
  auto three = hierarchy::select_options(in, 3);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[1].mem, 40);
  // The next turn is farthest-point on mem: with four, the slow one at 50 too.
  EXPECT_EQ(hierarchy::select_options(in, 4).size(), 4u);
  // Options on or above the hull leave the choice to farthest-point sampling (collinear: mem 50).
  std::vector<hierarchy::Option> line{fake("autograd", 10, 100), fake("checkmate", 14, 60), fake("checkmate", 15, 50),
                                      fake("recompute_all", 20, 0)};
  EXPECT_EQ(hierarchy::select_options(line, 3)[1].mem, 50);
  // Below the hull twice: the deeper first, then (its turn) farthest-point, then the other.
  std::vector<hierarchy::Option> two{fake("autograd", 10, 100), fake("checkmate", 12, 80), fake("checkmate", 11, 30),
                                     fake("checkmate", 19, 55), fake("recompute_all", 20, 0)};
  auto t3 = hierarchy::select_options(two, 3);
  EXPECT_EQ(t3[1].mem, 30);  // 6 below the hull's 17 there; 80 is on it (12), 55 above it (19)
  auto t4 = hierarchy::select_options(two, 4);  // then the farthest on mem from 100, 30 and 0: 55, not 80
  ASSERT_EQ(t4.size(), 4u);
  EXPECT_EQ(t4[1].mem, 30);
  EXPECT_EQ(t4[2].mem, 55);
}
