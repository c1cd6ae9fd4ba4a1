// The shared stage-MILP builder on a hand-written three-stage problem (a forward writing `a`, the loss
// reading it and writing a grad, the backward reading both), small enough to check by eye: the tables'
// derived facts, the variables it creates, and that the value helpers complete keep-all into an exact
// solution of the rows (they mirror the rows; RK-Checkmate and the H-ILP rely on it for MIP starts).
#include "hiremate/stage_milp/stage_vars.h"

#include <gtest/gtest.h>

#include <vector>

using namespace hiremate;
using stage_milp::kAbsent;

namespace {

// Stage 0: forward writing data 0 (`a`, 2 units); stage 1: the loss, reading `a`, writing a 1-unit grad
// and holding 1 unit while it runs; stage 2: the backward, reading `a` and the grad. One choice each.
stage_milp::StageTables three_stages() {
  stage_milp::StageTables t;
  t.T = 3;
  t.kind = {ComputeKind::Forward, ComputeKind::Loss, ComputeKind::Backward};
  t.data_in = {{}, {0}, {0}};
  t.data_out = {{0}, {}, {}};
  t.out_units = {2, 0, 0};
  t.kept = {{0}, {0}, {0}};
  t.overhead = {{0}, {1}, {0}};
  t.mem = {2};
  t.producer = {0};
  t.users = {{1, 2}};
  t.grads_at_start.assign(t.T + 1, 0);
  t.grads_new.assign(t.T, 0);
  t.add_grad(1, 2, 1);
  t.find_last_need({-1, -1, -1});
  return t;
}

// One run variable per node that can run, "runs once in its own stage", and the need rows: the least
// model the hooks must make.
struct OneChoiceModel : stage_milp::StageVars {
  OneChoiceModel(const stage_milp::StageTables& t, int64_t cap) : StageVars(t, cap) { build(); }
  void add_run_vars(int t) override {
    for (int k = 0; k <= t; ++k) {
      if (k < t && (tab.kind[k] != ComputeKind::Forward || tab.last_need[k] < t)) continue;
      R[t][k] = {model.add_var(milp::VarType::Binary, 0, 1, 1)};
      if (k == t) model.add_row(runs(t, k), 1, 1);
    }
  }
  void add_node_rows(int t, int k, const std::vector<milp::Term>& run) override {
    for (NodeId d : tab.data_in[k]) add_need_row(t, run, d);
    add_no_recompute_rows(t, k, run);
  }
  std::vector<double> keep_all() const {
    std::vector<double> x(model.num_vars(), 0.0);
    for (int t = 0; t < tab.T; ++t) {
      x[R[t][t][0]] = 1;
      keep_all_residency(x, t);
    }
    free_values(x);
    memory_values(x);
    return x;
  }
};

}  // namespace

TEST(StageMilp, TablesDeriveNeedsAndGrads) {
  stage_milp::StageTables t = three_stages();
  EXPECT_EQ(t.last_need, (std::vector<int>{2, 1, 2}));  // the forward feeds the backward
  EXPECT_EQ(t.data_need(0), 2);
  EXPECT_EQ(t.grads_new, (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(t.grads_at_start, (std::vector<int64_t>{0, 0, 1, 0}));
}

TEST(StageMilp, KeepAllCompletedByTheHelpersSolvesTheRowsExactly) {
  stage_milp::StageTables t = three_stages();
  OneChoiceModel m(t, 4);
  // `a` may be resident on entry to stages 1 and 2; the forward may be recomputed in both.
  EXPECT_NE(m.s(1, 0), kAbsent);
  EXPECT_NE(m.s(2, 0), kAbsent);
  EXPECT_EQ(m.s(0, 0), kAbsent);
  EXPECT_FALSE(m.runs(2, 0).empty());
  std::vector<double> x = m.keep_all();
  EXPECT_EQ(x[m.s(1, 0)], 1);
  EXPECT_EQ(x[m.U[0][0]], 2);  // a
  EXPECT_EQ(x[m.U[1][1]], 3);  // a and the new grad
  EXPECT_EQ(x[m.U[2][2]], 3);  // a and the grad from the loss
  EXPECT_EQ(m.model.max_violation(x), 0);
  // The loss holds one more unit while it runs: 3 + 1 does not fit 3.
  OneChoiceModel tight(t, 3);
  EXPECT_GT(tight.model.max_violation(tight.keep_all()), 0);
}
