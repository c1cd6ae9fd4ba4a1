#include "hiremate/hierarchy/chain.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "hiremate/common/error.h"
#include "hiremate/partition/canonical.h"
#include "hiremate/partition/cluster_graph.h"
#include "hiremate/partition/forward_graph.h"
#include "hiremate/partition/sequence.h"
#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/baselines.h"
#include "hiremate/hierarchy/cluster_problem.h"

namespace hiremate::hierarchy {

namespace {

struct Blocks {
  std::vector<partition::Cluster> clusters;
  std::vector<std::vector<int64_t>> signatures;
};

std::vector<NodeId> non_source(const Graph& g, const std::vector<NodeId>& ids) {
  std::vector<NodeId> out;
  for (NodeId d : ids)
    if (!g.data[d].source) out.push_back(d);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool contains(const std::vector<NodeId>& sorted, NodeId d) { return std::binary_search(sorted.begin(), sorted.end(), d); }

// `reads` (sorted) must be among `outputs`, and outputs nobody reads (graph outputs) are the only others.
std::optional<std::string> check_handover(const Graph& g, const std::vector<NodeId>& outputs,
                                          const std::vector<NodeId>& reads, const std::string& from,
                                          const std::string& to) {
  for (NodeId d : reads)
    if (!contains(outputs, d))
      return fmt::format("{} reads {}, which {} does not write (a skip connection or a branch): not a chain", to,
                         g.describe_data(d), from);
  for (NodeId d : outputs)
    if (!contains(reads, d) && !g.data[d].users.empty())
      return fmt::format("{} writes {}, which something after {} reads (a skip connection): not a chain", from,
                         g.describe_data(d), to);
  return std::nullopt;
}

std::optional<Blocks> find_blocks(const Graph& g, std::string* why) {
  auto fail = [&](std::string s) {
    if (why) *why = std::move(s);
    return std::nullopt;
  };
  if (!g.is_training() || g.loss == kNone)
    return fail("Rotor needs a training graph with a loss (forward, loss and backward nodes)");
  partition::ForwardGraph fg(g);
  std::vector<int> all(fg.size());
  for (int u = 0; u < fg.size(); ++u) all[u] = u;
  if (all.empty()) return fail("the graph has no forward node");
  std::vector<int> cuts = partition::cutting_points(partition::ClusterGraph(fg, all));
  std::vector<std::vector<int>> intervals;
  int start = 0;
  for (int c : cuts) {
    intervals.emplace_back(all.begin() + start, all.begin() + c + 1);
    start = c + 1;
  }
  if (start < fg.size()) intervals.emplace_back(all.begin() + start, all.end());

  Blocks b;
  partition::Canonicalizer canon(fg);
  for (const auto& units : intervals) {
    partition::Canonical can = canon(units);
    partition::Cluster c;
    c.id = static_cast<int>(b.clusters.size());
    for (int u : units) c.nodes.push_back(fg.forward(u));
    c.compute = std::move(can.compute);
    c.data = std::move(can.data);
    c.interface = std::move(can.interface);
    c.hash = can.hash;
    b.clusters.push_back(std::move(c));
    b.signatures.push_back(std::move(can.signature));
  }
  auto name = [&](size_t i) {
    return fmt::format("block {} (from {})", i, g.compute[b.clusters[i].nodes.front()].name);
  };
  const size_t L = b.clusters.size();
  // Data read from a later block (Checkmate's training graphs: a backward reads the next node's output).
  std::vector<int> block_of(g.compute.size(), -1);
  for (size_t i = 0; i < L; ++i)
    for (NodeId c : b.clusters[i].compute) block_of[c] = static_cast<int>(i);
  for (size_t i = 0; i < L; ++i)
    for (NodeId d : non_source(g, b.clusters[i].interface.input_data))
      for (NodeId p : g.data[d].producers)
        if (block_of[p] >= static_cast<int>(i))
          return fail(fmt::format("{} reads {}, which {} (a later block) writes: Rotor needs each block to read "
                                  "only the previous block's outputs",
                                  name(i), g.describe_data(d), name(static_cast<size_t>(block_of[p]))));
  for (size_t i = 0; i < L; ++i) {
    const auto& out = b.clusters[i].interface.output_data;
    bool last = i + 1 == L;
    auto reads = last ? non_source(g, g.compute[g.loss].deps) : non_source(g, b.clusters[i + 1].interface.input_data);
    if (auto w = check_handover(g, out, reads, name(i), last ? std::string("the loss") : name(i + 1))) return fail(*w);
    // The grads of those outputs come back from the next block (or the loss) only.
    std::vector<NodeId> back = last ? g.compute[g.loss].outputs : b.clusters[i + 1].interface.input_grad;
    std::sort(back.begin(), back.end());
    for (NodeId d : b.clusters[i].interface.output_grad)
      if (!contains(back, d))
        return fail(fmt::format("{} reads {}, which {} does not write: not a chain", name(i), g.describe_data(d),
                                last ? std::string("the loss") : name(i + 1)));
  }
  // Grads a block writes beyond its input's (grads of sources) must be read by nobody.
  for (size_t i = 0; i < L; ++i)
    for (NodeId d : b.clusters[i].interface.input_grad) {
      bool handed = i > 0 && contains(b.clusters[i - 1].interface.output_grad, d);
      if (!handed && !g.data[d].users.empty())
        return fail(fmt::format("{} writes {}, which {} reads: not a chain", name(i), g.describe_data(d),
                                g.describe_compute(g.data[d].users.front())));
    }
  return b;
}

int64_t bytes_of(const Graph& g, const std::vector<NodeId>& ids) {
  int64_t s = 0;
  for (NodeId d : ids) s += g.data[d].bytes;
  return s;
}

std::vector<Op> computes(const std::vector<Op>& ops) {
  std::vector<Op> out;
  for (const Op& op : ops)
    if (op.kind == Op::Kind::Compute) out.push_back(op);
  return out;
}

int64_t max_during(const SimResult& r, size_t first, size_t last) {
  int64_t m = 0;
  for (size_t i = first; i <= last && i < r.timeline.size(); ++i) m = std::max(m, r.timeline[i].during);
  return m;
}

// A block measured on its cluster graph, in the representative's parent ids. Peaks come from the
// cluster graph itself (input data are its sources, outputs appear when written, output grads at its
// loss), less the parent's sources (counted once, as constant); input grads stay from their write on,
// as they do in the whole graph until the previous block's backward reads them. `leftover`: internal
// bytes a schedule leaves resident at its end (0 for every solver here; counted as constant).
Block measure(const Graph& parent, const hierarchy::ClusterProblem& cg, const std::vector<hierarchy::Option>& options,
              int64_t* leftover) {
  const Graph& g = cg.graph;
  Graph interior = cg.interior();
  int64_t sources = 0;
  for (size_t d = 0; d < g.data.size(); ++d)
    if (g.data[d].source && parent.data[cg.data_to_parent[d]].source) sources += g.data[d].bytes;
  Block b;
  b.out_bytes = bytes_of(g, cg.interface.output_data);
  b.grad_out_bytes = bytes_of(g, cg.interface.output_grad);
  hierarchy::FastForward ff = hierarchy::fast_forward(cg);
  b.ff_ops = computes(ff.ops);
  b.ff_time = ff.time;
  {
    Schedule s = recompute_all_schedule(g);
    size_t loss = 0;
    while (s.ops[loss].kind != Op::Kind::Loss) ++loss;
    s.ops.resize(loss);
    SimulateOptions partial;
    partial.require_complete = false;
    SimResult full = simulate(g, s, partial), inner = simulate(interior, s, partial);
    HM_ASSERT(full.valid && inner.valid, "the fast forward of " + g.name + " is invalid: " + full.reason);
    b.ff_peak = full.peak - sources;
    if (!inner.timeline.empty()) *leftover = std::max(*leftover, inner.timeline.back().after);
  }
  std::vector<char> is_output(g.data.size(), 0), is_input_grad(g.data.size(), 0);
  for (NodeId d : cg.interface.output_data) is_output[d] = 1;
  for (NodeId d : cg.interface.input_grad) is_input_grad[d] = 1;
  for (const hierarchy::Option& o : options) {
    Schedule s = hierarchy::cluster_schedule(cg, o);
    SimResult inner = simulate(interior, s);
    HM_ASSERT(inner.valid, "an option of " + g.name + " is invalid: " + inner.reason);
    *leftover = std::max(*leftover, inner.timeline.back().after);
    Schedule kept;  // input grads never freed inside
    for (const Op& op : s.ops)
      if (op.kind != Op::Kind::Delete || !is_input_grad[op.node]) kept.ops.push_back(op);
    SimResult full = simulate(g, kept);
    HM_ASSERT(full.valid, "an option of " + g.name + " is invalid: " + full.reason);
    size_t loss = 0;
    while (kept.ops[loss].kind != Op::Kind::Loss) ++loss;
    BlockOption bo;
    bo.fwd_ops = computes(o.fwd_ops);
    bo.bwd_ops = computes(o.bwd_ops);
    bo.fwd_time = o.fwd_time;
    bo.bwd_time = o.bwd_time;
    bo.mem = o.mem;
    bo.fwd_peak = loss > 0 ? max_during(full, 0, loss - 1) - sources : 0;
    bo.bwd_peak = loss + 1 < kept.ops.size() ? max_during(full, loss + 1, kept.ops.size() - 1) - sources : 0;
    bo.solver = o.solver;
    for (NodeId p : o.dep_interfaces_data) bo.needs_output |= is_output[cg.data_of(p)] != 0;
    b.options.push_back(std::move(bo));
  }
  return b;
}

}  // namespace

std::optional<std::vector<partition::Cluster>> chain_clusters(const Graph& g, std::string* why) {
  auto b = find_blocks(g, why);
  if (!b) return std::nullopt;
  return std::move(b->clusters);
}

Chain make_chain(const Graph& g, const OptionMaker& make) {
  std::string why;
  auto blocks = find_blocks(g, &why);
  if (!blocks) throw BadInput(fmt::format("graph '{}' is not a chain of blocks: {}", g.name, why));
  const auto& clusters = blocks->clusters;
  Chain chain;
  chain.loss = g.loss;
  chain.loss_time = g.compute[g.loss].time;
  chain.loss_extra = g.compute[g.loss].overhead + bytes_of(g, g.compute[g.loss].outputs);
  chain.constant = g.source_bytes();
  // Source grads written by several blocks accumulate across them: resident to the end.
  std::unordered_map<NodeId, int> writers;
  for (const auto& c : clusters)
    for (NodeId d : c.interface.input_grad) ++writers[d];
  for (const auto& [d, n] : writers)
    if (n > 1) chain.constant += g.data[d].bytes;

  std::map<std::vector<int64_t>, size_t> classes;  // signature -> representative block
  std::vector<int64_t> leftover(clusters.size(), 0);  // per representative
  for (size_t i = 0; i < clusters.size(); ++i) {
    const partition::Cluster& c = clusters[i];
    auto [it, fresh] = classes.emplace(blocks->signatures[i], i);
    Block b;
    if (fresh) {
      hierarchy::ClusterProblem cg = hierarchy::extract(g, c);
      b = measure(g, cg, make(cg), &leftover[i]);
    } else {  // a copy: the representative's block, its compute ids translated by canonical position
      const partition::Cluster& rep = clusters[it->second];
      std::unordered_map<NodeId, NodeId> to_copy;
      for (size_t p = 0; p < rep.compute.size(); ++p) to_copy.emplace(rep.compute[p], c.compute[p]);
      b = chain.blocks[it->second];
      auto translate = [&](std::vector<Op>& ops) {
        for (Op& op : ops) op.node = to_copy.at(op.node);
      };
      translate(b.ff_ops);
      for (BlockOption& o : b.options) {
        translate(o.fwd_ops);
        translate(o.bwd_ops);
      }
    }
    chain.constant += leftover[it->second];
    b.forwards = c.nodes;
    b.grad_in_bytes = 0;
    for (NodeId d : c.interface.input_grad)
      if (writers[d] == 1) b.grad_in_bytes += g.data[d].bytes;
    chain.blocks.push_back(std::move(b));
  }
  chain.equivalence_classes = static_cast<int>(classes.size());
  return chain;
}

}  // namespace hiremate::hierarchy
