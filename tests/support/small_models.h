// Small training graphs of the shapes the hierarchical planner targets (chains, U-Nets, transformer
// layers, an encoder-decoder), sized so that the flat exact solver finishes on them in seconds.
#pragma once
#include "hiremate/graph/generate.h"
#include "hiremate/solvers/solver.h"

namespace hiremate::testing {

inline generate::TransformerParams small_transformer(int layers) {
  generate::TransformerParams p;
  p.layers = layers;
  p.batch = 1;
  p.seq = 32;
  p.dim = 32;
  p.heads = 2;
  p.vocab = 64;
  return p;
}

inline Graph small_chain(int n) {
  generate::ChainParams p;
  p.n = n;
  p.period = 3;
  return generate::chain(p);
}

inline Graph small_unet() {
  generate::UNetParams p;
  p.levels = 2;
  p.convs_per_level = 1;
  p.top_bytes = 1 << 20;
  return generate::unet(p);
}

// Bytes: the sources plus `fraction` of the keep-all peak's activations (the peak minus the sources).
inline int64_t activation_budget(const Graph& g, double fraction) {
  const int64_t sources = g.source_bytes();
  return sources + static_cast<int64_t>(fraction * static_cast<double>(baseline(g).peak - sources));
}

}  // namespace hiremate::testing
