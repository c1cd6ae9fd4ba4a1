// Runs the built `hiremate` binary and captures its exit code, stdout and stderr.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace hiremate::testing {

struct CliResult {
  int code = -1;
  std::string out, err;
};

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline CliResult run_cli(const std::string& args) {
  static int counter = 0;
  // pid and counter: ctest runs tests in parallel processes.
  std::string err_file = ::testing::TempDir() + "hiremate_cli_err_" + std::to_string(getpid()) + "_" +
                         std::to_string(++counter);
  std::string cmd = std::string(HIREMATE_CLI) + " " + args + " 2>" + err_file;
  CliResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
  int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(err_file);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  std::remove(err_file.c_str());
  return r;
}

}  // namespace hiremate::testing
