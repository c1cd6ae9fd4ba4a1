// The refutation of CBC's "infeasible" by a MIP start (the fix of 0175627), tested without CBC:
// before, only a 1 s solve under load exercised it. A start that holds every row refutes; one that
// breaks a row, a bound or integrality does not; no start never does.
#include "hiremate/milp/start_refutes.h"

#include <gtest/gtest.h>

using namespace hiremate::milp;

namespace {

// x + y <= 1 with binaries x, y, and a continuous z in [0, 2].
Model small() {
  Model m;
  Var x = m.add_var(VarType::Binary, 0, 1, -1);
  Var y = m.add_var(VarType::Binary, 0, 1, -1);
  m.add_var(VarType::Continuous, 0, 2, 0);
  m.add_row({{x, 1}, {y, 1}}, -kInf, 1);
  return m;
}

}  // namespace

TEST(MilpStartRefutes, AStartThatHoldsEveryRowRefutesInfeasible) {
  Model m = small();
  m.set_start({{0, 1.0}});  // y and z unlisted: 0
  EXPECT_EQ(start_refuting_infeasible(m), (std::vector<double>{1, 0, 0}));
}

TEST(MilpStartRefutes, AStartThatBreaksARowABoundOrIntegralityDoesNot) {
  Model m = small();
  m.set_start({{0, 1.0}, {1, 1.0}});  // x + y = 2 > 1
  EXPECT_TRUE(start_refuting_infeasible(m).empty());
  m.set_start({{2, 3.0}});  // z over its bound
  EXPECT_TRUE(start_refuting_infeasible(m).empty());
  m.set_start({{0, 0.5}});  // a fractional binary
  EXPECT_TRUE(start_refuting_infeasible(m).empty());
}

TEST(MilpStartRefutes, NoStartNeverRefutes) { EXPECT_TRUE(start_refuting_infeasible(small()).empty()); }
