// A profiled graph is an ordinary training graph: the solvers plan on it and the simulator
// accepts their plans (DESIGN §1: capture+profile feeds the planner).
#include <gtest/gtest.h>

#include <string>

#include "hiremate/planner/registry.h"
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
    // recompute_all is not bounded by the keep-all peak: it recomputes the loss's forward (whose
    // no-grad transient is the largest overhead here) while the loss's gradient is resident.
    int64_t budget = std::string(name) == "recompute_all" ? 2 * b.peak : b.peak;
    Plan p = solve_checked(*solver, g, budget, opt);
    ASSERT_TRUE(p.has_schedule) << name << ": " << to_string(p.status) << ", " << p.note;
    SimResult r = simulate(g, p.schedule);
    EXPECT_TRUE(r.valid) << name << ": " << r.reason;
    EXPECT_LE(r.peak, budget) << name;
  }
}

}  // namespace
}  // namespace hiremate
