// Limits that protect the user: solvers stop within --time-limit (at most 10 % late), and checkmate
// refuses, before building anything, a MILP that would not fit in memory.
#include <gtest/gtest.h>

#include <chrono>

#include "hiremate/common/error.h"
#include "hiremate/graph/generate.h"
#include "hiremate/graph/io/graph_io.h"
#include "hiremate/planner/registry.h"
#include "hiremate/solvers/checkmate/checkmate.h"
#include "hiremate/solvers/checkmate/model_size.h"
#include "hiremate/solvers/solver.h"

using namespace hiremate;

namespace {

generate::BuildOptions dag_options() {
  generate::BuildOptions o;
  o.training = false;
  return o;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Solves with a short limit and checks the wall time (everything solve_checked does, simulation
// included) stays within 10 % of it. Returns the plan so callers can check the limit was hit.
Plan solve_within(const std::string& solver, const Graph& g, double fraction, double limit, double grace = 0) {
  SolveOptions opt;
  opt.time_limit = limit;
  auto s = make_solver(solver);
  int64_t budget = static_cast<int64_t>(fraction * static_cast<double>(baseline(g).peak));
  auto t0 = std::chrono::steady_clock::now();
  Plan p = solve_checked(*s, g, budget, opt);
  double took = seconds_since(t0);
  EXPECT_LE(took, 1.10 * limit + grace) << solver << " overran its " << limit << " s limit: " << p.note;
  ::testing::Test::RecordProperty(solver + "_seconds", std::to_string(took));
  std::cerr << solver << ": " << took << " s for a " << limit << " s limit (" << to_string(p.status) << ", "
            << p.note << ")\n";
  return p;
}

}  // namespace

TEST(TimeLimit, CheckmateStopsInTime) {
  generate::RandomLayeredParams rp;
  rp.nodes = 300;
  Graph g = generate::random_layered(rp, dag_options());
  Plan p = solve_within("checkmate", g, 0.6, 4.0);
  EXPECT_NE(p.status, PlanStatus::Optimal) << "the graph is too easy to test the limit";
}

TEST(TimeLimit, HilpStopsInTime) {
  generate::TransformerParams tp;
  tp.layers = 12;
  Graph g = generate::transformer(tp);
  // H-ILP's CBC ignores its limit here (it ran 4.9 s for 4 s): the planner gives each CBC call
  // only the grace that keeps the whole solve within 5 % of the limit.
  solve_within("hilp", g, 0.5, 4.0);
}

TEST(TimeLimit, TwRematStopsInTime) {
  generate::RandomLayeredParams rp;
  rp.nodes = 10000;  // its tree decomposition alone takes far longer than the limit
  Graph g = generate::random_layered(rp, dag_options());
  Plan p = solve_within("twremat", g, 0.3, 4.0);
  EXPECT_NE(p.note.find("time limit"), std::string::npos) << "the graph is too easy to test the limit: " << p.note;
}

TEST(TimeLimit, DagRematStopsInTimeOnAHundredThousandNodes) {
  // Before: 12.5 s for 10 s and 3.4 GB (a 41.5-million-nonzero relaxation built past its use, and a
  // new start begun after the deadline); the relaxation is now capped (kMaxBoundNonzeros).
  generate::RandomLayeredParams rp;
  rp.nodes = 100000;
  Graph g = generate::random_layered(rp, dag_options());
  solve_within("dagremat", g, 0.7, 10.0);
}

TEST(ModelSize, CheckmateRefusesAFiveThousandNodeDag) {
  generate::ChainParams cp;
  cp.n = 5000;
  Graph g = generate::chain(cp, dag_options());
  EXPECT_GT(checkmate::estimated_variables(g), checkmate::kMaxVariables);
  auto s = make_solver("checkmate");
  auto t0 = std::chrono::steady_clock::now();
  try {
    solve_checked(*s, g, baseline(g).peak, {});
    ADD_FAILURE() << "checkmate accepted a 5,000-node DAG";
  } catch (const BadInput& e) {
    std::string msg = e.what();
    for (const char* part : {"too big for this solver", "10000000", "--solver hiremate", "twremat"})
      EXPECT_NE(msg.find(part), std::string::npos) << part << " missing in: " << msg;
  }
  EXPECT_LT(seconds_since(t0), 1.0) << "the refusal must come before the model is built";
}

TEST(ModelSize, CheckmateAcceptsTheGraphsItCanSolve) {
  generate::RandomLayeredParams rp;
  rp.nodes = 1000;
  Graph g = generate::random_layered(rp, dag_options());
  EXPECT_LE(checkmate::estimated_variables(g), checkmate::kMaxVariables);
  EXPECT_FALSE(CheckmateSolver().unsupported(g));
}

// A million nodes: read in reasonable time and memory, and refused politely by checkmate.
TEST(HugeGraph, AMillionNodeChainLoadsAndCheckmateRefusesIt) {
  const int n = 1'000'000;
  std::string text = "p remat2\nnode 0 cpu 1 mem 8\n";
  text.reserve(40u * n);
  for (int i = 1; i < n; ++i)
    text += "node " + std::to_string(i) + " deps " + std::to_string(i - 1) + " cpu 1 mem 8\n";
  auto t0 = std::chrono::steady_clock::now();
  Graph g = parse_graph(text, "million.txt", {GraphFormat::PRemat2, false});
  EXPECT_EQ(g.compute.size(), static_cast<size_t>(n));
  EXPECT_LT(seconds_since(t0), 120.0);  // about 30 s on a loaded CI machine
  EXPECT_TRUE(CheckmateSolver().unsupported(g));
}
