// The retention greedy (retention_greedy.h): drops with input holds and small recomputed cones,
// dagremat's first start on dense DAGs; KeepState::set_inert, its fast path; drop_coverage, its gate.
#include "hiremate/solvers/dagremat/retention_greedy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "hiremate/schedule/min_budget.h"
#include "hiremate/solvers/solver.h"
#include "support/keep_state_plan.h"
#include "support/small_models.h"

using namespace hiremate;
using namespace hiremate::dagremat;

namespace {

using hiremate::testing::layered;

const auto kNever = Clock::now() + std::chrono::hours(1);

// Every stage's peak and cost equal to a state that evaluates every stage from the same decisions.
void expect_consistent(const StageDag& dag, const KeepState& s, const char* where) {
  KeepState fresh(dag, s.cap());
  fresh.assign(s.decisions());
  for (int t = 0; t < dag.n; ++t) {
    ASSERT_EQ(fresh.stage_peak(t), s.stage_peak(t)) << where << ": stage " << t;
    ASSERT_NEAR(fresh.stage_cost(t), s.stage_cost(t), 1e-9) << where << ": stage " << t;
  }
  EXPECT_EQ(fresh.excess(), s.excess()) << where;
}

}  // namespace

// Where it fits, the state's compute sequence is a valid schedule under the budget whose time is the
// state's, and the peaks it updated without evaluating (set_inert) are those a full evaluation gives.
// At depth 0 every drop recomputes its value alone (its time per drop); deeper, at most what the
// drops counted, never a cone it did not count (nothing undone).
TEST(RetentionGreedy, FittingStatesAreValidPlans) {
  for (int depth : {0, 2}) {
    SCOPED_TRACE("depth " + std::to_string(depth));
    RetentionOptions opt;
    opt.depth = depth;
    int fitted = 0, tried = 0;
    for (uint64_t seed : {1, 2, 3}) {
      Graph g = layered(200, 0.47, seed);  // dense: about 10 edges per node
      const Baseline b = baseline(g);
      StageDag dag(g);
      for (double f : {0.95, 0.9, 0.85, 0.8}) {
        const int64_t budget = static_cast<int64_t>(f * static_cast<double>(b.peak));
        if (budget < min_budget(g)) continue;
        ++tried;
        KeepState s(dag, budget - dag.sources);
        RetentionStats st;
        const bool fits = retention_greedy(s, kNever, opt, &st);
        expect_consistent(dag, s, "after the greedy");
        // The dropped gaps' values' own time: all of the recomputation at depth 0, part of it deeper.
        double own = 0;
        for (size_t gi = 0; gi < dag.gaps.size(); ++gi)
          if (!dag.gaps[gi].tail && !s.kept(static_cast<int>(gi))) own += dag.cost[dag.gaps[gi].value];
        if (depth == 0) EXPECT_NEAR(s.recompute_cost(), own, 1e-9 * b.time) << "seed " << seed << " at " << f;
        else EXPECT_GE(s.recompute_cost(), own - 1e-9 * b.time) << "seed " << seed << " at " << f;
        EXPECT_EQ(st.undone, 0);
        if (!fits) continue;
        ++fitted;
        hiremate::testing::expect_plan_within(g, s, budget, b, "seed " + std::to_string(seed) + " at " + std::to_string(f));
      }
    }
    EXPECT_GE(fitted, tried / 2) << fitted << " of " << tried;
  }
}

// Recomputing gone inputs with the value reaches budgets that holding them cannot: on issue 23's
// 2,000-node dense DAG at 80 % depth 2 fits (with at least one drop that recomputes an input) where
// one-op drops stay above the cap.
TEST(RetentionGreedy, RecomputedInputsReachLowerBudgets) {
  Graph g = layered(2000, 0.49, 1);
  const Baseline b = baseline(g);
  StageDag dag(g);
  const int64_t cap = static_cast<int64_t>(0.8 * static_cast<double>(b.peak)) - dag.sources;
  KeepState one_op(dag, cap), deeper(dag, cap);
  RetentionOptions opt;
  opt.depth = 0;
  EXPECT_FALSE(retention_greedy(one_op, kNever, opt));
  opt.depth = 2;
  ASSERT_TRUE(retention_greedy(deeper, kNever, opt));
  double own = 0;
  for (size_t gi = 0; gi < dag.gaps.size(); ++gi)
    if (!dag.gaps[gi].tail && !deeper.kept(static_cast<int>(gi))) own += dag.cost[dag.gaps[gi].value];
  EXPECT_GT(deeper.recompute_cost(), own) << "no drop recomputed an input";
  hiremate::testing::expect_plan_within(g, deeper, static_cast<int64_t>(0.8 * static_cast<double>(b.peak)), b,
                                        "2,000 nodes at 80 %");
}

// set_inert on the greedy's kind of move (a drop whose value nothing reads inside it, recomputed from
// resident inputs; a hold of a value past its last read) gives what set gives.
TEST(RetentionGreedy, InertMovesMatchEvaluatedOnes) {
  Graph g = layered(120, 0.47, 5);
  StageDag dag(g);
  const int64_t cap = baseline(g).peak;  // the peaks are compared, not fitted
  KeepState inert(dag, cap), evaluated(dag, cap);
  int drops = 0, holds = 0;
  for (int v = 0; v < dag.n && drops < 40; ++v) {
    for (int gi = dag.first_gap[v]; gi < dag.first_gap[v + 1]; ++gi) {
      const Gap& gap = dag.gaps[gi];
      if (gap.tail) {
        // Held on for a few stages past the last read.
        const int hold = std::min(dag.n - 1, gap.lo + 3);
        if (hold <= gap.lo) continue;
        inert.set_inert(gi, hold, gap.hi);
        evaluated.set(gi, hold, gap.hi);
        ++holds;
        continue;
      }
      if (gap.hi - gap.lo < 2 || (gi + v) % 3 != 0) continue;
      bool inputs = true;  // resident at the read in both: the drop is one op
      for (int w : dag.pred[v]) inputs = inputs && inert.resident(w, gap.hi);
      if (!inputs) continue;
      inert.set_inert(gi, gap.lo, gap.hi);
      evaluated.set(gi, gap.lo, gap.hi);
      ++drops;
    }
  }
  ASSERT_GT(drops, 5);
  ASSERT_GT(holds, 5);
  for (int t = 0; t < dag.n; ++t) {
    ASSERT_EQ(inert.stage_peak(t), evaluated.stage_peak(t)) << "stage " << t;
    ASSERT_NEAR(inert.stage_cost(t), evaluated.stage_cost(t), 1e-9) << "stage " << t;
  }
  // And a rollback undoes them.
  const size_t mark = inert.mark();
  const int gi = dag.first_gap[0];
  inert.set_inert(gi, dag.gaps[gi].lo, dag.gaps[gi].lo);
  inert.rollback(mark);
  for (int t = 0; t < dag.n; ++t) ASSERT_EQ(inert.stage_peak(t), evaluated.stage_peak(t)) << "stage " << t;
}

// The gate: all of the excess where nothing exceeds, and less where the inputs of held values die
// early; recomputing a level of gone inputs relieves at least as much as one-op drops.
TEST(RetentionGreedy, DropCoverage) {
  Graph g = layered(200, 0.47, 1);
  StageDag dag(g);
  const Baseline b = baseline(g);
  EXPECT_EQ(drop_coverage(KeepState(dag, b.peak), 0), 1.0);
  const KeepState at90(dag, static_cast<int64_t>(0.9 * static_cast<double>(b.peak)));
  const KeepState at70(dag, static_cast<int64_t>(0.7 * static_cast<double>(b.peak)));
  EXPECT_GT(drop_coverage(at90, 0), 0.0);
  EXPECT_LE(drop_coverage(at90, 0), 1.0);
  EXPECT_LT(drop_coverage(at70, 0), drop_coverage(at90, 0)) << "a lower budget leaves more that only cones or holds relieve";
  EXPECT_GT(drop_coverage(at70, 1), drop_coverage(at70, 0));
  EXPECT_GE(drop_coverage(at70, 2), drop_coverage(at70, 1));
}

// From a state with drops (the budget ladder's rungs): the greedy at a lower cap, started from its
// own fitting state at a higher one, leaves a state whose every stage a fresh evaluation confirms
// (the recomputations of the earlier drops keep their resident inputs), and a valid plan where it fits.
TEST(RetentionGreedy, FromAStateWithDropsTheStateStaysExact) {
  int chained = 0;
  for (uint64_t seed : {1, 2, 3, 4}) {
    Graph g = layered(300, 0.47, seed);
    const Baseline b = baseline(g);
    StageDag dag(g);
    KeepState keep_all(dag, 0);
    const int64_t peak = *std::max_element(keep_all.stage_peaks().begin(), keep_all.stage_peaks().end());
    KeepState high(dag, static_cast<int64_t>(0.9 * static_cast<double>(peak)));
    if (!retention_greedy(high, kNever)) continue;
    for (double f : {0.88, 0.86, 0.84}) {
      KeepState low(dag, static_cast<int64_t>(f * static_cast<double>(peak)));
      low.assign(high.decisions());
      low.commit();
      const bool fits = retention_greedy(low, kNever);
      const std::string where = "seed " + std::to_string(seed) + " at " + std::to_string(f);
      expect_consistent(dag, low, where.c_str());
      if (!fits) break;
      ++chained;
      hiremate::testing::expect_plan_within(g, low, low.cap() + dag.sources, b, where);
      high.assign(low.decisions());
    }
  }
  EXPECT_GE(chained, 4);
}
