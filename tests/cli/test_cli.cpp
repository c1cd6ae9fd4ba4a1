#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/run_cli.h"
#include "support/shared_data.h"

using hiremate::testing::benchmark_graph;
using hiremate::testing::run_cli;
using hiremate::testing::shell_quote;

namespace {
const std::string kExample = std::string(HIREMATE_SOURCE_DIR) + "/examples/mlp4-train.json";
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST(Cli, HelpListsTheCommandsAndTheirOptions) {
  auto r = run_cli("--help");
  EXPECT_EQ(r.code, 0);
  for (const char* cmd : {"info", "simulate", "solve"}) EXPECT_TRUE(has(r.out, cmd)) << r.out;
  r = run_cli("solve --help");
  EXPECT_EQ(r.code, 0);
  for (const char* opt : {"--budget", "--solver", "--time-limit", "--threads", "--schedule-out", "--json",
                          "autograd", "recompute_all", "--training", "--format"})
    EXPECT_TRUE(has(r.out, opt)) << opt;
  r = run_cli("simulate --help");
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(has(r.out, "--timeline"));
  r = run_cli("info --help");
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(has(r.out, "--json"));
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(run_cli("").code, 2);
  EXPECT_EQ(run_cli("frobnicate").code, 2);
  EXPECT_EQ(run_cli("solve " + kExample).code, 2);  // --budget is required
  auto r = run_cli("info /nonexistent/graph.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "/nonexistent/graph.json")) << r.err;
}

TEST(Cli, UnknownCommandsSayWhichAndSuggestOne) {
  auto r = run_cli("slove " + kExample);
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "unknown command 'slove'; did you mean 'solve'?")) << r.err;
  r = run_cli("frobnicate");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "unknown command 'frobnicate'")) << r.err;
  EXPECT_TRUE(has(r.err, "info, simulate, solve")) << r.err;  // no close name: the list
  r = run_cli("");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "a command is required")) << r.err;
}

TEST(Cli, HelpIsACommandToo) {
  auto r = run_cli("help");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "solve")) << r.out;
  r = run_cli("help solve");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "--budget")) << r.out;
  r = run_cli("help slove");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "did you mean 'solve'?")) << r.err;
}

TEST(Cli, UnknownOptionsAreNamedNotHiddenBehindARequiredOne) {
  auto r = run_cli("solve " + kExample + " --budgt 50%");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "unknown option '--budgt' for 'hiremate solve'; did you mean '--budget'?")) << r.err;
  EXPECT_FALSE(has(r.err, "is required")) << r.err;
  r = run_cli("info " + kExample + " --jsn");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "unknown option '--jsn' for 'hiremate info'; did you mean '--json'?")) << r.err;
  r = run_cli("info " + kExample + " extra.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "unexpected argument 'extra.json'")) << r.err;
}

TEST(Cli, ErrorsAreJsonOnStdoutWithJson) {
  for (const std::string& args : {std::string("info /nonexistent/graph.json --json"),
                                  "solve " + kExample + " --budgt 50% --json", std::string("slove --json"),
                                  "solve " + kExample + " --budget abc --json"}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << args << ": " << r.out;
    EXPECT_EQ(j["exit_code"], 2) << args;
    EXPECT_FALSE(j["error"].get<std::string>().empty()) << args;
    EXPECT_TRUE(has(r.err, j["error"].get<std::string>())) << r.err;
  }
  auto r = run_cli("info /nonexistent/graph.json");  // without --json stdout stays empty
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(Cli, ADirectoryAsTheGraphSaysSo) {
  auto r = run_cli("info " + std::string(HIREMATE_SOURCE_DIR) + "/examples");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "is a directory")) << r.err;
}

TEST(Cli, SizeUnitsAreCaseInsensitive) {
  auto r = run_cli("solve " + kExample + " --budget 1gb --solver autograd --json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["budget"], 1000000000);
  r = run_cli("solve " + kExample + " --budget 64mib --solver autograd --json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["budget"], 67108864);
}

TEST(Cli, ABareSmallIntegerBudgetWarnsThatAPercentageWasMeant) {
  auto r = run_cli("solve " + kExample + " --budget 50 --solver autograd");
  EXPECT_EQ(r.code, 3);  // 50 bytes, as written
  EXPECT_TRUE(has(r.err, "--budget 50 is taken as 50 bytes; did you mean 50%")) << r.err;
  r = run_cli("solve " + kExample + " --budget 50% --solver autograd");
  EXPECT_FALSE(has(r.err, "did you mean")) << r.err;
  r = run_cli("solve " + kExample + " --budget 41688 --solver autograd");
  EXPECT_FALSE(has(r.err, "did you mean")) << r.err;
}

TEST(Cli, SolveDefaultsToTheHierarchicalPlanner) {
  auto r = run_cli("solve --help");
  EXPECT_TRUE(has(r.out, "default: hiremate")) << r.out;
  r = run_cli("solve " + kExample + " --budget 80% --time-limit 5 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["solver"], "autograd");
  EXPECT_EQ(j["valid"], true);
}

TEST(Cli, LongSolvesPrintAStatusLineInLogs) {
  const std::string graph = ::testing::TempDir() + "status_" + std::to_string(getpid()) + ".json";
  ASSERT_EQ(run_cli("generate transformer -n 4 -o " + graph).code, 0);
  auto r = run_cli("solve " + graph + " --budget 50% --time-limit 7 --json");  // the planner uses most of it
  ASSERT_EQ(r.code, 0) << r.err;
  if (nlohmann::json::parse(r.out)["solve_seconds"].get<double>() > 5.2) {  // else it ended before the first line
    // with the planner's phase (set from its start: TW-Remat, the levels, the top)
    EXPECT_TRUE(has(r.err, "hiremate: solving with hiremate: 5 s elapsed of the 7 s limit; ")) << r.err;
  }
  EXPECT_FALSE(has(r.err, "\r") || has(r.err, "\033")) << r.err;  // stderr is a file: plain lines
  r = run_cli("solve " + kExample + " --budget 1.0 --solver autograd");  // quick: nothing
  EXPECT_FALSE(has(r.err, "elapsed")) << r.err;
}

TEST(Cli, TablesGroupDigitsAndRoundTimes) {
  auto r = run_cli("info " + kExample);
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(run_cli("info " + kExample + " --json").out);
  const int64_t peak = j["baseline_peak"];
  std::string grouped = std::to_string(peak);
  for (int i = static_cast<int>(grouped.size()) - 3; i > 0; i -= 3) grouped.insert(i, ",");
  EXPECT_TRUE(has(r.out, "baseline peak  " + grouped + " bytes")) << r.out;
  r = run_cli("solve " + kExample + " --budget 1.0 --solver autograd");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(has(r.out, "e+")) << r.out;
  EXPECT_TRUE(has(r.out, "solve time     ")) << r.out;
}

// On a generic DAG `info` says from which budget a plan is known to exist (dagremat's recursive
// pebbling bound, or keep-all): between the floor and the keep-all peak, and on a deep, dense DAG
// well below the peak; training graphs have no such line.
TEST(Cli, InfoSaysFromWhichBudgetAGenericDagHasAPlan) {
  const std::string path = ::testing::TempDir() + "dense_" + std::to_string(getpid()) + ".json";
  ASSERT_EQ(run_cli("generate random --dag -n 1000 --width-ratio 0.49 --seed 1 -o " + path).code, 0);
  auto r = run_cli("info " + path + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("plan_exists_from")) << r.out;
  EXPECT_GE(j["plan_exists_from"].get<int64_t>(), j["min_budget"].get<int64_t>());
  EXPECT_LT(j["plan_exists_from_percent"].get<double>(), 70.0);
  EXPECT_TRUE(has(run_cli("info " + path).out, "plan exists    from "));
  std::remove(path.c_str());
  j = nlohmann::json::parse(run_cli("info " + kExample + " --json").out);
  EXPECT_FALSE(j.contains("plan_exists_from"));
}

TEST(Cli, SimulateDrawsTheMemoryTimeline) {
  const std::string base = ::testing::TempDir() + "plot_" + std::to_string(getpid());
  auto r = run_cli("solve " + kExample + " --budget 80% --solver checkmate --time-limit 10 --schedule-out " + base +
                   ".json");
  ASSERT_EQ(r.code, 0) << r.err;
  r = run_cli("simulate " + kExample + " " + base + ".json --plot " + base + ".png --budget 80% --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(r.out)["valid"]);  // stdout stays JSON
  EXPECT_TRUE(has(r.err, "memory timeline drawn in " + base + ".png")) << r.err;
  std::ifstream png(base + ".png", std::ios::binary);
  char magic[4] = {};
  png.read(magic, 4);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
  r = run_cli("simulate " + kExample + " " + base + ".json --plot /nonexistent/dir/t.png");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--plot")) << r.err;
}

TEST(Cli, GenerateTakesJson) {
  std::string out = ::testing::TempDir() + "gen_chain_" + std::to_string(getpid()) + ".json";
  auto r = run_cli("generate chain -n 5 -o " + out + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["file"], out);
  EXPECT_GT(j["compute_nodes"].get<int>(), 5);
  r = run_cli("generate chain -n 0 -o " + out);
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "expected a positive number, got '0'")) << r.err;
}

TEST(Cli, BudgetsAndSolversThatDoNotParseExitTwo) {
  for (const char* budget : {"0", "-1", "abc", "1.5", "7XB", "", "nan", "NaN", "inf", "-inf", "-0.5", "0%", "0B",
                             "0.0", "1e3", "1e400", "99999999999999999999", "99999999999TiB", "1.2.3", "0x10",
                             "--", "50%%"}) {
    auto r = run_cli("solve " + kExample + " --budget " + shell_quote(budget));
    EXPECT_EQ(r.code, 2) << budget;
    EXPECT_TRUE(has(r.err, "bad budget")) << r.err;
    EXPECT_FALSE(has(r.err, "terminate")) << r.err;
  }
  auto r = run_cli("solve " + kExample + " --budget 0.9 --solver nope");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "unknown solver 'nope'")) << r.err;
}

TEST(Cli, BudgetsBelowTheMinimumExitThreeWithAReason) {
  // One byte, a tiny fraction, a budget below any node's own need: each solver says why, never crashes.
  for (const char* solver : {"autograd", "recompute_all", "checkmate", "twremat", "rotor", "hiremate"})
    for (const char* budget : {"1", "0.0001", "1MiB"}) {
      auto r = run_cli("solve " + kExample + " --budget " + budget + " --solver " + solver + " --time-limit 5");
      EXPECT_EQ(r.code, 3) << solver << " " << budget << ": " << r.err;
      EXPECT_TRUE(has(r.err, "infeasible")) << r.err;
      EXPECT_FALSE(has(r.err, "internal error")) << r.err;
    }
}

TEST(Cli, TimeLimitsThatAreNotPositiveNumbersExitTwo) {
  for (const char* limit : {"0", "-1", "nan", "abc", ""}) {
    auto r = run_cli("solve " + kExample + " --budget 1.0 --time-limit " + shell_quote(limit));
    EXPECT_EQ(r.code, 2) << limit << ": " << r.err;
    EXPECT_TRUE(has(r.err, "--time-limit")) << r.err;
    EXPECT_FALSE(has(r.err, "e+308") || has(r.err, "in range")) << r.err;  // no DBL_MAX range
  }
}

// Below the floor (mlp4's is 20 MiB): a proof, in the JSON too. tests/cli/test_exit_codes.cpp has
// every solver's exit 3 and 4.
TEST(Cli, InfeasibleBudgetExitsThree) {
  auto r = run_cli("solve " + kExample + " --budget 1MiB --solver autograd --json");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_TRUE(has(r.err, "infeasible")) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["status"], "infeasible");
  EXPECT_EQ(j["valid"], false);
}

TEST(Cli, SolveWritesAScheduleThatSimulateAccepts) {
  std::string sched = ::testing::TempDir() + "mlp4_schedule_" + std::to_string(getpid()) + ".json";
  auto r = run_cli("solve " + kExample + " --budget 1.0 --solver autograd --json --schedule-out " + sched);
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["status"], "optimal");
  EXPECT_EQ(j["valid"], true);
  EXPECT_EQ(j["peak"], j["baseline_peak"]);
  EXPECT_EQ(j["overhead_percent"], 0.0);
  r = run_cli("simulate " + kExample + " " + sched + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto s = nlohmann::json::parse(r.out);
  EXPECT_EQ(s["valid"], true);
  EXPECT_EQ(s["peak"], j["peak"]);

  // The schedule with the first op of `kind` removed, written to a file of its own.
  auto without_first = [&](const char* kind) {
    std::ifstream in(sched);
    auto doc = nlohmann::json::parse(in);
    auto& ops = doc["ops"];
    bool dropped = false;
    for (size_t i = 0; i < ops.size() && !dropped; ++i)
      if (ops[i]["op"] == kind) {
        ops.erase(i);
        dropped = true;
      }
    EXPECT_TRUE(dropped) << "no " << kind << " op in the schedule";
    std::string path = ::testing::TempDir() + "mlp4_without_" + kind + "_" + std::to_string(getpid()) + ".json";
    std::ofstream(path) << doc.dump();
    return path;
  };
  // Drop the first delete: the tensor stays resident longer, so the schedule stays valid and peaks
  // no lower.
  r = run_cli("simulate " + kExample + " " + without_first("delete") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto kept = nlohmann::json::parse(r.out);
  EXPECT_EQ(kept["valid"], true);
  EXPECT_GE(kept["peak"].get<int64_t>(), s["peak"].get<int64_t>());
  // Drop the first compute: what it writes is never resident, so a later op reads a missing tensor.
  r = run_cli("simulate " + kExample + " " + without_first("compute"));
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.out, "INVALID at op")) << r.out;
  EXPECT_TRUE(has(r.err, "invalid schedule")) << r.err;
}

TEST(Cli, InfoReproducesThePublishedBudgets) {
  HM_REQUIRE_BENCHMARKS();
  auto expected = hiremate::testing::expected()["graphs"];
  for (const char* name : {"rl1-n100", "rl2-n250", "rl3-n500", "rl4-n1000", "resnet50-b256-train", "fcn8-b32-train"}) {
    auto r = run_cli("info " + benchmark_graph(name) + " --json");
    ASSERT_EQ(r.code, 0) << name << ": " << r.err;
    auto j = nlohmann::json::parse(r.out);
    const auto& e = expected[name];
    EXPECT_EQ(j["nodes"], e["nodes"]) << name;
    EXPECT_EQ(j["edges"], e["edges"]) << name;
    EXPECT_EQ(j["baseline_peak"], e["peak_order"]) << name;
    EXPECT_EQ(j["budgets"]["90"], e["budgets"]["90"]) << name;
    EXPECT_EQ(j["budgets"]["80"], e["budgets"]["80"]) << name;
    EXPECT_EQ(j["budgets"]["70"], e["budgets"]["70"]) << name;
    EXPECT_DOUBLE_EQ(j["sum_time"].get<double>(), e["sum_cost"].get<double>()) << name;
  }
}

TEST(Cli, EveryBadInputFileExitsTwoWithItsMessage) {
  std::string dir = std::string(HIREMATE_SOURCE_DIR) + "/tests/bad_inputs";
  std::ifstream manifest(dir + "/EXPECTED.tsv");
  ASSERT_TRUE(manifest) << "missing " << dir << "/EXPECTED.tsv";
  std::string line;
  int files = 0;
  while (std::getline(manifest, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    std::string file = line.substr(0, tab), fragment = line.substr(tab + 1);
    bool schedule = file.rfind("schedule_", 0) == 0;  // a schedule for examples/unet-dag.json
    auto r = run_cli((schedule ? "simulate " + std::string(HIREMATE_SOURCE_DIR) + "/examples/unet-dag.json " : "info ") +
                     shell_quote(dir + "/" + file));
    EXPECT_EQ(r.code, 2) << file << ": " << r.err;
    EXPECT_TRUE(has(r.err, fragment)) << file << ": expected '" << fragment << "' in: " << r.err;
    EXPECT_TRUE(has(r.err, "hiremate: error: ")) << r.err;
    EXPECT_FALSE(has(r.err, "internal error")) << r.err;
    ++files;
  }
  EXPECT_GE(files, 85);
}
