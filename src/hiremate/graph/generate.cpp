#include "hiremate/graph/generate.h"

#include "hiremate/common/random.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "hiremate/common/error.h"

namespace hiremate::generate {

Graph build(const ForwardSpec& spec, const BuildOptions& opt) {
  const int n = static_cast<int>(spec.ops.size());
  std::unordered_set<std::string> names;
  std::vector<int> users(n, 0);
  for (int i = 0; i < n; ++i) {
    if (!names.insert(spec.ops[i].name).second)
      throw BadInput(fmt::format("generate: op name '{}' repeats", spec.ops[i].name));
    for (int d : spec.ops[i].deps) {
      if (d != kInput && (d < 0 || d >= i))
        throw BadInput(fmt::format("generate: op '{}' reads {}, which is not an earlier op", spec.ops[i].name, d));
      if (d != kInput) ++users[d];
    }
  }
  Graph g;
  g.name = spec.name;
  if (!opt.training) {
    std::vector<NodeId> data(n);
    for (int i = 0; i < n; ++i) data[i] = g.add_data(spec.ops[i].name, DataKind::Data, spec.ops[i].bytes);
    for (int i = 0; i < n; ++i) {
      std::vector<NodeId> deps;
      for (int d : spec.ops[i].deps)
        if (d != kInput && std::find(deps.begin(), deps.end(), data[d]) == deps.end()) deps.push_back(data[d]);
      g.add_compute(spec.ops[i].name, ComputeKind::Forward, spec.ops[i].time, 0, deps, {data[i]});
    }
    g.finalize();
    return g;
  }
  bool reads_input = false;
  for (const OpSpec& op : spec.ops)
    reads_input = reads_input || std::find(op.deps.begin(), op.deps.end(), kInput) != op.deps.end();
  NodeId input = kNone, input_grad = kNone;
  if (reads_input) {  // a grad nobody writes would be invalid
    input = g.add_data("input", DataKind::Data, spec.input_bytes, true);
    input_grad = g.add_data("input.grad", DataKind::Grad, spec.input_bytes);
  }
  std::vector<NodeId> data(n), grad(n), phantoms(n, kNone);
  for (int i = 0; i < n; ++i) {
    const OpSpec& op = spec.ops[i];
    data[i] = g.add_data(op.name, DataKind::Data, op.bytes);
    grad[i] = g.add_data(op.name + ".grad", DataKind::Grad, op.bytes);
    if (op.phantom_bytes > 0) phantoms[i] = g.add_data(op.name + ".phantoms", DataKind::Phantoms, op.phantom_bytes);
  }
  auto deps_of = [&](int i, const std::vector<NodeId>& of, NodeId for_input) {
    std::vector<NodeId> out;
    for (int d : spec.ops[i].deps) {
      NodeId x = d == kInput ? for_input : of[d];
      if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
    }
    return out;
  };
  std::vector<NodeId> fwd(n);
  for (int i = 0; i < n; ++i) {
    std::vector<NodeId> outs{data[i]};
    if (phantoms[i] != kNone) outs.push_back(phantoms[i]);
    fwd[i] = g.add_compute(spec.ops[i].name, ComputeKind::Forward, spec.ops[i].time, 0, deps_of(i, data, input), outs);
  }
  std::vector<NodeId> sinks, sink_grads;
  for (int i = 0; i < n; ++i)
    if (users[i] == 0) {
      sinks.push_back(data[i]);
      sink_grads.push_back(grad[i]);
    }
  g.add_compute("loss", ComputeKind::Loss, 0, 0, sinks, sink_grads);
  for (int i = n - 1; i >= 0; --i) {
    std::vector<NodeId> deps{grad[i]};
    for (NodeId d : deps_of(i, data, input)) deps.push_back(d);
    if (phantoms[i] != kNone) deps.push_back(phantoms[i]);
    NodeId b = g.add_compute(spec.ops[i].name + ".backward", ComputeKind::Backward,
                             spec.ops[i].time * opt.backward_factor, 0, deps, deps_of(i, grad, input_grad),
                             {data[i]});
    g.set_pair(fwd[i], b);
  }
  g.finalize();
  return g;
}

Graph chain(const ChainParams& p, const BuildOptions& opt) {
  ForwardSpec s;
  s.name = fmt::format("chain-{}", p.n);
  s.input_bytes = p.bytes;
  const int period = std::max(1, p.period);
  for (int i = 0; i < p.n; ++i) {
    int k = 1 + i % period;
    s.ops.push_back({fmt::format("op{}", i), p.time * k, p.bytes * k, 0, {i == 0 ? kInput : i - 1}});
  }
  return build(s, opt);
}

Graph unet(const UNetParams& p, const BuildOptions& opt) {
  ForwardSpec s;
  s.name = fmt::format("unet-{}x{}", p.levels, p.convs_per_level);
  s.input_bytes = p.top_bytes / 16;  // a few input channels
  auto add = [&](const std::string& name, double time, int64_t bytes, int64_t phantom, std::vector<int> deps) {
    s.ops.push_back({name, time, bytes, phantom, std::move(deps)});
    return static_cast<int>(s.ops.size()) - 1;
  };
  auto at = [&](int level) { return std::max<int64_t>(1, p.top_bytes >> level); };
  auto time_at = [&](int level) { return p.conv_time / static_cast<double>(int64_t{1} << level); };
  int x = add("stem", time_at(0), at(0), at(0) / 4, {kInput});
  std::vector<int> skips;
  for (int l = 0; l < p.levels; ++l) {
    for (int c = 0; c < p.convs_per_level; ++c)
      x = add(fmt::format("down{}.conv{}", l, c), time_at(l), at(l), at(l) / 4, {x});
    skips.push_back(x);
    x = add(fmt::format("down{}.pool", l), time_at(l) / 4, at(l + 1), 0, {x});
  }
  for (int c = 0; c < p.convs_per_level; ++c)
    x = add(fmt::format("bottleneck.conv{}", c), time_at(p.levels), at(p.levels), at(p.levels) / 4, {x});
  for (int l = p.levels - 1; l >= 0; --l) {
    x = add(fmt::format("up{}.upsample", l), time_at(l) / 4, at(l), 0, {x});
    x = add(fmt::format("up{}.concat", l), time_at(l) / 8, 2 * at(l), 0, {x, skips[l]});
    for (int c = 0; c < p.convs_per_level; ++c)
      x = add(fmt::format("up{}.conv{}", l, c), time_at(l), at(l), at(l) / 4, {x});
  }
  add("head", time_at(0) / 2, at(0) / 16, 0, {x});
  return build(s, opt);
}

// Sizes (bytes) and times (FLOPs at 100 TFLOP/s) of a transformer layer's ops, shared by the
// decoder-only and the encoder-decoder generators.
struct LayerCosts {
  int64_t tokens, eb, m, scores, hidden, stats;
  double d, t, attention;
  static constexpr double kFlopsPerSecond = 1e14;
  explicit LayerCosts(const TransformerParams& p)
      : tokens(p.batch * p.seq),
        eb(p.element_bytes),
        m(tokens * p.dim * eb),                          // one activation
        scores(p.batch * p.heads * p.seq * p.seq * eb),  // attention matrix
        hidden(m * p.mlp_ratio),
        stats(tokens * 2 * 4),                           // a norm's mean and rstd
        d(static_cast<double>(p.dim)),
        t(static_cast<double>(tokens)),
        attention(2 * t * static_cast<double>(p.seq) * d / kFlopsPerSecond) {}  // QK^T or AV
  double linear(double in, double out) const { return 2 * t * in * out / kFlopsPerSecond; }
  double elementwise(int64_t bytes) const { return 4.0 * static_cast<double>(bytes / eb) / kFlopsPerSecond; }
};

Graph transformer(const TransformerParams& p, const BuildOptions& opt) {
  ForwardSpec s;
  s.name = fmt::format("transformer-{}{}", p.layers, p.parallel ? "-parallel" : "");
  const LayerCosts c(p);
  const int64_t tokens = c.tokens, eb = c.eb, m = c.m, scores = c.scores, hidden = c.hidden, stats = c.stats;
  const double d = c.d, attention = c.attention;
  auto linear = [&](double in, double out) { return c.linear(in, out); };
  auto elementwise = [&](int64_t bytes) { return c.elementwise(bytes); };
  s.input_bytes = tokens * 8;  // token ids
  auto add = [&](const std::string& name, double time, int64_t bytes, int64_t phantom, std::vector<int> deps) {
    s.ops.push_back({name, time, bytes, phantom, std::move(deps)});
    return static_cast<int>(s.ops.size()) - 1;
  };
  int x = add("embed", elementwise(m), m, 0, {kInput});
  for (int l = 0; l < p.layers; ++l) {
    auto name = [&](const char* op) { return fmt::format("layer{}.{}", l, op); };
    int ln1 = add(name("ln1"), elementwise(m), m, stats, {x});
    int q = add(name("q"), linear(d, d), m, 0, {ln1});
    int k = add(name("k"), linear(d, d), m, 0, {ln1});
    int v = add(name("v"), linear(d, d), m, 0, {ln1});
    int sc = add(name("scores"), attention, scores, 0, {q, k});
    int sm = add(name("softmax"), elementwise(scores), scores, 0, {sc});
    int ctx = add(name("ctx"), attention, m, 0, {sm, v});
    int proj = add(name("proj"), linear(d, d), m, 0, {ctx});
    if (p.parallel) {
      int fc1 = add(name("fc1"), linear(d, d * p.mlp_ratio), hidden, 0, {ln1});
      int gelu = add(name("gelu"), elementwise(hidden), hidden, 0, {fc1});
      int fc2 = add(name("fc2"), linear(d * p.mlp_ratio, d), m, 0, {gelu});
      x = add(name("add"), elementwise(m), m, 0, {x, proj, fc2});
    } else {
      int add1 = add(name("add1"), elementwise(m), m, 0, {x, proj});
      int ln2 = add(name("ln2"), elementwise(m), m, stats, {add1});
      int fc1 = add(name("fc1"), linear(d, d * p.mlp_ratio), hidden, 0, {ln2});
      int gelu = add(name("gelu"), elementwise(hidden), hidden, 0, {fc1});
      int fc2 = add(name("fc2"), linear(d * p.mlp_ratio, d), m, 0, {gelu});
      x = add(name("add2"), elementwise(m), m, 0, {add1, fc2});
    }
  }
  int lnf = add("ln_f", elementwise(m), m, stats, {x});
  add("head", linear(d, static_cast<double>(p.vocab)), tokens * p.vocab * eb, 0, {lnf});
  return build(s, opt);
}

Graph encoder_decoder(const TransformerParams& p, const BuildOptions& opt) {
  ForwardSpec s;
  s.name = fmt::format("encoder-decoder-{}", p.layers);
  const LayerCosts c(p);
  const int64_t tokens = c.tokens, eb = c.eb, m = c.m, scores = c.scores, hidden = c.hidden, stats = c.stats;
  const double d = c.d, attention = c.attention;
  auto linear = [&](double in, double out) { return c.linear(in, out); };
  auto elementwise = [&](int64_t bytes) { return c.elementwise(bytes); };
  s.input_bytes = 2 * tokens * 8;  // source and target token ids
  auto add = [&](const std::string& name, double time, int64_t bytes, int64_t phantom, std::vector<int> deps) {
    s.ops.push_back({name, time, bytes, phantom, std::move(deps)});
    return static_cast<int>(s.ops.size()) - 1;
  };
  // Attention of `query` over `keys` (self-attention when they are the same), then the projection.
  auto attend = [&](const std::string& prefix, int query, int keys) {
    auto name = [&](const char* op) { return prefix + op; };
    int q = add(name("q"), linear(d, d), m, 0, {query});
    int k = add(name("k"), linear(d, d), m, 0, {keys});
    int v = add(name("v"), linear(d, d), m, 0, {keys});
    int sc = add(name("scores"), attention, scores, 0, {q, k});
    int sm = add(name("softmax"), elementwise(scores), scores, 0, {sc});
    int ctx = add(name("ctx"), attention, m, 0, {sm, v});
    return add(name("proj"), linear(d, d), m, 0, {ctx});
  };
  auto mlp = [&](const std::string& prefix, int x) {
    int ln = add(prefix + "ln2", elementwise(m), m, stats, {x});
    int fc1 = add(prefix + "fc1", linear(d, d * p.mlp_ratio), hidden, 0, {ln});
    int gelu = add(prefix + "gelu", elementwise(hidden), hidden, 0, {fc1});
    int fc2 = add(prefix + "fc2", linear(d * p.mlp_ratio, d), m, 0, {gelu});
    return add(prefix + "add_mlp", elementwise(m), m, 0, {x, fc2});
  };
  int x = add("src_embed", elementwise(m), m, 0, {kInput});
  for (int l = 0; l < p.layers; ++l) {
    std::string prefix = fmt::format("enc{}.", l);
    int ln1 = add(prefix + "ln1", elementwise(m), m, stats, {x});
    int a = add(prefix + "add_attn", elementwise(m), m, 0, {x, attend(prefix + "self.", ln1, ln1)});
    x = mlp(prefix, a);
  }
  const int memory = add("enc_norm", elementwise(m), m, stats, {x});
  int y = add("tgt_embed", elementwise(m), m, 0, {kInput});
  for (int l = 0; l < p.layers; ++l) {
    std::string prefix = fmt::format("dec{}.", l);
    int ln1 = add(prefix + "ln1", elementwise(m), m, stats, {y});
    int a = add(prefix + "add_self", elementwise(m), m, 0, {y, attend(prefix + "self.", ln1, ln1)});
    int lnc = add(prefix + "ln_cross", elementwise(m), m, stats, {a});
    int c = add(prefix + "add_cross", elementwise(m), m, 0, {a, attend(prefix + "cross.", lnc, memory)});
    y = mlp(prefix, c);
  }
  int lnf = add("ln_f", elementwise(m), m, stats, {y});
  add("head", linear(d, static_cast<double>(p.vocab)), tokens * p.vocab * eb, 0, {lnf});
  return build(s, opt);
}

using Random = SplitMix64;

Graph random_layered(const RandomLayeredParams& p, const BuildOptions& opt) {
  if (p.nodes < 1 || p.max_deps < 1 || p.span < 1 || p.min_bytes < 0 || p.max_bytes < p.min_bytes ||
      p.min_time < 0 || p.max_time < p.min_time)
    throw BadInput("random_layered: need nodes, max_deps, span >= 1 and ordered non-negative byte and time ranges");
  const int width = p.width > 0 ? p.width : std::max(1, static_cast<int>(std::lround(std::sqrt(p.nodes))));
  Random rng{p.seed};
  ForwardSpec s;
  s.name = fmt::format("random-layered-{}-s{}", p.nodes, p.seed);
  s.input_bytes = p.min_bytes;
  for (int i = 0; i < p.nodes; ++i) {
    const int layer = i / width;
    OpSpec op;
    op.name = fmt::format("n{}", i);
    op.bytes = rng.between(p.min_bytes, p.max_bytes);
    op.time = rng.uniform(p.min_time, p.max_time);
    if (layer == 0) {
      op.deps = {kInput};
    } else {
      const int prev_lo = (layer - 1) * width;  // the previous layer: [prev_lo, layer * width)
      const int lo = std::max(0, (layer - p.span) * width);
      const int hi = layer * width - 1;
      op.deps.push_back(static_cast<int>(rng.between(prev_lo, hi)));
      const int extra = static_cast<int>(rng.between(0, p.max_deps - 1));
      for (int k = 0; k < extra; ++k) {
        int d = static_cast<int>(rng.between(lo, hi));
        if (std::find(op.deps.begin(), op.deps.end(), d) == op.deps.end()) op.deps.push_back(d);
      }
      std::sort(op.deps.begin(), op.deps.end());
    }
    s.ops.push_back(std::move(op));
  }
  return build(s, opt);
}

}  // namespace hiremate::generate
