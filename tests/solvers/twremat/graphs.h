// Seeded test graphs for TW-Remat: forward specs (chains, U-Net-like skips, random DAGs) built as
// generic DAGs or as training graphs (forward, loss, backward with grads and phantoms).
#pragma once
#include "hiremate/common/random.h"
#include <cstdint>
#include <string>
#include <vector>

#include "hiremate/graph/graph.h"

namespace hiremate::testing::tw {

struct OpSpec {
  int64_t bytes = 1;
  double time = 1;
  std::vector<int> deps;  // earlier ops; none: reads the input (training) or nothing (generic)
  int64_t phantoms = 0;   // training only: bytes its forward saves for its backward
};

// One forward and one data node per op, in spec order.
inline Graph generic(const std::vector<OpSpec>& ops, const std::string& name = "generic") {
  Graph g;
  g.name = name;
  for (size_t i = 0; i < ops.size(); ++i) g.add_data("d" + std::to_string(i), DataKind::Data, ops[i].bytes);
  for (size_t i = 0; i < ops.size(); ++i)
    g.add_compute("n" + std::to_string(i), ComputeKind::Forward, ops[i].time, 0,
                  std::vector<NodeId>(ops[i].deps.begin(), ops[i].deps.end()), {NodeId(i)});
  g.finalize();
  return g;
}

// Source x; F_i writes a_i (and p_i when it has phantoms); the loss reads the ops nobody reads and
// writes their grads; B_i reads a_i's grad, its inputs and p_i, takes twice F_i's time and writes
// the grads of its op inputs (accumulating where an op feeds several).
inline Graph training(const std::vector<OpSpec>& ops, int64_t input_bytes = 4, const std::string& name = "training") {
  Graph g;
  g.name = name;
  const int n = static_cast<int>(ops.size());
  NodeId x = g.add_data("x", DataKind::Data, input_bytes, true);
  std::vector<NodeId> a(n), p(n, kNone), grad(n);
  std::vector<bool> read(n, false);
  for (int i = 0; i < n; ++i) {
    a[i] = g.add_data("a" + std::to_string(i), DataKind::Data, ops[i].bytes);
    if (ops[i].phantoms > 0) p[i] = g.add_data("p" + std::to_string(i), DataKind::Phantoms, ops[i].phantoms);
    grad[i] = g.add_data("g" + std::to_string(i), DataKind::Grad, ops[i].bytes);
    for (int d : ops[i].deps) read[d] = true;
  }
  std::vector<NodeId> fwd(n);
  for (int i = 0; i < n; ++i) {
    std::vector<NodeId> deps;
    for (int d : ops[i].deps) deps.push_back(a[d]);
    if (deps.empty()) deps.push_back(x);
    std::vector<NodeId> outs{a[i]};
    if (p[i] != kNone) outs.push_back(p[i]);
    fwd[i] = g.add_compute("F" + std::to_string(i), ComputeKind::Forward, ops[i].time, 0, deps, outs);
  }
  std::vector<NodeId> loss_in, loss_out;
  for (int i = 0; i < n; ++i)
    if (!read[i]) {
      loss_in.push_back(a[i]);
      loss_out.push_back(grad[i]);
    }
  g.add_compute("loss", ComputeKind::Loss, 0, 0, loss_in, loss_out);
  for (int i = n - 1; i >= 0; --i) {
    std::vector<NodeId> deps{grad[i]};
    std::vector<NodeId> outs;
    for (int d : ops[i].deps) {
      deps.push_back(a[d]);
      outs.push_back(grad[d]);
    }
    if (ops[i].deps.empty()) deps.push_back(x);
    if (p[i] != kNone) deps.push_back(p[i]);
    NodeId b = g.add_compute("B" + std::to_string(i), ComputeKind::Backward, 2 * ops[i].time, 0, deps, outs);
    g.set_pair(fwd[i], b);
  }
  g.finalize();
  return g;
}

// The forward and backward of `ops` as one generic DAG, as Checkmate's MLSys graphs are: F_i, then a
// loss L reading the ops nobody reads, then B_i (descending) reading the B of each reader of op i
// (L for a sink), F_i and the outputs of its inputs; one output each, B_i as big as F_i's.
inline Graph generic_training(const std::vector<OpSpec>& ops, const std::string& name = "generic_training") {
  std::vector<OpSpec> all(ops.begin(), ops.end());
  const int n = static_cast<int>(ops.size());
  std::vector<std::vector<int>> readers(n);
  for (int i = 0; i < n; ++i)
    for (int d : ops[i].deps) readers[d].push_back(i);
  OpSpec loss{1, 1, {}, 0};
  for (int i = 0; i < n; ++i)
    if (readers[i].empty()) loss.deps.push_back(i);
  all.push_back(loss);
  std::vector<int> backward(n);
  for (int i = n - 1; i >= 0; --i) {
    OpSpec b{ops[i].bytes, 2 * ops[i].time, {i}, 0};
    for (int r : readers[i]) b.deps.push_back(backward[r]);
    if (readers[i].empty()) b.deps.push_back(n);
    for (int d : ops[i].deps) b.deps.push_back(d);
    backward[i] = static_cast<int>(all.size());
    all.push_back(b);
  }
  for (auto& op : all) op.phantoms = 0;
  return generic(all, name);
}

// The project's deterministic generator (common/random.h), under the name these tests use.
struct Rng : SplitMix64 {
  int64_t in(int64_t lo, int64_t hi) { return between(lo, hi); }
};

// n ops; op i reads 1 to 3 distinct ops among the `window` before it (op 0 reads nothing). Bytes in
// [1, 20], times in [1, 9], phantoms (for training) on every third op.
inline std::vector<OpSpec> random_dag(int n, uint64_t seed, int window = 6) {
  Rng rng{seed};
  std::vector<OpSpec> ops(n);
  for (int i = 0; i < n; ++i) {
    ops[i].bytes = rng.in(1, 20);
    ops[i].time = static_cast<double>(rng.in(1, 9));
    ops[i].phantoms = i % 3 == 0 ? rng.in(1, 5) : 0;
    if (i == 0) continue;
    int k = static_cast<int>(rng.in(1, 3));
    for (int t = 0; t < k; ++t) {
      int d = static_cast<int>(rng.in(std::max(0, i - window), i - 1));
      bool dup = false;
      for (int e : ops[i].deps) dup |= e == d;
      if (!dup) ops[i].deps.push_back(d);
    }
  }
  return ops;
}

// A chain of n ops, op i of `bytes` bytes and time 1 + i % 3.
inline std::vector<OpSpec> chain(int n, int64_t bytes = 10, int64_t phantoms = 0) {
  std::vector<OpSpec> ops(n);
  for (int i = 0; i < n; ++i) {
    ops[i].bytes = bytes;
    ops[i].time = 1 + i % 3;
    ops[i].phantoms = phantoms;
    if (i > 0) ops[i].deps = {i - 1};
  }
  return ops;
}

// A U-Net: `levels` down ops (bytes halving), a bottleneck, `levels` up ops each reading the previous
// op and the skip from the down op of its level.
inline std::vector<OpSpec> unet(int levels, int64_t top_bytes = 64) {
  std::vector<OpSpec> ops;
  std::vector<int> down;
  int64_t bytes = top_bytes;
  for (int l = 0; l < levels; ++l) {
    OpSpec s{bytes, 1.0 + l, {}, bytes / 4};
    if (!ops.empty()) s.deps = {static_cast<int>(ops.size()) - 1};
    down.push_back(static_cast<int>(ops.size()));
    ops.push_back(s);
    bytes = std::max<int64_t>(1, bytes / 2);
  }
  ops.push_back({bytes, 2, {static_cast<int>(ops.size()) - 1}, 0});
  for (int l = levels - 1; l >= 0; --l) {
    bytes = ops[down[l]].bytes;
    ops.push_back({bytes, 1.0 + l, {static_cast<int>(ops.size()) - 1, down[l]}, bytes / 4});
  }
  return ops;
}

}  // namespace hiremate::testing::tw
