// The `hiremate` subcommands. Each registers itself on the CLI11 app and runs when chosen.
// Results go to stdout (a table, or JSON with --json); progress and errors go to stderr.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "hiremate/graph/graph.h"
#include "hiremate/graph/io/graph_io.h"

namespace hiremate::cli {

// Options every command that reads a graph shares.
struct GraphArgs {
  std::string path;
  std::string format = "auto";
  bool training = false;
  void add_to(CLI::App& cmd);
  Graph load() const;
};

// One-line statement of the memory model a result was obtained under (DESIGN §2).
std::string memory_model(const Graph& g);

using Runner = std::function<int()>;
Runner add_info(CLI::App& app);
Runner add_simulate(CLI::App& app);
Runner add_solve(CLI::App& app);
Runner add_partition(CLI::App& app);
Runner add_generate(CLI::App& app);
Runner add_profile(CLI::App& app);
Runner add_train(CLI::App& app);

}  // namespace hiremate::cli
