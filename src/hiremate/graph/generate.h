// Generators of test and benchmark graphs: chains, U-Net-like skip graphs, transformer-like repeated
// blocks, random layered DAGs. Each describes a forward DAG of ops (ForwardSpec) and build() turns it
// into a finalized Graph, either
//  - a TRAINING graph (HiRemate's K-graph, DESIGN §2): a source `input`; per op a forward writing its
//    data (and phantoms when it saves any), a backward paired with it that reads the op's grad, the
//    data of its deps and its phantoms, and writes the grads of its deps (grads of ops read by several
//    ops accumulate); a `loss` reading every op nobody else reads and writing their grads; or
//  - a generic DAG (Checkmate's model): one forward and one data node per op, no source (ops that read
//    the input read nothing), as the public benchmark graphs import.
// Same parameters, same graph (the random generator is seeded and implementation-independent).
// Units: bytes; times in seconds (the transformer's from a FLOP count at 100 TFLOP/s, the others as
// given).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hiremate/graph/graph.h"

namespace hiremate::generate {

constexpr int kInput = -1;  // as an op dep: the model input

struct OpSpec {
  std::string name;
  double time = 1;            // forward time; the backward takes BuildOptions::backward_factor x this
  int64_t bytes = 0;          // output bytes
  int64_t phantom_bytes = 0;  // training only: what the forward saves for its backward besides its
                              // inputs and output (0: no phantoms node)
  std::vector<int> deps;      // earlier ops, by index, or kInput
};

struct ForwardSpec {
  std::string name;
  int64_t input_bytes = 0;    // training only: the size of the source `input`
  std::vector<OpSpec> ops;    // in a topological order (deps point backwards)
};

struct BuildOptions {
  bool training = true;        // false: a generic DAG
  double backward_factor = 2;  // backward time / forward time
};

// BadInput when a dep is not an earlier op or kInput, or a name repeats.
Graph build(const ForwardSpec& spec, const BuildOptions& opt = {});

// A chain of `n` ops, each reading the previous one (the first reads the input). Op i has
// `bytes` x (1 + i % `period`) output bytes and time `time` x (1 + i % `period`): with period 1 all
// ops are alike.
struct ChainParams {
  int n = 100;
  int64_t bytes = int64_t{1} << 20;
  double time = 1;
  int period = 1;
};
Graph chain(const ChainParams& p, const BuildOptions& opt = {});

// A U-Net: a stem conv, then `levels` down steps (convs_per_level convs, then a pool halving the
// resolution and doubling channels: bytes / 2), a bottleneck of convs_per_level convs, then `levels`
// up steps (an upsample, a concat with the skip from the same level on the way down, convs_per_level
// convs) and a head conv. Convs at full resolution write `top_bytes` and take `conv_time`; each
// level down halves both. Convs save `top_bytes`/4-scaled phantoms (a normalization's statistics and
// an activation mask).
struct UNetParams {
  int levels = 4;
  int convs_per_level = 2;
  int64_t top_bytes = int64_t{64} << 20;
  double conv_time = 1e-3;
};
Graph unet(const UNetParams& p, const BuildOptions& opt = {});

// A decoder-only transformer: embed, `layers` identical layers, a final norm and the vocabulary head.
// A layer (sequential, GPT-2 style, 14 ops): ln1, q, k, v, scores, softmax, ctx, proj, add1 (reads the
// layer input), ln2, fc1, gelu, fc2, add2 (reads add1). With `parallel` (GPT-J / PaLM style, 12 ops):
// one norm feeds both attention and MLP and a single add joins the layer input, proj and fc2.
// Sizes from batch, seq, dim, heads, mlp_ratio and element_bytes (e.g. scores: batch x heads x seq^2);
// times from FLOP counts at 100 TFLOP/s; norms save their statistics as phantoms.
struct TransformerParams {
  int layers = 12;
  int64_t batch = 8;
  int64_t seq = 512;
  int64_t dim = 768;
  int64_t heads = 12;
  int64_t mlp_ratio = 4;
  int64_t vocab = 32000;
  int64_t element_bytes = 4;
  bool parallel = false;
};
Graph transformer(const TransformerParams& p, const BuildOptions& opt = {});

// An encoder-decoder transformer (nn.Transformer-like): a source embed and `layers` encoder layers
// (as the sequential transformer's), a final encoder norm (the memory), a target embed and `layers`
// decoder layers of 23 ops (self-attention, cross-attention whose keys and values read the memory,
// MLP), a final norm and the head. Sizes and times as for transformer(); `parallel` is ignored.
Graph encoder_decoder(const TransformerParams& p, const BuildOptions& opt = {});

// A random layered DAG of `nodes` ops in layers of `width` ops (0: about sqrt(nodes)). Each op of layer
// k > 0 reads 1 to `max_deps` distinct ops of layers k-span .. k-1, at least one from layer k-1;
// layer 0 reads the input. Bytes uniform in [min_bytes, max_bytes], times in [min_time, max_time].
struct RandomLayeredParams {
  int nodes = 1000;
  int width = 0;
  int max_deps = 3;
  int span = 2;
  uint64_t seed = 1;
  int64_t min_bytes = int64_t{1} << 20;
  int64_t max_bytes = int64_t{64} << 20;
  double min_time = 1;
  double max_time = 10;
};
Graph random_layered(const RandomLayeredParams& p, const BuildOptions& opt = {});

// Random layered DAGs of the public benchmark family (Gagrani et al., "Neural Topological Ordering for
// Computation Graphs", NeurIPS 2022, App. A; the rl*.json files of Moccasin's benchmark): a source op,
// layers of interior ops, a target op. With I = nodes - 2 interior ops: L = ceil(sqrt(I (1/w - 1)))
// nominal layers (w: the width ratio; wider for larger w), layer sizes drawn uniformly in
// [I/L (1 - v), I/L (1 + v)] until the I ops are placed; every pair of ops in consecutive layers is an
// edge with probability `edge_density`, then every op gets at least one predecessor in the layer
// before and one successor in the layer after; then E x s / (1 - s) skip edges (E: the edges so far,
// s: `skip_density`), each from a random op of layer a to a random op of a random layer >= a + 2
// (repeats dropped). The source feeds the first layer and the last layer feeds the target. The
// ops are written in a uniformly random topological order (a random ready op at each step), which
// is the graph's fixed order. Times: integers uniform in [1, 999] (the source and target: 0); bytes:
// a half-normal of scale `bytes_scale` rounded up to a multiple of 10 (the public files: mean about
// 2,000, none above 8,200; the paper does not state either distribution). Checked against the public
// files (rl1-rl4: w 0.27-0.43, ed 0.2, scd 0.14): their layer counts follow L within 2 and their skip
// edges are 14 % of all. w = 0.47 at 2,000 nodes gives about 10 edges per node.
struct LayeredDagParams {
  int nodes = 1000;            // all ops, the source and target included (>= 3)
  double width_ratio = 0.3;    // w in (0, 1)
  double layer_variance = 0.75;  // v in [0, 1): the spread of layer sizes ("nlv" in the file names)
  double edge_density = 0.2;   // "ed"
  double skip_density = 0.14;  // "scd", in [0, 1)
  uint64_t seed = 1;
  double bytes_scale = 2500;
};
Graph layered_dag(const LayeredDagParams& p, const BuildOptions& opt = {});

}  // namespace hiremate::generate
