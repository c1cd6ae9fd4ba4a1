// The large neighbourhood search (milp/neighbourhood_search.h): windows of groups re-decided from the
// incumbent, the rest fixed; it never returns a worse or infeasible solution, restores the model, and
// widens its windows where changes must span groups.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "hiremate/milp/model.h"
#include "hiremate/milp/neighbourhood_search.h"

using namespace hiremate::milp;

TEST(NeighbourhoodSearch, IndependentGroupsReachTheOptimumAndTheModelIsRestored) {
  // Per group three binaries, exactly one of them 1, random costs; the start takes the dearest.
  std::mt19937 rng(7);
  Model m;
  std::vector<std::vector<Var>> groups;
  std::vector<double> x;
  double optimum = 0;
  for (int g = 0; g < 12; ++g) {
    std::vector<Var> group;
    double lo = 1e9, hi = -1;
    Var dearest = 0;
    for (int c = 0; c < 3; ++c) {
      const double cost = 1 + rng() % 100;
      const Var v = m.add_var(VarType::Binary, 0, 1, cost);
      group.push_back(v);
      x.push_back(0);
      lo = std::min(lo, cost);
      if (cost > hi) hi = cost, dearest = v;
    }
    x[static_cast<size_t>(dearest)] = 1;
    optimum += lo;
    m.add_row({{group[0], 1}, {group[1], 1}, {group[2], 1}}, 1, 1);
    groups.push_back(group);
  }
  m.set_start({{0, 1}});
  const std::vector<double> lower = m.col_lower(), upper = m.col_upper();
  const auto start = m.start();
  ASSERT_EQ(m.max_violation(x), 0);
  NeighbourhoodOptions o;
  o.width = 1;
  NeighbourhoodResult r = neighbourhood_search(m, x, groups, hiremate::Deadline(60), o);
  EXPECT_EQ(m.max_violation(r.x), 0);
  EXPECT_DOUBLE_EQ(m.objective_value(r.x), optimum);
  EXPECT_GT(r.improvements, 0);
  EXPECT_EQ(m.col_lower(), lower);
  EXPECT_EQ(m.col_upper(), upper);
  ASSERT_EQ(m.start().size(), start.size());
  EXPECT_EQ(m.start()[0].first, start[0].first);
}

TEST(NeighbourhoodSearch, WindowsWidenWhereAChangeSpansTwoGroups) {
  // One binary per group, worth 1 each; groups 2i and 2i + 1 must be equal, so no window of one
  // group changes anything and every window of two that starts at an even group does.
  Model m;
  std::vector<std::vector<Var>> groups;
  const int n = 8;
  for (int g = 0; g < n; ++g) groups.push_back({m.add_var(VarType::Binary, 0, 1, -1)});
  for (int i = 0; i < n / 2; ++i) m.add_row({{2 * i, 1}, {2 * i + 1, -1}}, 0, 0);
  NeighbourhoodOptions o;
  o.width = 1;
  NeighbourhoodResult r = neighbourhood_search(m, std::vector<double>(n, 0), groups, hiremate::Deadline(60), o);
  EXPECT_EQ(m.max_violation(r.x), 0);
  EXPECT_DOUBLE_EQ(m.objective_value(r.x), -n);
  EXPECT_GE(r.width, 2);
}

TEST(NeighbourhoodSearch, APassedDeadlineReturnsTheSolutionGiven) {
  Model m;
  std::vector<std::vector<Var>> groups{{m.add_var(VarType::Binary, 0, 1, -1)}, {m.add_var(VarType::Binary, 0, 1, -1)}};
  NeighbourhoodResult r = neighbourhood_search(m, {0, 0}, groups, hiremate::Deadline(0), {});
  EXPECT_EQ(r.rounds, 0);
  EXPECT_EQ(r.x, (std::vector<double>{0, 0}));
}
