// A profiled graph is an ordinary training graph: the solvers plan on it and the simulator
// accepts their plans (DESIGN §1: capture+profile feeds the planner).
#include <gtest/gtest.h>

#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/solver.h"
#include "torch_test_util.h"

namespace hiremate {
namespace {

TEST(TorchPipeline, SolversPlanOnAProfiledGraph) {
  const Graph& g = torchtest::profiled("gpt2_small").graph;
  ASSERT_TRUE(g.is_training());
  Baseline b = baseline(g);
  SolveOptions opt;
  opt.time_limit = 20;
  for (const char* name : {"autograd", "recompute_all", "twremat"}) {
    auto solver = make_solver(name);
    Plan p = solve_checked(*solver, g, b.peak, opt);
    EXPECT_NE(p.status, PlanStatus::Infeasible) << name;
    SimResult r = simulate(g, p.schedule);
    EXPECT_TRUE(r.valid) << name << ": " << r.reason;
    EXPECT_LE(r.peak, b.peak) << name;
  }
}

}  // namespace
}  // namespace hiremate
