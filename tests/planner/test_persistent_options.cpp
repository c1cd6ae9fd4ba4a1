#include "hiremate/planner/persistent_options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "hiremate/hierarchy/cluster_problem.h"
#include "hiremate/hierarchy/hgraph.h"
#include "hiremate/hierarchy/option.h"
#include "hiremate/hierarchy/save_front.h"
#include "hiremate/partition/partition.h"
#include "hiremate/schedule/min_budget.h"
#include "hiremate/schedule/simulate.h"
#include "hierarchy/cluster_support.h"

using namespace hiremate;

namespace {

// The cluster graph with every forward a part of its own (the flat partitioning).
hierarchy::HGraph flat_hgraph(const hierarchy::ClusterProblem& cg) {
  std::vector<hierarchy::HPart> parts;
  for (size_t i = 0; i < cg.graph.compute.size(); ++i)
    if (cg.graph.compute[i].kind == ComputeKind::Forward) {
      hierarchy::HPart p;
      p.unit = static_cast<NodeId>(i);
      parts.push_back(std::move(p));
    }
  return hierarchy::build_hgraph(cg.graph, parts);
}

// The cluster graph over the cluster's first partitioning, as the planner builds it: each
// sub-cluster offering the baselines and its save-front options.
hierarchy::HGraph parts_hgraph(const Graph& g, const partition::ClusterTree& tree, const partition::Cluster& c,
                               const hierarchy::ClusterProblem& cg) {
  auto fc = [&](NodeId x) { return cg.compute_of(x); };
  auto fd = [&](NodeId x) { return cg.data_of(x); };
  std::vector<hierarchy::HPart> parts;
  for (const auto& part : c.partitionings.at(0).parts) {
    hierarchy::HPart hp;
    if (part.leaf()) {
      hp.unit = fc(part.node);
    } else {
      const auto& sc = tree.cluster(part.cluster);
      hierarchy::ClusterProblem scg = hierarchy::extract(g, sc);
      std::vector<hierarchy::Option> opts{hierarchy::autograd_option(scg), hierarchy::recompute_all_option(scg)};
      for (const Schedule& s : hierarchy::save_front(scg.graph, 4)) opts.push_back(hierarchy::make_option(scg, s, "save_front"));
      for (const auto& o : opts) hp.options.push_back(hierarchy::remap(o, fc, fd));
      hp.ff = hierarchy::remap(hierarchy::fast_forward(scg), fc);
      hp.interface = hierarchy::remap(sc.interface, fd);
    }
    parts.push_back(std::move(hp));
  }
  return hierarchy::build_hgraph(cg.graph, parts);
}

// On every cluster of the generated graphs (small sub-graph limits, so that clusters nest), at autograd's peak and halfway down to
// the floor: each option fits the peak, the first is the plan without a save budget and every other
// holds less at the loss, no two the same; some cluster gets such leaner options.
TEST(PersistentOptions, WalkDownTheSaveAxisWithinThePeak) {
  int leaner = 0;
  for (const Graph& g : hiremate::testing::generated_graphs()) {
    partition::PartitionOptions po;
    po.partitioners = {
        "bottom_to_top:max_estimate_per_sub_graph=8,max_estimate_for_main_graph=8,can_use_rotor=false"};
    const partition::ClusterTree tree = partition::partition(g, po);
    for (int id : tree.reachable()) {
      const auto& c = tree.cluster(id);
      if (c.partitionings.empty()) continue;
      SCOPED_TRACE(g.name + " cluster " + std::to_string(id));
      hierarchy::ClusterProblem cg = hierarchy::extract(g, c);
      const hierarchy::HGraph hg = parts_hgraph(g, tree, c, cg);
      const int64_t ub = hierarchy::autograd_option(cg).peak;
      const int64_t lb = std::min(ub, min_budget(cg.graph));
      int64_t iface = cg.graph.source_bytes();
      for (NodeId d : cg.interface.output_data) iface += cg.graph.data[d].bytes;
      for (const int64_t peak : {ub, lb + (ub - lb) / 2}) {
        auto opts = planner::persistent_save_options(cg, hg, peak, iface, 4, 1.0, [] { return 100.0; });
        if (opts.empty()) continue;
        EXPECT_LE(opts.size(), 5u);
        std::set<int64_t> seen;
        const int64_t first = hiremate::testing::option_at_loss(cg, opts[0]);
        for (size_t k = 0; k < opts.size(); ++k) {
          EXPECT_LE(opts[k].peak, peak);
          EXPECT_EQ(opts[k].solver, "persistent");
          const int64_t held = hiremate::testing::option_at_loss(cg, opts[k]);
          EXPECT_TRUE(seen.insert(held).second) << "two options hold " << held << " bytes at the loss";
          if (k == 0) continue;
          EXPECT_LT(held, first);
          ++leaner;
        }
      }
    }
  }
  std::printf("  %d options below the plain plan's bytes at the loss\n", leaner);
  EXPECT_GT(leaner, 0);
}

// No time left: no plan, no option.
TEST(PersistentOptions, NothingWithoutTime) {
  const Graph g = hiremate::testing::generated_graphs()[1];
  hierarchy::ClusterProblem cg = hierarchy::extract(g, hiremate::testing::all_clusters(g).back());
  const int64_t peak = hierarchy::autograd_option(cg).peak;
  EXPECT_TRUE(planner::persistent_save_options(cg, flat_hgraph(cg), peak, 0, 4, 1.0, [] { return 0.0; }).empty());
  EXPECT_FALSE(planner::persistent_save_options(cg, flat_hgraph(cg), peak, 0, 4, 1.0, [] { return 100.0; }).empty());
}

}  // namespace
