// The chain bound (schedule/chain_bound.h) against plans: never above the proven optimum where the
// graph has a single order (there RK-Checkmate's optimum is the graph's), never above any solver's
// plan where it has several, and above the loss-point bound somewhere (it says more than that one).
#include "hiremate/schedule/chain_bound.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

#include "hiremate/graph/generate.h"
#include "hiremate/schedule/lower_bound.h"
#include "hiremate/solvers/checkmate/checkmate.h"
#include "hiremate/planner/registry.h"
#include "support/small_models.h"

using namespace hiremate;

namespace {

const auto kNever = std::chrono::steady_clock::now() + std::chrono::hours(1);
constexpr int kSteps = 5000;

TEST(ChainBound, NeverAboveTheOptimumOfSingleOrderGraphs) {
  struct Case {
    const char* name;
    Graph g;
  };
  std::vector<Case> cases{{"chain-10", hiremate::testing::small_chain(10)}, {"unet-2x1", hiremate::testing::small_unet()}};
  int compared = 0, above_loss_point = 0;
  for (auto& [name, g] : cases) {
    ASSERT_TRUE(order_is_forced(g)) << name;
    const double keep_all = baseline(g).time;
    for (double fraction : {0.9, 0.7, 0.5, 0.4}) {
      const int64_t budget = hiremate::testing::activation_budget(g, fraction);
      SolveOptions o;
      o.time_limit = 120;  // proven in seconds; the limit only guards a stuck CBC
      o.threads = 1;
      const Plan p = solve_checked(CheckmateSolver(), g, budget, o);
      const auto cb = chain_bound(g, budget, kSteps, kNever);
      if (!p.has_schedule) {
        EXPECT_EQ(p.status, PlanStatus::Infeasible) << name << " at " << fraction;
        continue;
      }
      ASSERT_EQ(p.status, PlanStatus::Optimal) << name << " at " << fraction << ": " << p.note;
      ASSERT_TRUE(cb.has_value()) << name << " at " << fraction;
      EXPECT_GE(cb->time, keep_all * (1 - 1e-12));
      EXPECT_LE(cb->time, p.sim.time * (1 + 1e-9)) << name << " at " << fraction;
      const auto lp = loss_point_bound(g, budget);
      above_loss_point += lp && cb->time > lp->time * (1 + 1e-9);
      ++compared;
      std::printf("  %s at %.0f %%: optimum +%.3f %%, chain bound +%.3f %% (%d moments, %d items), loss point +%.3f %%\n",
                  name, 100 * fraction, 100 * (p.sim.time / keep_all - 1), 100 * (cb->time / keep_all - 1), cb->moments,
                  cb->items, lp ? 100 * (lp->time / keep_all - 1) : -1.0);
    }
  }
  EXPECT_GE(compared, 6);
  EXPECT_GT(above_loss_point, 0) << "the chain bound never says more than the loss-point bound";
}

// Graphs with several orders: the bound holds for every schedule, so under every solver's plan,
// including TW-Remat's where it reorders past RK-Checkmate's optimum over the graph's order.
TEST(ChainBound, NeverAboveAnySolversPlanWhereTheOrderIsFree) {
  std::vector<std::pair<std::string, Graph>> cases;
  cases.emplace_back("transformer-1", generate::transformer(hiremate::testing::small_transformer(1)));
  cases.emplace_back("encoder-decoder", hiremate::testing::tiny_encoder_decoder());
  for (uint64_t seed : {21u, 3u, 7u}) {
    generate::RandomLayeredParams rp;
    rp.nodes = 12;
    rp.seed = seed;
    cases.emplace_back("random-12-s" + std::to_string(seed), generate::random_layered(rp));
  }
  int compared = 0;
  for (auto& [name, g] : cases) {
    for (double fraction : {0.99, 0.8, 0.6, 0.45}) {  // checkmate proves these in seconds
      const int64_t budget = hiremate::testing::activation_budget(g, fraction);
      const auto cb = chain_bound(g, budget, kSteps, kNever);
      SolveOptions o;
      o.time_limit = 10;
      o.threads = 1;
      for (const char* solver : {"checkmate", "twremat"}) {
        const Plan p = solve_checked(*make_solver(solver), g, budget, o);
        if (!p.has_schedule) continue;
        ASSERT_TRUE(cb.has_value()) << name << " at " << fraction << ": " << solver << " has a plan";
        EXPECT_LE(cb->time, p.sim.time * (1 + 1e-9)) << name << " at " << fraction << ": " << solver;
        ++compared;
      }
    }
  }
  EXPECT_GE(compared, 20);
}

// Every topological order of small random training graphs (up to kMaxOrders of them): the graph's
// optimum is the least of RK-Checkmate's optima over the orders (its stages fix the order of first
// computations), and both bounds lie under it.
TEST(ChainBound, NeverAboveTheOptimumOverEveryOrder) {
  constexpr size_t kMaxOrders = 150;
  int compared = 0, several_orders = 0, above_loss_point = 0;
  for (uint64_t seed : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u}) {
    generate::RandomLayeredParams rp;
    rp.nodes = 5;
    rp.seed = seed;
    const Graph g = generate::random_layered(rp);
    // The orders, depth first over the nodes whose inputs' producers have all run.
    std::vector<std::vector<NodeId>> orders;
    std::vector<NodeId> prefix;
    std::vector<char> done(g.compute.size(), 0);
    std::function<void()> extend = [&] {
      if (orders.size() > kMaxOrders) return;
      if (prefix.size() == g.compute.size()) {
        orders.push_back(prefix);
        return;
      }
      for (NodeId c = 0; c < static_cast<NodeId>(g.compute.size()); ++c) {
        if (done[c]) continue;
        bool ready = true;
        for (NodeId d : g.compute[c].deps)
          for (NodeId p : g.data[d].producers) ready = ready && (done[p] || p == c);
        if (!ready) continue;
        done[c] = 1;
        prefix.push_back(c);
        extend();
        prefix.pop_back();
        done[c] = 0;
      }
    };
    extend();
    if (orders.size() > kMaxOrders) continue;  // too many to solve here
    several_orders += orders.size() > 1;
    for (double fraction : {0.95, 0.85, 0.75, 0.65, 0.55}) {
      const int64_t budget = hiremate::testing::activation_budget(g, fraction);
      double optimum = std::numeric_limits<double>::infinity();
      bool proven = true;
      for (const auto& order : orders) {
        Graph in_order = g;
        in_order.order = order;
        SolveOptions o;
        o.time_limit = 20;
        o.threads = 1;
        const Plan p = solve_checked(CheckmateSolver(), in_order, budget, o);
        proven = proven && (optimal_in_model(p) || p.status == PlanStatus::Infeasible || !p.has_schedule);
        if (p.has_schedule) optimum = std::min(optimum, p.sim.time);
      }
      if (!std::isfinite(optimum)) continue;
      ASSERT_TRUE(proven) << "seed " << seed << " at " << fraction;
      const auto cb = chain_bound(g, budget, kSteps, kNever);
      ASSERT_TRUE(cb.has_value());
      EXPECT_LE(cb->time, optimum * (1 + 1e-9)) << "seed " << seed << " at " << fraction;
      const auto lp = loss_point_bound(g, budget);
      if (lp) EXPECT_LE(lp->time, optimum * (1 + 1e-9)) << "seed " << seed << " at " << fraction;
      above_loss_point += lp && cb->time > lp->time * (1 + 1e-9);
      ++compared;
      std::printf("  random-5-s%llu (%zu orders) at %.0f %%: optimum %g, chain bound %g, loss point %g\n",
                  static_cast<unsigned long long>(seed), orders.size(), 100 * fraction, optimum, cb->time,
                  lp ? lp->time : -1.0);
    }
  }
  std::printf("  %d budgets compared on graphs with up to %zu orders (%d graphs with several); the chain bound "
              "above the loss-point one in %d\n",
              compared, kMaxOrders, several_orders, above_loss_point);
  EXPECT_GE(compared, 12);
  EXPECT_GE(several_orders, 4);
  EXPECT_GT(above_loss_point, 0);
}

TEST(ChainBound, KeepAllTimeWhereKeepAllFitsAndNoneBelowAChainNodesOwnNeeds) {
  Graph g = hiremate::testing::small_chain(6);
  const auto at_peak = chain_bound(g, baseline(g).peak, kSteps, kNever);
  ASSERT_TRUE(at_peak.has_value());
  EXPECT_EQ(at_peak->recompute, 0);
  EXPECT_EQ(at_peak->iterations, 0);
  EXPECT_FALSE(chain_bound(g, g.source_bytes(), kSteps, kNever).has_value());
}

}  // namespace
