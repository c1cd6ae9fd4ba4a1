#include "hiremate/hierarchy/hgraph.h"

#include <fmt/format.h>

#include <algorithm>

#include "hiremate/common/error.h"

namespace hiremate::hierarchy {

namespace {

void sort_unique(std::vector<NodeId>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Host data ids of kind `kind`, sources excluded (they are resident all along: a constant).
std::vector<NodeId> only(const Graph& g, const std::vector<NodeId>& ids, DataKind kind) {
  std::vector<NodeId> out;
  for (NodeId d : ids)
    if (g.data.at(d).kind == kind && !g.data[d].source) out.push_back(d);
  sort_unique(out);
  return out;
}

std::vector<Op> computes_only(const std::vector<Op>& ops) {
  std::vector<Op> out;
  for (const Op& op : ops)
    if (op.kind != Op::Kind::Delete) out.push_back(op);
  return out;
}

void check_ops(const Graph& host, const std::vector<Op>& ops, const std::string& part) {
  for (const Op& op : ops) {
    size_t limit = op.kind == Op::Kind::Delete ? host.data.size() : host.compute.size();
    if (op.node != kNone && (op.node < 0 || static_cast<size_t>(op.node) >= limit))
      throw BadInput(fmt::format("part '{}' has an op on node {}, outside the host graph '{}'", part, op.node,
                                 host.name));
  }
}

}  // namespace

HGraph build_hgraph(const Graph& host, const std::vector<HPart>& parts) {
  HGraph h;
  h.host = &host;
  std::vector<HNode> backwards;  // in part order; appended reversed
  std::vector<int> backward_of_forward;
  for (const HPart& p : parts) {
    HNode f;
    f.kind = ComputeKind::Forward;
    HNode b;
    b.kind = ComputeKind::Backward;
    bool has_backward = false;
    if (p.leaf()) {
      const ComputeNode& c = host.compute.at(p.unit);
      if (c.kind != ComputeKind::Forward)
        throw BadInput(fmt::format("part {} is not a forward", host.describe_compute(p.unit)));
      f.name = c.name;
      f.data_in = only(host, c.deps, DataKind::Data);
      f.data_out = only(host, c.outputs, DataKind::Data);
      NodeId ph = host.phantoms_of(p.unit);
      if (ph != kNone && c.pair != kNone) {
        f.choices.push_back({"keep", c.time, c.overhead, host.data[ph].bytes, true, -1, {}, {Op::compute(p.unit, true)}});
        f.choices.push_back({"ff", c.time, c.overhead, 0, false, -1, {}, {Op::compute(p.unit, false)}});
      } else {
        f.choices.push_back({"run", c.time, c.overhead, 0, false, -1, {}, {Op::compute(p.unit, ph == kNone)}});
      }
      if (c.pair != kNone) {
        const ComputeNode& bc = host.compute.at(c.pair);
        has_backward = true;
        b.name = bc.name;
        b.data_in = only(host, bc.deps, DataKind::Data);
        b.grad_in = only(host, bc.deps, DataKind::Grad);
        b.grad_out = only(host, bc.outputs, DataKind::Grad);
        b.choices.push_back({"run", bc.time, bc.overhead, 0, false, ph != kNone ? 0 : -1, {}, {Op::compute(c.pair)}});
      }
    } else {
      if (p.options.empty()) throw BadInput(fmt::format("sub-cluster '{}' has no option", p.name));
      f.name = p.name;
      // The forward reads the input data its forward nodes read; the rest of input_data is read by
      // the backward only (in Checkmate's training graphs a backward may read a later node's output),
      // which each option's dep_interfaces_data lists.
      std::vector<NodeId> forward_reads;
      for (const Op& op : p.ff.ops)
        if (op.kind == Op::Kind::Compute) {
          const auto& deps = host.compute.at(op.node).deps;
          forward_reads.insert(forward_reads.end(), deps.begin(), deps.end());
        }
      sort_unique(forward_reads);
      for (NodeId d : only(host, p.interface.input_data, DataKind::Data))
        if (std::binary_search(forward_reads.begin(), forward_reads.end(), d)) f.data_in.push_back(d);
      f.data_out = only(host, p.interface.output_data, DataKind::Data);
      has_backward = true;
      b.name = p.name + " (backward)";
      b.grad_in = only(host, p.interface.output_grad, DataKind::Grad);
      b.grad_out = only(host, p.interface.input_grad, DataKind::Grad);
      b.backward_needs_choice_deps = true;
      for (size_t i = 0; i < p.options.size(); ++i) {
        const Option& o = p.options[i];
        check_ops(host, o.fwd_ops, p.name);
        check_ops(host, o.bwd_ops, p.name);
        std::string name = fmt::format("{}#{}", o.solver, i);
        f.choices.push_back({name, o.fwd_time, o.fwd_overhead, o.mem, true, -1, {}, computes_only(o.fwd_ops),
                             o.corrections.fwd});
        std::vector<NodeId> deps = only(host, o.dep_interfaces_data, DataKind::Data);
        b.data_in.insert(b.data_in.end(), deps.begin(), deps.end());
        b.choices.push_back({name, o.bwd_time, o.bwd_overhead, 0, false, static_cast<int>(i), deps,
                             computes_only(o.bwd_ops), o.corrections.bwd});
      }
      sort_unique(b.data_in);
      check_ops(host, p.ff.ops, p.name);
      f.choices.push_back({"ff", p.ff.time, p.ff.overhead, 0, false, -1, {}, computes_only(p.ff.ops)});
    }
    backward_of_forward.push_back(has_backward ? static_cast<int>(backwards.size()) : -1);
    h.nodes.push_back(std::move(f));
    if (has_backward) backwards.push_back(std::move(b));
  }
  const int num_forwards = static_cast<int>(h.nodes.size());
  HNode loss;
  loss.kind = ComputeKind::Loss;
  loss.name = "loss";
  if (host.loss != kNone) {
    const ComputeNode& lc = host.compute[host.loss];
    loss.name = lc.name;
    loss.data_in = only(host, lc.deps, DataKind::Data);
    loss.grad_out = only(host, lc.outputs, DataKind::Grad);
    loss.choices.push_back({"loss", lc.time, lc.overhead, 0, false, -1, {}, {Op::loss_marker(host.loss)}});
  } else {
    loss.choices.push_back({"loss", 0, 0, 0, false, -1, {}, {Op::loss_marker(kNone)}});
  }
  h.loss = num_forwards;
  h.nodes.push_back(std::move(loss));
  const int num_backwards = static_cast<int>(backwards.size());
  for (int f = 0; f < num_forwards; ++f)
    if (backward_of_forward[f] >= 0) {
      int stage = num_forwards + 1 + (num_backwards - 1 - backward_of_forward[f]);
      h.nodes[f].pair = stage;
    }
  for (int i = num_backwards - 1; i >= 0; --i) h.nodes.push_back(std::move(backwards[i]));
  for (int f = 0; f < num_forwards; ++f)
    if (h.nodes[f].pair >= 0) h.nodes[h.nodes[f].pair].pair = f;
  // Every forward of the host must belong to exactly one part.
  std::vector<int> seen(host.compute.size(), 0);
  for (const HNode& n : h.nodes)
    for (const HChoice& c : n.choices)
      for (const Op& op : c.ops)
        if (op.kind == Op::Kind::Compute && host.compute[op.node].kind == ComputeKind::Forward) seen[op.node] = 1;
  for (size_t c = 0; c < host.compute.size(); ++c)
    if (host.compute[c].kind == ComputeKind::Forward && !seen[c])
      throw BadInput(fmt::format("the parts do not cover {}", host.describe_compute(static_cast<NodeId>(c))));
  return h;
}

Option remap(const Option& o, const IdMap& fc, const IdMap& fd) {
  Option r = o;
  auto ops = [&](std::vector<Op>& v) {
    for (Op& op : v)
      if (op.node != kNone) op.node = op.kind == Op::Kind::Delete ? fd(op.node) : fc(op.node);
  };
  ops(r.fwd_ops);
  ops(r.bwd_ops);
  for (NodeId& d : r.dep_interfaces_data) d = fd(d);
  std::sort(r.dep_interfaces_data.begin(), r.dep_interfaces_data.end());
  for (auto* half : {&r.corrections.fwd, &r.corrections.bwd})
    for (Correction& c : *half) {
      for (NodeId& d : c.not_yet_created) d = fd(d);
      for (NodeId& d : c.freed) d = fd(d);
      std::sort(c.not_yet_created.begin(), c.not_yet_created.end());
      std::sort(c.freed.begin(), c.freed.end());
    }
  return r;
}

FastForward remap(const FastForward& f, const IdMap& fc) {
  FastForward r = f;
  r.ops.clear();
  for (const Op& op : f.ops)
    if (op.kind == Op::Kind::Compute) r.ops.push_back(Op::compute(fc(op.node), op.keep_phantoms));
  return r;
}

partition::Interface remap(const partition::Interface& in, const IdMap& fd) {
  partition::Interface r;
  auto list = [&](const std::vector<NodeId>& from, std::vector<NodeId>& to) {
    for (NodeId d : from) to.push_back(fd(d));
    std::sort(to.begin(), to.end());
  };
  list(in.input_data, r.input_data);
  list(in.output_data, r.output_data);
  list(in.input_grad, r.input_grad);
  list(in.output_grad, r.output_grad);
  return r;
}

}  // namespace hiremate::hierarchy
