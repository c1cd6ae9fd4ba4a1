// The hierarchical planner end to end: valid plans under budget, close to the flat optimum on graphs
// small enough to prove it, and a cost that does not grow with the number of identical layers.
#include "hiremate/planner/planner.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "hiremate/common/error.h"

#include <cmath>
#include <optional>
#include <vector>

#include "hiremate/planner/registry.h"
#include "hiremate/schedule/min_budget.h"
#include "hiremate/solvers/checkmate/checkmate.h"
#include "support/small_models.h"

using namespace hiremate;

namespace {

double overhead_points(const Plan& p, double base) { return 100.0 * (p.sim.time - base) / base; }

// The target: the H-ILP planner within 1 point of the flat optimum.
constexpr double kTargetPoints = 1.0;
// The flat reference's search is cut at this many branch-and-bound nodes (a deterministic cut), so
// that a cut reference is a bound, the same everywhere (within the test's 90 s ceiling).
constexpr int64_t kReferenceNodes = 20000;

// Where the H-ILP alone is known to miss that target (measured gaps in the tests' comments): the test
// prints it as a known failure with its gap (also a test property, "hilp_gap_points", in ctest's
// XML) and asserts nothing of the H-ILP alone there (a guard at "the measured gap plus a margin" let
// any regression inside the margin pass); the hiremate preset must meet the target there.
struct KnownGap {
  const char* why = "";
};

// At 90 / 70 / 50 % of the activations (or `fractions`): the planner's plan is valid and under
// budget and is compared with the flat solver at every budget, none skipped: against its optimum
// where it proves one, otherwise against its lower bound (a plan within 1 point of the bound is within
// 1 point of the optimum). The H-ILP alone is asserted within the 1-point target of a proven optimum
// (or, for a known gap, within its guard); where it is more than 1 point above the reference, the
// `hiremate` preset (on graphs this small its top also runs the flat MILP) is asserted within 1
// point. Prints each gap and the counts; every budget must be compared.
void expect_close_to_flat(const Graph& g, std::optional<KnownGap> known = std::nullopt,
                          std::vector<double> fractions = {0.9, 0.7, 0.5}) {
  const Baseline b = baseline(g);
  int compared = 0, to_optimum = 0, to_bound = 0, no_plan = 0;
  for (double f : fractions) {
    const int64_t budget = hiremate::testing::activation_budget(g, f);
    SCOPED_TRACE(g.name + " at " + std::to_string(f));
    // The levels get time enough that no solve is cut (the result must not depend on the load).
    SolveOptions so;
    so.time_limit = 300;
    planner::PlannerOptions po;
    po.top_time_limit = 10;  // small tops prove their optimum in seconds
    planner::PlannerReport rep;
    Plan h = planner::plan(g, budget, so, po, &rep);
    EXPECT_EQ(rep.rejected, 0);
    if (budget < min_budget(g)) {
      EXPECT_FALSE(h.has_schedule);
      EXPECT_EQ(h.status, PlanStatus::Infeasible);
      ++no_plan, ++compared;
      continue;
    }
    // The reference should mean the same on any machine: CBC's search is cut by a node count (its
    // threads run in CBC's repeatable mode), with 90 s as a ceiling that only an overloaded machine
    // reaches first (a 200,000-node cut took 967 s on the tiny encoder-decoder: too long for
    // `make test`). At 50 % one CBC thread proves sooner than two (transformer-2: 34 s with one, not
    // in 60 s with two).
    so.time_limit = 90;
    so.threads = f < 0.6 ? 1 : 2;
    so.cbc_parameters = {{"maxNodes", std::to_string(kReferenceNodes)}};
    Plan flat = solve_checked(CheckmateSolver(), g, budget, so);
    if (!h.has_schedule) {
      EXPECT_FALSE(flat.has_schedule) << "the flat solver found a plan, the planner none: " << h.note;
      ++no_plan, ++compared;
      continue;
    }
    SimResult r = simulate(g, h.schedule);
    ASSERT_TRUE(r.valid) << r.reason;
    EXPECT_LE(r.peak, budget);
    h.sim = r;
    // Optimal in RK-Checkmate's model: the H-ILP's plans are in that model too (the graph's order).
    const bool proven = optimal_in_model(flat);
    // Without an optimum or a bound there is nothing to compare with: a failure, not a skip.
    ASSERT_TRUE(proven || flat.bound) << "the flat solver neither proved nor bounded in " << kReferenceNodes
                                      << " nodes: " << flat.note;
    // The model's bound where checkmate has one of its own (a graph with other orders: the H-ILP's
    // plans, in that model too, are compared with it), else its bound.
    const double flat_bound = flat.model_bound ? *flat.model_bound : flat.bound.value_or(0);
    const double reference = proven ? overhead_points(flat, b.time) : 100.0 * (flat_bound - b.time) / b.time;
    const char* what = proven ? "flat optimum" : "flat bound";
    const double gap = overhead_points(h, b.time) - reference;
    ++compared;
    ++(proven ? to_optimum : to_bound);
    std::printf("  %-24s %3.0f %%: H-ILP %.3f %%, %s %.3f %%%s, gap %+.3f points\n", g.name.c_str(), 100 * f,
                overhead_points(h, b.time), what, reference,
                proven || !flat.has_schedule ? "" : fmt::format(" (best {:.3f} % in {} nodes)", overhead_points(flat, b.time), kReferenceNodes).c_str(),
                gap);
    if (proven) {
      if (known && gap > kTargetPoints) {
        std::printf("  KNOWN FAILURE %s at %.0f %%: the H-ILP alone is %+.3f points from the optimum, over the "
                    "%.0f-point target (%s)\n", g.name.c_str(), 100 * f, gap, kTargetPoints, known->why);
        ::testing::Test::RecordProperty("hilp_gap_points_at_" + std::to_string(static_cast<int>(100 * f)),
                                        fmt::format("{:.3f}", gap));
      } else {
        EXPECT_LE(gap, kTargetPoints);
      }
    }
    if (gap <= kTargetPoints) continue;
    SolveOptions ho;
    ho.time_limit = 60;
    Plan hm = solve_checked(*make_solver("hiremate"), g, budget, ho);
    ASSERT_TRUE(hm.has_schedule) << hm.note;
    EXPECT_LE(hm.sim.peak, budget);
    const double hgap = overhead_points(hm, b.time) - reference;
    std::printf("  %-24s %3.0f %%: hiremate %.3f %%, gap %+.3f points to the %s (%s)\n", g.name.c_str(), 100 * f,
                overhead_points(hm, b.time), hgap, what, hm.note.c_str());
    EXPECT_LE(hgap, kTargetPoints);
  }
  std::printf("  %-24s compared %d of %zu budgets: %d to the optimum, %d to the bound, %d without a plan\n",
              g.name.c_str(), compared, fractions.size(), to_optimum, to_bound, no_plan);
  EXPECT_EQ(compared, static_cast<int>(fractions.size()));
}

// The tests about the top: a small grid whose level solves no time cuts (the levels are the same
// in every run), the top within `top_seconds`, no TW-Remat beside it, no small top model.
planner::PlannerOptions small_grid(double top_seconds) {
  planner::PlannerOptions po;
  po.peak_points = 3;
  po.max_saves = 4;
  po.top_small_options = 0;
  po.top_time_limit = top_seconds;
  po.twremat_at_top = false;
  return po;
}

// The planner's plan with its simulation (no limit that cuts the levels).
Plan plan_simulated(const Graph& g, int64_t budget, const planner::PlannerOptions& po, planner::PlannerReport& rep) {
  SolveOptions so;
  so.time_limit = 300;
  Plan p = planner::plan(g, budget, so, po, &rep);
  if (p.has_schedule) p.sim = simulate(g, p.schedule);
  return p;
}

// The checks every A/B of two planner runs starts with: both have a plan, the first (the variant the
// test is about) is valid and under budget, and the simulator refused nothing in either run.
void expect_both_planned(const Plan& a, const Plan& b, const planner::PlannerReport& ra,
                         const planner::PlannerReport& rb, int64_t budget) {
  ASSERT_TRUE(a.has_schedule) << a.note;
  ASSERT_TRUE(b.has_schedule) << b.note;
  ASSERT_TRUE(a.sim.valid) << a.sim.reason;
  EXPECT_LE(a.sim.peak, budget);
  EXPECT_EQ(ra.rejected + rb.rejected, 0);
}

}  // namespace

TEST(Planner, CloseToTheFlatOptimumOnAChain) { expect_close_to_flat(hiremate::testing::small_chain(10)); }

TEST(Planner, CloseToTheFlatOptimumOnAUNet) { expect_close_to_flat(hiremate::testing::small_unet()); }

// At 50 % the H-ILP alone measured 8.964 % against the flat optimum's 7.636 % (1.33 points); the
// hiremate preset reaches 7.70 % with 60 s.
TEST(Planner, CloseToTheFlatOptimumOnATwoLayerTransformer) {
  expect_close_to_flat(generate::transformer(hiremate::testing::small_transformer(2)),
                       KnownGap{"measured 1.33 points at 50 %"});
}

// The H-ILP alone is behind the 1-point target at 70 %: 2.98 % against the flat optimum's 1.05 %
// (1.93 points). The memory (the encoder's output) is read by every decoder layer's cross-attention,
// an interface the levels below cannot free or recompute: what the options can offer is coarser
// than what the flat MILP does: a known failure of the H-ILP alone; the hiremate preset is asserted
// within 1 point there (measured: 1.049 %, gap +0.000). Not at 50 %: CBC bounds this size poorly
// there (after 1,529 s with one thread: best 6.733 %, bound 6.047 %, and the hiremate preset's 7.45 %
// in 60 s cannot be shown within 1 point); the smaller encoder-decoder below is.
TEST(Planner, CloseToTheFlatOptimumOnASmallEncoderDecoder) {
  expect_close_to_flat(generate::encoder_decoder(hiremate::testing::small_transformer(1)),
                       KnownGap{"measured 1.93 points at 70 %: the memory read by every cross-attention"},
                       {0.9, 0.7});
}

// The same graph with smaller tensors, which the flat MILP bounds at 50 %. The H-ILP alone was 3.51
// points behind the optimum at 70 % (5.382 % against 1.867 %; at the optimum since 8c4f566) and is
// 4.0 points above the bound at 50 % (10.653 % against 6.645 % at 8c4f566); the hiremate preset, whose
// top runs the flat MILP beside the hierarchy on graphs this small, was measured 0.33 points above the
// bound (6.974 %) at 50 %.
TEST(Planner, CloseToTheFlatOptimumOnATinyEncoderDecoder) {
  expect_close_to_flat(hiremate::testing::tiny_encoder_decoder(),
                       KnownGap{"measured 3.51 points at 70 %: the memory read by every cross-attention"});
}

TEST(Planner, IdenticalLayersAreSolvedOnce) {
  // Copies of a cluster are never solved, and with the sequence partitioner (cut at the forward
  // graph's cutting points, as HiRemate does for a chain of layers) the tree does not deepen with
  // the layers: the same representatives and the same number of H-ILP solves below the top at 8 and
  // 16 layers (measured: 2 representatives, 21 solves; also at 32 layers). bottom_to_top alone, which
  // groups layers when the top would exceed its bound, adds one class per doubling (3 / 4 / 5 at
  // 8 / 16 / 32 layers).
  std::vector<planner::PlannerReport> reps;
  for (int layers : {8, 16}) {
    Graph g = generate::transformer(hiremate::testing::small_transformer(layers));
    planner::PlannerReport rep;
    SolveOptions so;
    so.time_limit = 300;  // generous: no solve may be cut by time, or the counts would depend on the load
    planner::PlannerOptions po;
    po.partitioners = {"sequence"};
    po.peak_points = 3;
    po.max_saves = 4;
    po.top_time_limit = 5;  // the top is not what this test is about
    Plan p = planner::plan(g, hiremate::testing::activation_budget(g, 0.6), so, po, &rep);
    ASSERT_TRUE(p.has_schedule) << p.note;
    EXPECT_EQ(rep.rejected, 0);
    reps.push_back(rep);
  }
  EXPECT_GT(reps[0].hilp_solves - reps[0].top_solves, 0);
  EXPECT_EQ(reps[1].solved.size(), reps[0].solved.size());
  EXPECT_EQ(reps[1].hilp_solves - reps[1].top_solves, reps[0].hilp_solves - reps[0].top_solves);
  EXPECT_LT(reps[1].solved.size() * 3, reps[1].clusters);  // most clusters are copies, not solved
}

// PlannerOptions::reuse_grid_decisions: a grid point whose budgets an earlier optimal solve's plan
// fits (or that budgets proven infeasible contain) is not solved; on a small transformer, whose
// clusters' parts are single units (their models nest exactly), that loses nothing: the plan is as
// fast as with every point solved, from fewer solves below the top.
TEST(Planner, GridPointsAnEarlierSolveDecidesAreNotSolvedAgain) {
  Graph g = generate::transformer(hiremate::testing::small_transformer(4));
  const int64_t budget = hiremate::testing::activation_budget(g, 0.5);
  auto run = [&](bool reuse, planner::PlannerReport& rep) {
    planner::PlannerOptions po = small_grid(2);
    po.peak_points = 6;
    po.reuse_grid_decisions = reuse;
    return plan_simulated(g, budget, po, rep);
  };
  planner::PlannerReport with_rep, without_rep;
  const Plan with = run(true, with_rep), without = run(false, without_rep);
  ASSERT_NO_FATAL_FAILURE(expect_both_planned(with, without, with_rep, without_rep, budget));
  int reused = 0, reused_without = 0;
  for (const auto& c : with_rep.solved) reused += c.reused;
  for (const auto& c : without_rep.solved) reused_without += c.reused;
  const int below = with_rep.hilp_solves - with_rep.top_solves;
  const int below_without = without_rep.hilp_solves - without_rep.top_solves;
  std::printf("  solves below the top %d -> %d (%d points decided by earlier solves), time %.6g -> %.6g\n",
              below_without, below, reused, without.sim.time, with.sim.time);
  EXPECT_EQ(reused_without, 0);
  EXPECT_GT(reused, 0);
  EXPECT_LT(below, below_without);
  EXPECT_LE(with.sim.time, without.sim.time * (1 + 1e-9));
}

TEST(Planner, TheTopGrowsItsOptionsWhileCbcProvesThemOptimal) {
  // With 4 options in all at the top, CBC proves the top's model optimal at once; with
  // top_options_growth it is solved again with 8, 16, ... options while the quotas grow, and the
  // plan is no slower than the one from 4 (the race keeps the best; the levels are the same, no solve
  // cut by time).
  Graph g = generate::transformer(hiremate::testing::small_transformer(8));
  const int64_t budget = hiremate::testing::activation_budget(g, 0.5);
  auto run = [&](double growth, planner::PlannerReport& rep) {
    planner::PlannerOptions po = small_grid(60);
    po.total_options = 4;
    po.top_persistent_share = 0;
    po.top_options_growth = growth;
    return plan_simulated(g, budget, po, rep);
  };
  planner::PlannerReport grown, fixed;
  const Plan a = run(2, grown), b = run(1, fixed);
  ASSERT_NO_FATAL_FAILURE(expect_both_planned(a, b, grown, fixed, budget));
  EXPECT_EQ(fixed.top_solves, 1);
  EXPECT_GT(grown.top_solves, 1);
  EXPECT_LE(a.sim.time, b.sim.time * (1 + 1e-9));
  std::printf("  top solves %d -> %d (%d optimal), time %.6g -> %.6g (%s -> %s)\n", fixed.top_solves,
              grown.top_solves, grown.top.optimal, b.sim.time, a.sim.time, fixed.winner.c_str(), grown.winner.c_str());
}

// The top's constructive plan over the root's flat partitioning (PlannerOptions::
// top_flat_persistent_share): on a three-layer transformer at 50 % the root's clusters are coarse, and
// choices per unit reach a faster plan than the H-ILP over their menus (hilp, 30 s: 9.83 -> 8.66 %).
// Each run's levels are cut by no time and are the same; the flat plan needs no menu.
TEST(Planner, ThePersistentPlanOverEveryUnitBeatsCoarseMenus) {
  generate::TransformerParams tp;
  tp.layers = 3;
  Graph g = generate::transformer(tp);
  const int64_t budget = hiremate::testing::activation_budget(g, 0.5);
  auto run = [&](double flat_share, planner::PlannerReport& rep) {
    planner::PlannerOptions po = small_grid(5);
    po.top_save_front_points = 0;
    po.top_flat_persistent_share = flat_share;  // an upper bound: its search ends where no exchange is left
    return plan_simulated(g, budget, po, rep);
  };
  planner::PlannerReport with_rep, without_rep;
  const Plan with = run(1.0, with_rep), without = run(0, without_rep);
  ASSERT_NO_FATAL_FAILURE(expect_both_planned(with, without, with_rep, without_rep, budget));
  const double base = baseline(g).time;
  std::printf("  without %.3f %% (%s), with %.3f %% (%s)\n", overhead_points(without, base), without_rep.winner.c_str(),
              overhead_points(with, base), with_rep.winner.c_str());
  EXPECT_LT(overhead_points(with, base), overhead_points(without, base) - 0.5);
  EXPECT_EQ(with_rep.winner.rfind("hilp (flat", 0), 0u) << with_rep.winner;
}

TEST(Planner, RefusesAGenericDagWithAHint) {
  generate::BuildOptions bo;
  bo.training = false;
  generate::ChainParams cp;
  cp.n = 4;
  Graph g = generate::chain(cp, bo);
  try {
    planner::plan(g, baseline(g).peak, {}, {});
    FAIL() << "expected BadInput";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("checkmate"), std::string::npos) << e.what();
  }
}

