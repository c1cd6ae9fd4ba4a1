#include "hiremate/hierarchy/correction.h"

#include <gtest/gtest.h>

#include <set>

#include "hiremate/hierarchy/option.h"
#include "hierarchy/cluster_support.h"
#include "support/tiny_graphs.h"

using namespace hiremate;
using hiremate::testing::cluster_of;
using hiremate::testing::compute_id;
using hiremate::testing::data_id;

namespace {

// Cluster {F2} of two_layer: a comes in, b goes out; bg comes back, ag goes back.
TEST(HilpCorrection, LastLayerOfTwoLayer) {
  Graph g = hiremate::testing::two_layer(/*f2_overhead=*/7);
  hierarchy::ClusterProblem cg = hierarchy::extract(g, cluster_of(g, {compute_id(g, "F2")}));
  hierarchy::Option o = hierarchy::autograd_option(cg);
  const NodeId ag = data_id(g, "ag"), bg = data_id(g, "bg");
  // The forward is one op, F2, during which a and b are both there.
  ASSERT_EQ(o.corrections.fwd.size(), 1u);
  EXPECT_EQ(o.corrections.fwd[0].save, 0);
  EXPECT_EQ(o.corrections.fwd[0].overhead, 7);
  EXPECT_TRUE(o.corrections.fwd[0].not_yet_created.empty());
  EXPECT_TRUE(o.corrections.fwd[0].freed.empty());
  // The backward: before B2, ag does not exist yet; B2 has both; after the frees, both are gone.
  const auto& bwd = o.corrections.bwd;
  ASSERT_GE(bwd.size(), 3u);
  EXPECT_EQ(bwd.front().not_yet_created, std::vector<NodeId>{ag});
  EXPECT_TRUE(bwd.front().freed.empty());
  bool both_present = false;
  for (const auto& c : bwd) both_present |= c.not_yet_created.empty() && c.freed.empty();
  EXPECT_TRUE(both_present);
  EXPECT_EQ(bwd.back().freed, (std::vector<NodeId>{std::min(ag, bg), std::max(ag, bg)}));
  EXPECT_TRUE(bwd.back().not_yet_created.empty());
  // Records are distinct.
  for (size_t i = 0; i < bwd.size(); ++i)
    for (size_t j = i + 1; j < bwd.size(); ++j) EXPECT_FALSE(bwd[i] == bwd[j]);
}

// In the forward half only input and output data cross the boundary, so the parent's view of each op
// (all interface data counted, the recorded absentees subtracted, plus save and overhead) must be
// exactly the simulator's memory during that op on the cluster graph.
TEST(HilpCorrection, ForwardRecordsRebuildTheSimulatedMemory) {
  for (const Graph& g : hiremate::testing::generated_graphs())
    for (const auto& c : hiremate::testing::all_clusters(g)) {
      hierarchy::ClusterProblem cg = hierarchy::extract(g, c);
      SCOPED_TRACE(cg.graph.name);
      for (const hierarchy::Option& o : {hierarchy::autograd_option(cg), hierarchy::recompute_all_option(cg)}) {
        int64_t iface = cg.interface.data_bytes(cg.graph);
        std::set<int64_t> from_records, simulated;
        for (const auto& r : o.corrections.fwd) {
          int64_t absent = 0;
          for (NodeId p : r.not_yet_created) absent += g.data[p].bytes;
          for (NodeId p : r.freed) absent += g.data[p].bytes;
          from_records.insert(iface - absent + r.save + r.overhead);
          EXPECT_LE(r.save + r.overhead, o.inner_peak);
          // A forward never frees its inputs (sources here) and creates only output data.
          for (NodeId p : r.not_yet_created)
            EXPECT_TRUE(std::binary_search(c.interface.output_data.begin(), c.interface.output_data.end(), p));
        }
        SimResult full = simulate(cg.graph, hierarchy::cluster_schedule(cg, o));
        for (size_t i = 0; i < o.fwd_ops.size(); ++i) simulated.insert(full.timeline[i].during);
        EXPECT_EQ(from_records, simulated) << o.solver;
        int64_t fwd_max = 0, bwd_max = 0;
        for (const auto& r : o.corrections.fwd) fwd_max = std::max(fwd_max, r.save + r.overhead);
        for (const auto& r : o.corrections.bwd) bwd_max = std::max(bwd_max, r.save + r.overhead);
        EXPECT_EQ(fwd_max, o.mem + o.fwd_overhead) << o.solver;
        EXPECT_LE(bwd_max, o.inner_peak) << o.solver;
        ASSERT_FALSE(o.corrections.bwd.empty());
        // The backward ends with every input grad produced: none is still to be created.
        EXPECT_TRUE(o.corrections.bwd.back().not_yet_created.empty()) << o.solver;
      }
    }
}

}  // namespace
