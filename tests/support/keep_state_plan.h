// A dagremat state (keep_state.h) that fits, checked as the plan it stands for: its compute sequence,
// frees after last use, is valid under the budget, and its time is keep-all's plus the state's
// recomputation.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/dagremat/keep_state.h"
#include "hiremate/solvers/solver.h"

namespace hiremate::testing {

inline void expect_plan_within(const Graph& g, const dagremat::KeepState& s, int64_t budget, const Baseline& keep_all,
                               const std::string& where) {
  EXPECT_EQ(s.excess(), 0) << where;
  const SimResult r = simulate(g, insert_frees(g, s.ops()));
  ASSERT_TRUE(r.valid) << where << ": " << r.reason;
  EXPECT_LE(r.peak, budget) << where;
  EXPECT_NEAR(r.time - keep_all.time, s.recompute_cost(), 1e-6 * keep_all.time) << where;
}

}  // namespace hiremate::testing
