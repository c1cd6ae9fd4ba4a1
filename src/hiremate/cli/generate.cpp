// `hiremate generate KIND -o FILE`: the built-in graph generators (graph/generate.h) as files, for
// benchmarks, tests and trying the solvers on shapes of any size.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "hiremate/cli/commands.h"
#include "hiremate/common/error.h"
#include "hiremate/graph/generate.h"
#include "hiremate/graph/io/graph_io.h"

namespace hiremate::cli {

namespace {

struct GenerateArgs {
  std::string kind, out;
  int size = 0;  // 0: the generator's default
  int convs = 0;  // unet: convs per level (0: the default)
  bool dag = false;
  bool parallel = false;
  uint64_t seed = 1;
  bool json = false;
  // random: the public benchmark family (generate::layered_dag) when a width ratio is given.
  double width_ratio = 0, edge_density = 0.2, skip_density = 0.14;
};

}  // namespace

Runner add_generate(CLI::App& app) {
  auto* cmd = app.add_subcommand("generate", "write a generated graph: chain, unet, transformer, encoder_decoder, random");
  auto a = std::make_shared<GenerateArgs>();
  cmd->add_option("kind", a->kind, "chain, unet, transformer, encoder_decoder or random")
      ->required()
      ->check(CLI::IsMember({"chain", "unet", "transformer", "encoder_decoder", "random"}));
  cmd->add_option("-n,--size", a->size,
                  "chain: ops; unet: levels; transformer and encoder_decoder: layers; random: ops (default: the "
                  "generator's)")
      ->check(positive_number());
  cmd->add_option("--convs", a->convs, "unet: convolutions per level (default: 2)")->check(positive_number());
  cmd->add_flag("--dag", a->dag, "a generic DAG (Checkmate's model) instead of a training graph");
  cmd->add_flag("--parallel", a->parallel, "transformer: parallel attention and MLP (GPT-J style)");
  cmd->add_option("--seed", a->seed, "random: the seed (default: 1)");
  auto* wr = cmd->add_option("--width-ratio", a->width_ratio,
                             "random: the public benchmark family of Gagrani et al. 2022 (the rl*.json graphs) with "
                             "this width ratio in (0, 1) (layers about sqrt(n (1/w - 1)); the order is a random "
                             "topological order; generic DAG: use --dag)")
                 ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--edge-density", a->edge_density,
                  "random --width-ratio: probability of an edge between ops of consecutive layers (default: 0.2)")
      ->check(CLI::Range(0.0, 1.0))
      ->needs(wr);
  cmd->add_option("--skip-density", a->skip_density,
                  "random --width-ratio: share of skip edges (between layers two or more apart) among all (default: 0.14)")
      ->check(CLI::Range(0.0, 0.99))
      ->needs(wr);
  cmd->add_option("-o,--output", a->out, "the graph file to write (hiremate JSON)")->required();
  cmd->add_flag("--json", a->json, "print what was written as JSON on stdout (file, kind, node counts)");
  return [cmd, a]() {
    if (!cmd->parsed()) return -1;
    generate::BuildOptions bo;
    bo.training = !a->dag;
    Graph g;
    if (a->kind == "chain") {
      generate::ChainParams p;
      if (a->size) p.n = a->size;
      g = generate::chain(p, bo);
    } else if (a->kind == "unet") {
      generate::UNetParams p;
      if (a->size) p.levels = a->size;
      if (a->convs) p.convs_per_level = a->convs;
      g = generate::unet(p, bo);
    } else if (a->kind == "random" && a->width_ratio > 0) {
      generate::LayeredDagParams p;
      if (a->size) p.nodes = a->size;
      p.width_ratio = a->width_ratio;
      p.edge_density = a->edge_density;
      p.skip_density = a->skip_density;
      p.seed = a->seed;
      g = generate::layered_dag(p, bo);
    } else if (a->kind == "random") {
      generate::RandomLayeredParams p;
      if (a->size) p.nodes = a->size;
      p.seed = a->seed;
      g = generate::random_layered(p, bo);
    } else {
      generate::TransformerParams p;
      if (a->size) p.layers = a->size;
      p.parallel = a->parallel;
      g = a->kind == "transformer" ? generate::transformer(p, bo) : generate::encoder_decoder(p, bo);
    }
    save_graph(g, a->out);
    if (a->json) {
      nlohmann::ordered_json out;
      out["file"] = a->out;
      out["kind"] = a->kind;
      out["type"] = g.is_training() ? "training" : "generic";
      out["compute_nodes"] = g.compute.size();
      out["data_nodes"] = g.data.size();
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    std::cerr << fmt::format("wrote {}: {} compute nodes, {} data nodes\n", a->out, g.compute.size(), g.data.size());
    return 0;
  };
}

}  // namespace hiremate::cli
