// layered_dag(): the public benchmark family of random layered DAGs (generate.h says how).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "hiremate/common/error.h"
#include "hiremate/common/random.h"
#include "hiremate/graph/generate.h"

namespace hiremate::generate {

Graph layered_dag(const LayeredDagParams& p, const BuildOptions& opt) {
  if (p.nodes < 3 || !(p.width_ratio > 0 && p.width_ratio < 1) || !(p.layer_variance >= 0 && p.layer_variance < 1) ||
      !(p.edge_density >= 0 && p.edge_density <= 1) || !(p.skip_density >= 0 && p.skip_density < 1) ||
      !(p.bytes_scale > 0))
    throw BadInput(
        "layered_dag: need nodes >= 3, width ratio in (0, 1), layer variance and skip density in [0, 1), edge "
        "density in [0, 1] and a positive bytes scale");
  SplitMix64 rng{p.seed * 0x9e3779b97f4a7c15ULL + 0x5eed};
  const int interior = p.nodes - 2;
  const int nominal = std::max(1, static_cast<int>(std::ceil(std::sqrt(interior * (1 / p.width_ratio - 1)))));
  const double mean = static_cast<double>(interior) / nominal;
  const int lo_size = std::max(1, static_cast<int>(std::ceil(mean * (1 - p.layer_variance))));
  const int hi_size = std::max(lo_size, static_cast<int>(std::floor(mean * (1 + p.layer_variance))));
  // Layers of op ids; op 0 is the source, op 1 the target (as in the public files).
  std::vector<std::vector<int>> layers;
  for (int placed = 0; placed < interior;) {
    int size = std::min(interior - placed, static_cast<int>(rng.between(lo_size, hi_size)));
    layers.emplace_back();
    for (int k = 0; k < size; ++k) layers.back().push_back(2 + placed + k);
    placed += size;
  }
  std::vector<std::set<int>> deps(p.nodes);
  for (int v : layers.front()) deps[v].insert(0);
  for (int u : layers.back()) deps[1].insert(u);
  for (size_t l = 0; l + 1 < layers.size(); ++l) {
    const auto &a = layers[l], &b = layers[l + 1];
    std::vector<bool> has_succ(a.size(), false);
    for (int v : b) {
      for (size_t i = 0; i < a.size(); ++i)
        if (rng.uniform(0, 1) < p.edge_density) {
          deps[v].insert(a[i]);
          has_succ[i] = true;
        }
      if (deps[v].empty()) {
        size_t i = static_cast<size_t>(rng.between(0, static_cast<int64_t>(a.size()) - 1));
        deps[v].insert(a[i]);
        has_succ[i] = true;
      }
    }
    for (size_t i = 0; i < a.size(); ++i)
      if (!has_succ[i]) deps[b[static_cast<size_t>(rng.between(0, static_cast<int64_t>(b.size()) - 1))]].insert(a[i]);
  }
  size_t edges = 0;
  for (const auto& d : deps) edges += d.size();
  const int nl = static_cast<int>(layers.size());
  if (nl >= 3) {
    const auto skips = static_cast<long>(std::lround(static_cast<double>(edges) * p.skip_density / (1 - p.skip_density)));
    for (long k = 0; k < skips; ++k) {
      const int from = static_cast<int>(rng.between(0, nl - 3));
      const int to = static_cast<int>(rng.between(from + 2, nl - 1));
      const auto &a = layers[from], &b = layers[to];
      deps[b[static_cast<size_t>(rng.between(0, static_cast<int64_t>(b.size()) - 1))]].insert(
          a[static_cast<size_t>(rng.between(0, static_cast<int64_t>(a.size()) - 1))]);
    }
  }
  // A uniformly random topological order: a random ready op at each step.
  std::vector<std::vector<int>> users(p.nodes);
  std::vector<int> missing(p.nodes, 0);
  for (int v = 0; v < p.nodes; ++v) {
    missing[v] = static_cast<int>(deps[v].size());
    for (int u : deps[v]) users[u].push_back(v);
  }
  std::vector<int> ready{0}, order, index(p.nodes, -1);
  while (!ready.empty()) {
    size_t i = static_cast<size_t>(rng.between(0, static_cast<int64_t>(ready.size()) - 1));
    int v = ready[i];
    ready[i] = ready.back();
    ready.pop_back();
    index[v] = static_cast<int>(order.size());
    order.push_back(v);
    for (int w : users[v])
      if (--missing[w] == 0) ready.push_back(w);
  }
  HM_ASSERT(static_cast<int>(order.size()) == p.nodes, "layered_dag: the layered graph is not connected");
  ForwardSpec s;
  s.name = fmt::format("layered-n{}-w{}-ed{}-scd{}-s{}", p.nodes, p.width_ratio, p.edge_density, p.skip_density, p.seed);
  s.input_bytes = 0;
  for (int v : order) {
    OpSpec op;
    op.name = fmt::format("n{}", v);
    op.time = v <= 1 ? 0 : static_cast<double>(rng.between(1, 999));
    // Half-normal by Box-Muller, rounded up to a multiple of 10 (at least 10).
    const double u1 = std::max(rng.uniform(0, 1), 1e-300), u2 = rng.uniform(0, 1);
    const double z = std::abs(std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2));
    op.bytes = 10 * std::max<int64_t>(1, static_cast<int64_t>(std::ceil(p.bytes_scale * z / 10)));
    for (int d : deps[v]) op.deps.push_back(index[d]);
    if (op.deps.empty()) op.deps.push_back(kInput);
    std::sort(op.deps.begin(), op.deps.end());
    s.ops.push_back(std::move(op));
  }
  return build(s, opt);
}

}  // namespace hiremate::generate
