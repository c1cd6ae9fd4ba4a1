#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "hiremate/cli/commands.h"
#include "hiremate/common/error.h"

namespace hiremate::cli {

void GraphArgs::add_to(CLI::App& cmd) {
  cmd.add_option("graph", path, "graph file: hiremate JSON, networkx node-link JSON or TW-Remat 'p remat2' text")
      ->required();
  cmd.add_option("--format", format, "input format: auto, hiremate, node-link, premat2 (default: auto)")
      ->check(CLI::IsMember({"auto", "hiremate", "node-link", "premat2"}));
  cmd.add_flag("--training", training,
               "read a Checkmate-derived node-link graph as a training graph (X / X_backward pairs, "
               "Loss) instead of a generic DAG");
}

Graph GraphArgs::load() const {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw BadInput(fmt::format("'{}' is a directory; give a graph file in it (hiremate JSON, node-link JSON or "
                               "'p remat2' text)", path));
  LoadOptions opt;
  opt.format = *graph_format_from_string(format);
  opt.training = training;
  return load_graph(path, opt);
}

CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || !(v > 0))
          return fmt::format("expected a positive number, got '{}'", text);
        return "";
      },
      "POSITIVE");
}

void warn_if_bare_percentage(const std::string& option, const std::string& budget) {
  if (budget.empty() || budget.size() > 3) return;
  for (char ch : budget)
    if (!std::isdigit(static_cast<unsigned char>(ch))) return;
  const int value = std::stoi(budget);
  if (value >= 1 && value <= 100)
    std::cerr << fmt::format("hiremate: warning: {} {} is taken as {} bytes; did you mean {}% (of the keep-all "
                             "peak; {} as a fraction)?\n",
                             option, budget, value, value, value == 100 ? "1.0" : fmt::format("0.{:02d}", value));
}

std::string memory_model(const Graph& g) {
  if (!g.is_training())
    return "Checkmate's fixed-order model: every node computed at least once, first computations in "
           "the graph's order; memory = resident outputs (the output being computed counts) plus "
           "per-op overhead; sources (none in the public graphs) resident throughout and outside the "
           "bytes reported, parameters outside";
  return "training-graph model (HiRemate's K-graph): memory = resident data, grads and phantoms plus "
         "per-op overhead while an op runs; the sources (the model's inputs) are resident throughout and "
         "outside the bytes reported and the budget (activation bytes), as parameters and their gradients";
}

}  // namespace hiremate::cli
