#include <gtest/gtest.h>

#include <limits>

#include "hiremate/common/error.h"
#include "hiremate/milp/solve.h"
#include "hiremate/schedule/min_budget.h"
#include "hiremate/solvers/checkmate/checkmate.h"
#include "hiremate/solvers/checkmate/stage_model.h"
#include "support/tiny_graphs.h"

using namespace hiremate;

namespace {

// A generic DAG from (size, time, inputs) per node, listed in topological order.
struct Spec {
  int64_t bytes;
  double time;
  std::vector<int> inputs;
};
Graph dag(const std::vector<Spec>& nodes) {
  Graph g;
  g.name = "tiny";
  for (size_t i = 0; i < nodes.size(); ++i) g.add_data("d" + std::to_string(i), DataKind::Data, nodes[i].bytes);
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::vector<NodeId> deps(nodes[i].inputs.begin(), nodes[i].inputs.end());
    g.add_compute("n" + std::to_string(i), ComputeKind::Forward, nodes[i].time, 0, deps, {NodeId(i)});
  }
  g.finalize();
  return g;
}

// Brute force over every schedule of the fixed-order model: stage t computes node t and any subset
// of earlier nodes (in order); data is freed after its last use. The cheapest valid one that fits.
double brute_force(const Graph& g, int64_t budget) {
  const int n = static_cast<int>(g.order.size());
  const int bits = n * (n - 1) / 2;
  double best = std::numeric_limits<double>::infinity();
  for (long mask = 0; mask < (1L << bits); ++mask) {
    std::vector<Op> ops;
    int bit = 0;
    for (int t = 0; t < n; ++t) {
      for (int i = 0; i < t; ++i, ++bit)
        if (mask >> bit & 1) ops.push_back(Op::compute(g.order[i]));
      ops.push_back(Op::compute(g.order[t]));
    }
    SimResult r = simulate(g, insert_frees(g, ops));
    if (r.valid && r.peak <= budget) best = std::min(best, r.time);
  }
  return best;
}

void expect_optimal_equals_brute_force(const Graph& g) {
  CheckmateSolver solver;
  Baseline base = baseline(g);
  int64_t floor_budget = min_budget(g);
  double previous = std::numeric_limits<double>::infinity();
  for (int64_t budget = floor_budget; budget <= base.peak; ++budget) {
    double expected = brute_force(g, budget);
    Plan p = solve_checked(solver, g, budget, {});
    if (expected == std::numeric_limits<double>::infinity()) {
      EXPECT_EQ(p.status, PlanStatus::Infeasible) << "budget " << budget;
      continue;
    }
    ASSERT_EQ(p.status, PlanStatus::Optimal) << "budget " << budget << ": " << p.note;
    EXPECT_TRUE(p.sim.valid);
    EXPECT_LE(p.sim.peak, budget);
    EXPECT_DOUBLE_EQ(p.sim.time, expected) << "budget " << budget;
    EXPECT_LE(p.sim.time, previous) << "the time grew with the budget at " << budget;
    previous = p.sim.time;
  }
}

}  // namespace

TEST(Checkmate, ChainEqualsBruteForceAtEveryBudget) {
  expect_optimal_equals_brute_force(dag({{2, 1, {}}, {3, 2, {0}}, {1, 1, {1}}, {2, 3, {2}}, {1, 1, {3}}, {2, 1, {4}}}));
}

TEST(Checkmate, DiamondEqualsBruteForce) { expect_optimal_equals_brute_force(hiremate::testing::diamond()); }

TEST(Checkmate, SkipConnectionsEqualBruteForce) {
  // 0 feeds 1 and 5; 2 feeds 3 and 5: long-lived values compete with recomputation.
  expect_optimal_equals_brute_force(
      dag({{3, 2, {}}, {1, 1, {0}}, {4, 3, {1}}, {1, 1, {2}}, {2, 1, {3}}, {1, 1, {0, 2, 4}}}));
}

// Wide fan-out and long-lived values: the usefulness, free-once and knapsack rows (and the frees they
// remove) must leave the optimum of the fixed-order model unchanged at every budget.
TEST(Checkmate, FanOutEqualsBruteForce) {
  expect_optimal_equals_brute_force(
      dag({{4, 3, {}}, {2, 1, {0}}, {3, 2, {0}}, {1, 4, {1, 2}}, {5, 1, {0, 3}}, {2, 2, {1, 2, 4}}}));
}

TEST(Checkmate, TwoSourcesAndZeroCostNodesEqualBruteForce) {
  expect_optimal_equals_brute_force(
      dag({{3, 0, {}}, {2, 5, {}}, {4, 1, {0}}, {1, 0, {1, 2}}, {3, 2, {0, 1}}, {2, 1, {3, 4}}}));
}

// The lazy relaxation that the driver solves first: its bound never exceeds the optimum, and when it
// claims optimality its last plan is the optimum (the brute-force tests above go through the whole
// driver, where it usually decides). The full model alone must reach the same optimum.
TEST(Checkmate, LazyRelaxationBoundsTheOptimum) {
  for (const Graph& g : {dag({{4, 3, {}}, {2, 1, {0}}, {3, 2, {0}}, {1, 4, {1, 2}}, {5, 1, {0, 3}}, {2, 2, {1, 2, 4}}}),
                         dag({{3, 2, {}}, {1, 1, {0}}, {4, 3, {1}}, {1, 1, {2}}, {2, 1, {3}}, {1, 1, {0, 2, 4}}})}) {
    Baseline base = baseline(g);
    for (int64_t budget = min_budget(g); budget <= base.peak; ++budget) {
      checkmate::StageModel m = checkmate::build_dag_model(g, budget);
      ASSERT_TRUE(static_cast<bool>(m.lazy));
      milp::Options o;
      o.relative_gap = 0;
      checkmate::LazyOutcome lo = m.lazy(30, o, false);
      milp::Result full = milp::solve(m.model, o);  // the model itself, with every row
      double expected = brute_force(g, budget);
      if (expected == std::numeric_limits<double>::infinity()) {
        EXPECT_TRUE(lo.infeasible || !lo.optimal) << "budget " << budget;
        EXPECT_EQ(full.status, milp::Status::Infeasible) << "budget " << budget;
        continue;
      }
      ASSERT_EQ(full.status, milp::Status::Optimal) << "budget " << budget;
      EXPECT_DOUBLE_EQ(full.objective, expected) << "budget " << budget;
      ASSERT_FALSE(lo.infeasible) << "budget " << budget;
      ASSERT_TRUE(lo.bound.has_value()) << "budget " << budget;
      EXPECT_LE(*lo.bound, expected + 1e-9) << "budget " << budget;
      ASSERT_FALSE(lo.plans.empty()) << "budget " << budget;
      if (lo.optimal) {
        SimResult r = simulate(g, insert_frees(g, lo.plans.back()));
        EXPECT_TRUE(r.valid && r.peak <= budget) << "budget " << budget;
        EXPECT_DOUBLE_EQ(r.time, expected) << "budget " << budget;
      }
    }
  }
}

TEST(Checkmate, BelowTheFloorIsInfeasibleWithTheSmallestBudget) {
  Graph g = hiremate::testing::diamond();
  CheckmateSolver solver;
  Plan p = solve_checked(solver, g, min_budget(g) - 1, {});
  EXPECT_EQ(p.status, PlanStatus::Infeasible);
  EXPECT_NE(p.note.find(std::to_string(min_budget(g))), std::string::npos) << p.note;
}

TEST(Checkmate, SaveBudgetOnAGenericDagIsBadInput) {
  Graph g = hiremate::testing::diamond();
  CheckmateSolver solver;
  SolveOptions opt;
  opt.save_budget = 5;
  EXPECT_THROW(solve_checked(solver, g, 100, opt), BadInput);
}
