// Partition time against graph size (issue 4): generated graphs of about 1k, 5k and 20k compute
// nodes, each partitioner, the median of a few runs, and the growth from one size to the next
// (x4 nodes: linear growth is x4, n log n a little more, quadratic x16).
//
//   bench_partition [--sizes 1000,5000,20000] [--repeat 3] [--families random,random-train,transformer]
//
// Families (sizes are compute nodes; a training graph has about two per unit):
//   random        random layered generic DAG (no structure to find: the worst case for the greedy)
//   random-train  the same as a training graph (forward/backward pairs, grads, loss)
//   transformer   GPT-2-style layers as a training graph (repeats: classes matter)
// Prints a markdown table on stdout.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "hiremate/graph/generate.h"
#include "hiremate/partition/partition.h"

using namespace hiremate;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

Graph make(const std::string& family, int nodes) {
  if (family == "random") {
    generate::RandomLayeredParams p;
    p.nodes = nodes;
    generate::BuildOptions o;
    o.training = false;
    return generate::random_layered(p, o);
  }
  if (family == "random-train") {
    generate::RandomLayeredParams p;
    p.nodes = nodes / 2;
    return generate::random_layered(p, {});
  }
  if (family == "transformer") {
    generate::TransformerParams p;
    p.layers = std::max(1, (nodes / 2 - 3) / 14);
    return generate::transformer(p, {});
  }
  fmt::print(stderr, "unknown family '{}'; known: random, random-train, transformer\n", family);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes{1000, 5000, 20000};
  std::vector<std::string> families{"random", "random-train", "transformer"};
  int repeat = 3;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc) {
      fmt::print(stderr, "{} needs a value\n", arg);
      return 2;
    }
    if (arg == "--sizes") {
      sizes.clear();
      for (const auto& s : split(argv[++i])) sizes.push_back(std::stoi(s));
    } else if (arg == "--repeat") {
      repeat = std::max(1, std::stoi(argv[++i]));
    } else if (arg == "--families") {
      families = split(argv[++i]);
    } else {
      fmt::print(stderr, "usage: bench_partition [--sizes 1000,5000,20000] [--repeat 3] [--families ...]\n");
      return 2;
    }
  }
  fmt::print("| family | compute nodes | units | partitioner | seconds (median of {}) | growth | clusters | "
             "classes |\n",
             repeat);
  fmt::print("|---|---|---|---|---|---|---|---|\n");
  for (const auto& family : families)
    for (const char* partitioner : {"bottom_to_top", "sequence", "repetitive"}) {
      double previous = 0;
      for (int n : sizes) {
        Graph g = make(family, n);
        std::vector<double> times;
        partition::ClusterTree tree;
        for (int r = 0; r < repeat; ++r) {
          partition::PartitionOptions opt;
          opt.partitioners = {partitioner};
          tree = partition::partition(g, opt);
          times.push_back(tree.seconds);
        }
        std::sort(times.begin(), times.end());
        double median = times[times.size() / 2];
        std::set<int> classes;
        std::vector<int> reachable = tree.reachable();
        for (int c : reachable) classes.insert(tree.cluster(c).cls);
        fmt::print("| {} | {} | {} | {} | {:.4f} | {} | {} | {} |\n", family, g.compute.size(),
                   tree.cluster(tree.root).size(), partitioner, median,
                   previous > 0 ? fmt::format("x{:.1f}", median / previous) : "", reachable.size(), classes.size());
        previous = median;
      }
    }
  return 0;
}
