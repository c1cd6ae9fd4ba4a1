#include <fmt/format.h>

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
  LoadOptions opt;
  opt.format = *graph_format_from_string(format);
  opt.training = training;
  return load_graph(path, opt);
}

std::string memory_model(const Graph& g) {
  if (!g.is_training())
    return "Checkmate's fixed-order model: every node computed at least once, first computations in "
           "the graph's order; memory = resident outputs (the output being computed counts) plus "
           "per-op overhead; sources counted, parameters outside";
  return "training-graph model (HiRemate's K-graph): memory = resident data, grads and phantoms "
         "(sources counted) plus per-op overhead while an op runs; parameters and their gradients "
         "outside the budget";
}

}  // namespace hiremate::cli
