// `hiremate solve --solver rotor|rockmate`: the same JSON as every solver, and a clear refusal for a
// graph that is not a chain.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "hiremate/graph/generate.h"
#include "hiremate/graph/io/graph_io.h"
#include "support/run_cli.h"

using hiremate::testing::run_cli;

TEST(RotorCli, SolvesAChainAndRefusesADag) {
  namespace gen = hiremate::generate;
  gen::ChainParams p;
  p.n = 12;
  p.period = 3;
  std::string path = ::testing::TempDir() + "rotor_chain_" + std::to_string(getpid()) + ".json";
  hiremate::save_graph(gen::chain(p), path);
  for (const char* solver : {"rotor", "rockmate"}) {
    auto r = run_cli(std::string("solve ") + path + " --solver " + solver + " --budget 0.5 --time-limit 20 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["solver"], solver);
    EXPECT_EQ(j["status"], "feasible");
    EXPECT_EQ(j["valid"], true);
    EXPECT_LE(j["peak"].get<int64_t>(), j["budget"].get<int64_t>());
    EXPECT_GT(j["overhead_percent"].get<double>(), 0.0);
    EXPECT_NE(j["note"].get<std::string>().find("memory unit"), std::string::npos);
  }
  gen::BuildOptions dag;
  dag.training = false;
  std::string dag_path = ::testing::TempDir() + "rotor_dag_" + std::to_string(getpid()) + ".json";
  hiremate::save_graph(gen::chain(p, dag), dag_path);
  auto r = run_cli("solve " + dag_path + " --solver rotor --budget 0.5");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("training graph"), std::string::npos) << r.err;
}
