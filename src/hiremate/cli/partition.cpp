// `hiremate partition GRAPH [--partitioner NAME]... [--json]`: the H-Partition cluster tree of a graph:
// levels, each cluster's size and interface bytes, equivalence classes, the largest cluster and
// sub-problem, the time taken.
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "hiremate/cli/commands.h"
#include "hiremate/common/units.h"
#include "hiremate/partition/partition.h"

namespace hiremate::cli {

namespace {

using partition::Cluster;
using partition::ClusterTree;
using partition::Partitioning;

struct LevelStats {
  int clusters = 0;
  std::set<int> classes;
  size_t max_size = 0;
};

struct Summary {
  std::map<int, LevelStats> levels;
  int largest = -1;          // largest cluster below the root
  int widest = -1;           // the representative with the largest partitioning estimate
  const Partitioning* widest_split = nullptr;
};

Summary summarize(const ClusterTree& tree) {
  Summary s;
  for (int c : tree.reachable()) {
    const Cluster& cl = tree.cluster(c);
    LevelStats& l = s.levels[cl.level];
    ++l.clusters;
    l.classes.insert(cl.cls);
    l.max_size = std::max(l.max_size, cl.size());
    if (c != tree.root && (s.largest < 0 || cl.size() > tree.cluster(s.largest).size())) s.largest = c;
  }
  for (int r : tree.bottom_up())
    for (const Partitioning& p : tree.cluster(r).partitionings)
      if (!s.widest_split || p.estimate > s.widest_split->estimate) {
        s.widest = r;
        s.widest_split = &p;
      }
  return s;
}

void print_tree(const Graph& g, const ClusterTree& tree, int c, int depth, int max_depth, std::set<int>& printed) {
  const Cluster& cl = tree.cluster(c);
  const int rep = tree.representative_of(c);
  const size_t copies = tree.classes[cl.cls].members.size();
  std::string indent(2 * depth + 2, ' ');
  std::string head = fmt::format("{}c{}: {} units, interface {}", indent, c, cl.size(),
                                 format_bytes(cl.interface.data_bytes(g)));
  if (copies > 1) head += fmt::format(", class {} ({} identical)", cl.cls, copies);
  if (rep != c) {
    fmt::print("{}, solved as c{}\n", head, rep);
    return;
  }
  if (!printed.insert(c).second) {
    fmt::print("{} (above)\n", head);
    return;
  }
  fmt::print("{}\n", head);
  for (const Partitioning& p : cl.partitionings) {
    int subs = 0;
    for (const auto& part : p.parts) subs += !part.leaf();
    fmt::print("{}  {}: {} parts ({} sub-clusters), estimate {}{}\n", indent, p.partitioner, p.parts.size(), subs,
               p.estimate, p.chain ? ", chain" : "");
    if (depth + 1 >= max_depth) {
      if (subs > 0) fmt::print("{}    ... (--depth {} shows more)\n", indent, max_depth + 1);
      continue;
    }
    for (const auto& part : p.parts)
      if (!part.leaf()) print_tree(g, tree, part.cluster, depth + 1, max_depth, printed);
  }
}

// Appends the tree's fields to `out`.
void to_json(const Graph& g, const ClusterTree& tree, const Summary& s, nlohmann::ordered_json& out) {
  out["units"] = tree.cluster(tree.root).size();
  out["partitioners"] = tree.partitioners;
  out["seconds"] = tree.seconds;
  std::vector<int> reachable = tree.reachable();
  out["clusters"] = reachable.size();
  std::set<int> classes;
  for (int c : reachable) classes.insert(tree.cluster(c).cls);
  out["classes"] = classes.size();
  out["representatives"] = tree.bottom_up().size();
  auto& levels = out["levels"] = nlohmann::ordered_json::array();
  for (const auto& [level, l] : s.levels)
    levels.push_back({{"level", level}, {"clusters", l.clusters}, {"classes", l.classes.size()},
                      {"max_size", l.max_size}});
  if (s.largest >= 0) {
    const Cluster& c = tree.cluster(s.largest);
    out["largest_cluster"] = {{"cluster", c.id}, {"size", c.size()}, {"level", c.level},
                              {"interface_bytes", c.interface.data_bytes(g)}};
  } else {
    out["largest_cluster"] = nullptr;
  }
  if (s.widest_split)
    out["largest_partitioning"] = {{"cluster", s.widest}, {"partitioner", s.widest_split->partitioner},
                                   {"parts", s.widest_split->parts.size()}, {"estimate", s.widest_split->estimate},
                                   {"chain", s.widest_split->chain}};
  else
    out["largest_partitioning"] = nullptr;
  auto& list = out["tree"] = nlohmann::ordered_json::array();
  for (int c : reachable) {
    const Cluster& cl = tree.cluster(c);
    nlohmann::ordered_json j;
    j["cluster"] = c;
    j["size"] = cl.size();
    j["level"] = cl.level;
    j["class"] = cl.cls;
    j["representative"] = tree.representative_of(c);
    j["interface_bytes"] = cl.interface.data_bytes(g);
    auto& ps = j["partitionings"] = nlohmann::ordered_json::array();
    for (const Partitioning& p : cl.partitionings) {
      nlohmann::ordered_json parts = nlohmann::ordered_json::array();
      for (const auto& part : p.parts) {
        if (part.leaf()) parts.push_back({{"node", g.compute[part.node].name}});
        else parts.push_back({{"cluster", part.cluster}});
      }
      ps.push_back({{"partitioner", p.partitioner}, {"estimate", p.estimate}, {"limit", p.limit},
                    {"chain", p.chain}, {"parts", parts}});
    }
    list.push_back(j);
  }
}

}  // namespace

Runner add_partition(CLI::App& app) {
  auto* cmd = app.add_subcommand("partition", "H-Partition: the tree of convex clusters a hierarchical solver "
                                              "solves, with identical clusters grouped into classes");
  auto args = std::make_shared<GraphArgs>();
  auto specs = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  auto depth = std::make_shared<int>(3);
  args->add_to(*cmd);
  cmd->add_option("--partitioner", *specs,
                  "bottom_to_top (default), sequence or repetitive, optionally with parameters "
                  "(NAME:key=value,key=value); repeat it to give the root one partitioning per partitioner");
  cmd->add_option("--depth", *depth, "levels of the tree to print (text output; default 3)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", *json, "print JSON on stdout (the whole tree)");
  return [cmd, args, specs, json, depth]() {
    if (!cmd->parsed()) return -1;
    partition::PartitionOptions opt;
    if (!specs->empty()) opt.partitioners = *specs;
    for (const auto& spec : opt.partitioners) partition::make_partitioner(spec);  // BadInput before loading
    Graph g = args->load();
    ClusterTree tree = partition::partition(g, opt);
    Summary s = summarize(tree);
    if (*json) {
      nlohmann::ordered_json out;
      out["graph"] = g.name;
      out["file"] = args->path;
      out["type"] = g.is_training() ? "training" : "generic";
      to_json(g, tree, s, out);
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    std::vector<int> reachable = tree.reachable();
    std::set<int> classes;
    for (int c : reachable) classes.insert(tree.cluster(c).cls);
    std::string names;
    for (const auto& p : tree.partitioners) names += (names.empty() ? "" : ", ") + p;
    fmt::print("graph            {} ({})\n", g.name, args->path);
    fmt::print("units            {} forward nodes{}\n", tree.cluster(tree.root).size(),
               g.is_training() ? " (training graph: each with its backward; the loss is outside every cluster)"
                               : " (generic DAG)");
    fmt::print("partitioners     {}\n", names);
    fmt::print("time             {:.3f} s\n", tree.seconds);
    fmt::print("clusters         {} in {} classes ({} representatives to solve)\n", reachable.size(),
               classes.size(), tree.bottom_up().size());
    if (s.largest >= 0) {
      const Cluster& c = tree.cluster(s.largest);
      fmt::print("largest cluster  c{}: {} units, interface {}\n", c.id, c.size(),
                 format_bytes(c.interface.data_bytes(g)));
    }
    if (s.widest_split)
      fmt::print("largest split    c{} by {}: {} parts, estimate {}{}\n", s.widest, s.widest_split->partitioner,
                 s.widest_split->parts.size(), s.widest_split->estimate, s.widest_split->chain ? " (a chain)" : "");
    fmt::print("levels           level  clusters  classes  max units\n");
    for (const auto& [level, l] : s.levels)
      fmt::print("                 {:>5}  {:>8}  {:>7}  {:>9}\n", level, l.clusters, l.classes.size(), l.max_size);
    fmt::print("tree\n");
    std::set<int> printed;
    if (*depth > 0) print_tree(g, tree, tree.root, 0, *depth, printed);
    return 0;
  };
}

}  // namespace hiremate::cli
