// `hiremate solve`'s failure codes, per solver: exit 3 ("infeasible") only on a proof that no
// schedule fits (below the floor every schedule needs, or an exact solver's proof for this graph);
// exit 4 ("no plan found") wherever a solver gives up without one, with what it tried.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/run_cli.h"

using hiremate::testing::run_cli;

namespace {

const std::string kMlp = std::string(HIREMATE_SOURCE_DIR) + "/examples/mlp4-train.json";
const std::string kDag = std::string(HIREMATE_SOURCE_DIR) + "/examples/unet-dag.json";
const std::vector<std::string> kTrainingSolvers{"autograd", "recompute_all", "checkmate", "twremat",
                                                "rotor",    "rockmate",      "hilp",      "hiremate"};
const std::vector<std::string> kDagSolvers{"autograd", "checkmate", "dagremat", "twremat", "hiremate"};

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A generated graph, written once per test process.
std::string generated(const std::string& kind, int size) {
  std::string p = ::testing::TempDir() + "exit_codes_" + kind + std::to_string(size) + "_" + std::to_string(getpid()) +
                  ".json";
  auto r = run_cli("generate " + kind + " -n " + std::to_string(size) + " -o " + p);
  EXPECT_EQ(r.code, 0) << r.err;
  return p;
}
// A 3-layer transformer: many topological orders; rotor's chain of blocks.
const std::string& transformer3() {
  static const std::string path = generated("transformer", 3);
  return path;
}
// A chain of 4 ops: one topological order, so RK-Checkmate's proofs hold for the graph.
const std::string& chain4() {
  static const std::string path = generated("chain", 4);
  return path;
}

nlohmann::json info(const std::string& graph) {
  auto r = run_cli("info " + graph + " --json");
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

struct Solve {
  int code;
  nlohmann::json j;
  std::string err;
};

Solve solve(const std::string& graph, const std::string& solver, int64_t budget, double limit = 20,
            const std::string& more = "") {
  auto r = run_cli("solve " + graph + " --solver " + solver + " --budget " + std::to_string(budget) +
                   " --time-limit " + std::to_string(limit) + " --json " + more);
  return {r.code, r.out.empty() ? nlohmann::json() : nlohmann::json::parse(r.out), r.err};
}

void expect_infeasible(const Solve& s, const std::string& what) {
  EXPECT_EQ(s.code, 3) << what << ": " << s.err;
  EXPECT_EQ(s.j["status"], "infeasible") << what;
  EXPECT_TRUE(has(s.err, "hiremate: infeasible")) << what << ": " << s.err;
  EXPECT_FALSE(has(s.err, "no plan found")) << what << ": " << s.err;
}

void expect_no_plan_found(const Solve& s, const std::string& what) {
  EXPECT_EQ(s.code, 4) << what << ": " << s.err;
  EXPECT_NE(s.j["status"], "infeasible") << what;
  EXPECT_EQ(s.j["valid"], false) << what;
  EXPECT_TRUE(has(s.err, "hiremate: no plan found")) << what << ": " << s.err;
  EXPECT_TRUE(has(s.err, "not a proof")) << what << ": " << s.err;
  EXPECT_FALSE(has(s.err, "internal error")) << what << ": " << s.err;
}

}  // namespace

// One byte below the floor: every solver, on both kinds of graph, exits 3 and says why.
TEST(ExitCodes, OneByteBelowTheFloorEverySolverExitsThree) {
  for (const auto& [graph, solvers] : {std::pair{kMlp, kTrainingSolvers}, std::pair{kDag, kDagSolvers},
                                       std::pair{transformer3(), kTrainingSolvers}}) {
    const int64_t floor_budget = info(graph)["min_budget"];
    for (const auto& solver : solvers) {
      Solve s = solve(graph, solver, floor_budget - 1);
      expect_infeasible(s, solver + " on " + graph);
      EXPECT_TRUE(has(s.j["note"].get<std::string>(), "must be at least")) << solver << ": " << s.j["note"];
    }
  }
}

// The case: TW-Remat finds nothing on a 3-layer transformer at 50 % while rotor plans it.
// That is "no plan found" with the lowest peak TW-Remat reached, not "infeasible".
TEST(ExitCodes, TwRematGivingUpExitsFourWithTheLowestPeakItReached) {
  const auto g = info(transformer3());
  const int64_t budget = g["baseline_peak"].get<int64_t>() / 2;
  Solve tw = solve(transformer3(), "twremat", budget);
  expect_no_plan_found(tw, "twremat");
  EXPECT_EQ(tw.j["status"], "no_plan_found");
  ASSERT_TRUE(tw.j["lowest_peak"].is_number()) << tw.j.dump();
  EXPECT_GT(tw.j["lowest_peak"].get<int64_t>(), budget);
  EXPECT_TRUE(has(tw.err, "lowest peak")) << tw.err;
  EXPECT_EQ(solve(transformer3(), "rotor", budget).code, 0);
}

// The baselines have one schedule each: over the budget (yet above the floor) is "no plan found",
// the schedule's peak the lowest reached.
TEST(ExitCodes, BaselinesOverTheBudgetExitFour) {
  const auto g = info(kMlp);
  const int64_t peak = g["baseline_peak"];
  Solve a = solve(kMlp, "autograd", peak - 1);
  expect_no_plan_found(a, "autograd");
  EXPECT_EQ(a.j["lowest_peak"], peak);
  Solve r = solve(kMlp, "recompute_all", g["min_budget"]);
  expect_no_plan_found(r, "recompute_all");
  EXPECT_GT(r.j["lowest_peak"].get<int64_t>(), g["min_budget"].get<int64_t>());
}

// Rotor and rockmate plan persistent schedules of the blocks' options only, TW-Remat its own
// recursion: none reaches the floor of this transformer, which proves nothing. hilp, restricted to
// the H-ILP's options, may reach it within its 5 s (it does since its top also solves a small model)
// or not; either way never "infeasible".
TEST(ExitCodes, RestrictedSolversAtTheFloorExitFour) {
  const int64_t floor_budget = info(transformer3())["min_budget"];
  for (const char* solver : {"twremat", "rotor", "rockmate"})
    expect_no_plan_found(solve(transformer3(), solver, floor_budget, 5), solver);
  Solve h = solve(transformer3(), "hilp", floor_budget, 5);
  if (h.code == 0) {
    EXPECT_EQ(h.j["valid"], true);
    EXPECT_LE(h.j["peak"].get<int64_t>(), h.j["budget"].get<int64_t>());
  } else {
    expect_no_plan_found(h, "hilp");
  }
}

// Checkmate's proof holds in its model, whose first computations follow the graph's order: for the
// graph itself where that is its only order (a chain: exit 3), not on a transformer (exit 4). Here
// the proof is that nothing can be held at the loss with at most 1 byte; the hiremate preset runs
// that MILP at its top on graphs this small and says the same.
TEST(ExitCodes, CheckmatesProofIsInfeasibleOnlyWhereItsOrderIsTheGraphsOwn) {
  for (const auto& graph : {chain4(), transformer3()}) {
    const int64_t peak = info(graph)["baseline_peak"];
    for (const char* solver : {"checkmate", "hiremate"}) {
      Solve s = solve(graph, solver, peak, 20, "--save-budget 1");
      const std::string what = std::string(solver) + " on " + graph;
      if (graph == chain4())
        expect_infeasible(s, what);
      else
        expect_no_plan_found(s, what);
    }
    Solve cm = solve(graph, "checkmate", peak, 20, "--save-budget 1");
    EXPECT_TRUE(has(cm.j["note"].get<std::string>(), "proven infeasible")) << cm.j["note"];
  }
}

// On a generic DAG the fixed order is the graph's own: checkmate's proof (and the hiremate preset,
// which runs that MILP after dagremat) is exit 3 above the floor too. Dagremat, out of time without
// a plan or a proof there, exits 4.
TEST(ExitCodes, ExactProofsOnAGenericDagExitThreeAboveTheFloor) {
  const int64_t floor_budget = info(kDag)["min_budget"];
  for (const char* solver : {"checkmate", "hiremate"}) {
    Solve s = solve(kDag, solver, floor_budget, 20);
    expect_infeasible(s, solver);
    EXPECT_TRUE(has(s.j["note"].get<std::string>(), "proven infeasible")) << s.j["note"];
  }
  expect_no_plan_found(solve(kDag, "dagremat", floor_budget, 2), "dagremat");
}

// Out of time before any plan: "no plan found", and the message suggests a longer limit.
TEST(ExitCodes, ATimeLimitWithoutAPlanExitsFour) {
  const int64_t budget = info(transformer3())["baseline_peak"].get<int64_t>() / 2;
  Solve cm = solve(transformer3(), "checkmate", budget, 0.01);
  expect_no_plan_found(cm, "checkmate");
  EXPECT_EQ(cm.j["status"], "timed_out");
  EXPECT_TRUE(has(cm.err, "--time-limit")) << cm.err;
}
