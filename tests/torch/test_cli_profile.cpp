// `hiremate profile` end to end: it writes a graph that `hiremate info` reads back, with the ops
// and shapes of each forward node, and prints the summary.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include "torch_test_util.h"

namespace hiremate {
namespace {

std::pair<int, std::string> run(const std::string& cmd) {
  std::array<char, 4096> buf;
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int rc = pclose(p);
  return {WEXITSTATUS(rc), out};
}

TEST(TorchCli, ProfileWritesAGraphThatInfoReads) {
  std::string out_path = std::string(HIREMATE_TORCH_MODELS) + "/mlp.graph.json";
  auto [rc, out] = run(std::string(HIREMATE_CLI) + " profile " + torchtest::model_path("mlp") + " --inputs " +
                       torchtest::inputs_path("mlp") + " -o " + out_path + " --threads 1 --runs 3");
  ASSERT_EQ(rc, 0) << out;
  for (const char* field : {"distinct signatures", "parameters", "keep-all peak", "step time"})
    EXPECT_NE(out.find(field), std::string::npos) << field << " missing in:\n" << out;
  std::ifstream f(out_path);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find("\"ops\":\"linear\""), std::string::npos);
  EXPECT_NE(text.str().find("\"shapes\":\"[64, 256]\""), std::string::npos);
  auto [rc2, info] = run(std::string(HIREMATE_CLI) + " info " + out_path);
  EXPECT_EQ(rc2, 0) << info;
  EXPECT_NE(info.find("training graph"), std::string::npos) << info;
}

TEST(TorchCli, ControlFlowExitsWithBadInput) {
  auto [rc, out] = run(std::string(HIREMATE_CLI) + " profile " + torchtest::model_path("control_flow") + " --inputs " +
                       torchtest::inputs_path("control_flow"));
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("torch.jit.trace"), std::string::npos) << out;
}

}  // namespace
}  // namespace hiremate
