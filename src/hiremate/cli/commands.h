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

// A CLI11 check for a positive number of seconds or a positive count, with a plain message
// ("--time-limit: expected a positive number, got '0'"); CLI11's PositiveNumber prints its range
// with DBL_MIN and DBL_MAX.
CLI::Validator positive_number();

// The budget as given, with a warning on stderr when a bare integer up to 100 ("--budget 50") is
// taken as bytes: a percentage ("50%") was probably meant.
void warn_if_bare_percentage(const std::string& option, const std::string& budget);

using Runner = std::function<int()>;
Runner add_info(CLI::App& app);
Runner add_simulate(CLI::App& app);
Runner add_solve(CLI::App& app);
Runner add_partition(CLI::App& app);
Runner add_generate(CLI::App& app);
Runner add_profile(CLI::App& app);
Runner add_train(CLI::App& app);

}  // namespace hiremate::cli
