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

// An encoder-decoder (one encoder and one decoder layer, 85 compute nodes) with tensors small enough
// (8 tokens of width 16, one head) that the flat MILP bounds it within a third of a point at 50 % in
// 90 s; with small_transformer(1)'s sizes the same graph is not proven at 50 % in 1,529 s (bound
// 6.047 %, best 6.733 %).
inline Graph tiny_encoder_decoder() {
  generate::TransformerParams p = small_transformer(1);
  p.seq = 8;
  p.dim = 16;
  p.heads = 1;
  return generate::encoder_decoder(p);
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

// A generic DAG of the public random layered family (generate::layered_dag) with `nodes` ops, width
// ratio `w` (0.47: about 10 edges per node, the dense DAGs of issue 23) and `seed`.
inline Graph layered(int nodes, double w, uint64_t seed) {
  generate::LayeredDagParams p;
  p.nodes = nodes;
  p.width_ratio = w;
  p.seed = seed;
  generate::BuildOptions bo;
  bo.training = false;
  return generate::layered_dag(p, bo);
}

}  // namespace hiremate::testing
