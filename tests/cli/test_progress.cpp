// The status line of long calls (cli/progress.h) and what the planner and solvers report to it
// (common/progress.h, SolveOptions::progress): the phase, the fastest plan so far and the bound.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "hiremate/cli/progress.h"
#include "hiremate/common/progress.h"
#include "hiremate/graph/io/graph_io.h"
#include "hiremate/planner/registry.h"
#include "hiremate/solvers/solver.h"
#include "support/run_cli.h"

using hiremate::Progress;
using hiremate::cli::status_line;

using hiremate::testing::run_cli;

namespace {
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
const std::string kMlp = std::string(HIREMATE_SOURCE_DIR) + "/examples/mlp4-train.json";
}  // namespace

TEST(CliProgress, KeepsTheFastestPlanAndTheGreatestBound) {
  Progress p;
  EXPECT_TRUE(p.snapshot().phase.empty());
  EXPECT_FALSE(p.snapshot().best);
  p.phase("levels");
  p.phase("top: hilp");
  p.best(120);
  p.best(110);
  p.best(130);
  p.bound(101);
  p.bound(105);
  p.bound(102);
  auto s = p.snapshot();
  EXPECT_EQ(s.phase, "top: hilp");
  EXPECT_EQ(*s.best, 110);
  EXPECT_EQ(*s.bound, 105);
}

TEST(CliProgress, StatusLineSaysElapsedLimitPhaseBestAndBound) {
  Progress p;
  EXPECT_EQ(status_line("hiremate: solving with hiremate", 3, 8, p.snapshot()),
            "hiremate: solving with hiremate: 3 s elapsed of the 8 s limit");
  p.phase("top: hilp (bottom_to_top, 4 parts)");
  p.baseline(100);
  p.best(110);
  p.bound(105);
  EXPECT_EQ(status_line("hiremate: solving with hiremate", 3, 8, p.snapshot()),
            "hiremate: solving with hiremate: 3 s elapsed of the 8 s limit; top: hilp (bottom_to_top, 4 parts); "
            "best so far +10.00 % overhead; bound +5.00 %");
  // No limit (train, profile); a bound above the best (another model's) is not shown.
  Progress q;
  q.phase("profiling: 3/7 signatures");
  EXPECT_EQ(status_line("hiremate: training m.pt", 12, 0, q.snapshot()),
            "hiremate: training m.pt: 12 s elapsed; profiling: 3/7 signatures");
  q.baseline(100);
  q.best(104);
  q.bound(106);
  EXPECT_EQ(status_line("x", 1, 0, q.snapshot()), "x: 1 s elapsed; profiling: 3/7 signatures; best so far +4.00 % overhead");
}

// The hierarchical planner and checkmate report their phases and their best plan, whose time is the
// returned plan's; a bound never exceeds it.
TEST(CliProgress, SolversReportTheirPhaseBestAndBound) {
  const hiremate::Graph g = hiremate::load_graph(kMlp);
  const int64_t budget = hiremate::baseline(g).peak * 8 / 10;
  for (const char* name : {"hiremate", "checkmate"}) {
    hiremate::SolveOptions opt;
    opt.time_limit = 20;
    opt.progress = std::make_shared<Progress>();
    auto solver = hiremate::make_solver(name);
    hiremate::Plan plan = hiremate::solve_checked(*solver, g, budget, opt);
    ASSERT_TRUE(plan.has_schedule) << name << ": " << plan.note;
    auto s = opt.progress->snapshot();
    EXPECT_FALSE(s.phase.empty()) << name;
    ASSERT_TRUE(s.best) << name;
    EXPECT_DOUBLE_EQ(*s.best, plan.sim.time) << name;
    if (s.bound) {
      EXPECT_LE(*s.bound, *s.best + 1e-9) << name;
    }
  }
}

// -v: the solvers' own lines; CBC's log only at -vv.
TEST(CliProgress, CbcLogsOnlyAtDoubleVerbose) {
  const std::string solve = "solve " + kMlp + " --solver checkmate --budget 80% --time-limit 10 ";
  auto v = run_cli(solve + "-v");
  ASSERT_EQ(v.code, 0) << v.err;
  EXPECT_TRUE(has(v.err, "checkmate: ")) << v.err;
  EXPECT_FALSE(has(v.err, "Cbc0")) << v.err;  // CBC's message codes (Cbc0012I, ...)
  auto vv = run_cli(solve + "-vv");
  ASSERT_EQ(vv.code, 0) << vv.err;
  EXPECT_TRUE(has(vv.err, "checkmate: ")) << vv.err;
  EXPECT_TRUE(has(vv.err, "Cbc0")) << vv.err;
  auto help = run_cli("solve --help");
  EXPECT_TRUE(has(help.out, "-vv: also CBC's log")) << help.out;
}
