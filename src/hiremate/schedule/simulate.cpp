#include "hiremate/schedule/simulate.h"

#include <fmt/format.h>

#include <algorithm>

namespace hiremate {

namespace {

struct Simulation {
  const Graph& g;
  const Schedule& s;
  const SimulateOptions& opt;
  SimResult r;
  std::vector<bool> resident;
  std::vector<size_t> contributions;  // grad: producers that have written into it since it appeared
  std::vector<long> deleted_at;       // op index of the last delete, -1 if never
  std::vector<size_t> runs;           // per compute node
  size_t next_first = 0;              // position in g.order of the next first computation
  bool loss_seen = false;
  int64_t current = 0;
  // Once, and last (the aggregate initialisation below leaves it to this initialiser):
  // Graph::is_training() scans every node, and asking it per op made a 100,000-node DAG's
  // simulation quadratic (90 s for the baseline alone).
  const bool training = g.is_training();

  bool invalid(size_t i, const std::string& why) {
    r.valid = false;
    r.invalid_op = i;
    r.reason = why;
    return false;
  }

  std::string missing_dep(NodeId c, NodeId d) {
    const auto& node = g.data[d];
    if (node.kind == DataKind::Phantoms) {
      NodeId f = node.producers[0];
      return fmt::format("'{}' needs the phantoms of '{}', which are not resident: run '{}' with "
                         "keep_phantoms after the last delete of its phantoms and before this backward",
                         g.compute[c].name, g.compute[f].name, g.compute[f].name);
    }
    std::string when = deleted_at[d] >= 0 ? fmt::format("deleted at op {}", deleted_at[d])
                                          : std::string("never computed before");
    return fmt::format("'{}' reads '{}', which is not resident ({})", g.compute[c].name, node.name, when);
  }

  bool run_compute(size_t i, NodeId c, bool keep_phantoms) {
    const auto& node = g.compute[c];
    if (node.kind == ComputeKind::Backward && training && !loss_seen)
      return invalid(i, fmt::format("backward '{}' runs before the loss marker", node.name));
    if (runs[c] == 0 && opt.enforce_fixed_order && !training) {
      NodeId expected = g.order[next_first];
      if (c != expected)
        return invalid(i, fmt::format("first computation of '{}' breaks the fixed order: '{}' must be "
                                      "computed for the first time before it", node.name,
                                      g.compute[expected].name));
    }
    for (NodeId d : node.deps) {
      if (!resident[d]) return invalid(i, missing_dep(c, d));
      const auto& dn = g.data[d];
      if (dn.kind == DataKind::Grad && contributions[d] < dn.producers.size())
        return invalid(i, fmt::format("'{}' reads grad '{}' before all its producers ran ({} of {})",
                                      node.name, dn.name, contributions[d], dn.producers.size()));
    }
    int64_t fresh = 0;
    for (NodeId d : node.outputs) {
      const auto& dn = g.data[d];
      if (dn.kind == DataKind::Phantoms && !keep_phantoms) continue;
      if (dn.kind == DataKind::Grad) {
        if (contributions[d] >= dn.producers.size())
          return invalid(i, fmt::format("'{}' would accumulate into grad '{}' a second time (each "
                                        "producer contributes once per step)", node.name, dn.name));
        ++contributions[d];
      }
      if (!resident[d]) {
        fresh += dn.bytes;
        resident[d] = true;
      }
    }
    int64_t during = current + fresh + node.overhead;
    current += fresh;
    if (runs[c] > 0) ++r.recomputations;
    ++runs[c];
    while (next_first < g.order.size() && runs[g.order[next_first]] > 0) ++next_first;
    ++r.computes;
    r.time += node.time;
    record(i, during);
    return true;
  }

  void record(size_t i, int64_t during) {
    r.timeline.push_back({during, current});
    if (during > r.peak) {
      r.peak = during;
      r.peak_op = i;
    }
  }

  bool run_delete(size_t i, NodeId d) {
    if (d < 0 || static_cast<size_t>(d) >= g.data.size())
      return invalid(i, fmt::format("delete of unknown data node id {}", d));
    const auto& dn = g.data[d];
    if (dn.source) return invalid(i, fmt::format("delete of source '{}': sources are never freed", dn.name));
    if (!resident[d])
      return invalid(i, deleted_at[d] >= 0
                            ? fmt::format("double delete of '{}' (already deleted at op {})", dn.name, deleted_at[d])
                            : fmt::format("delete of '{}', which was never computed", dn.name));
    resident[d] = false;
    contributions[d] = 0;
    deleted_at[d] = static_cast<long>(i);
    current -= dn.bytes;
    record(i, current);
    return true;
  }

  bool run_loss(size_t i, const Op& op) {
    if (loss_seen) return invalid(i, "a second loss marker (a schedule has exactly one)");
    loss_seen = true;
    if (g.loss == kNone) {
      if (op.node != kNone) return invalid(i, "the loss marker names a node but the graph has no loss node");
      record(i, current);
    } else {
      if (op.node != kNone && op.node != g.loss)
        return invalid(i, fmt::format("the loss marker names '{}', not the loss node '{}'",
                                      g.compute.at(op.node).name, g.compute[g.loss].name));
      if (!run_compute(i, g.loss, true)) return false;
    }
    r.bytes_at_loss = current;
    return true;
  }

  bool run_end() {
    size_t end = s.ops.size();
    if (!opt.require_complete) return true;
    if (training && !loss_seen) return invalid(end, "the schedule has no loss marker");
    for (size_t d = 0; d < g.data.size(); ++d) {
      const auto& dn = g.data[d];
      if (dn.kind != DataKind::Grad) continue;
      for (NodeId p : dn.producers)
        if (runs[p] == 0)
          return invalid(end, fmt::format("grad '{}' is not produced: its producer '{}' never runs",
                                          dn.name, g.compute[p].name));
    }
    for (NodeId c : g.order)
      if (runs[c] == 0)
        return invalid(end, fmt::format("compute node '{}' is never computed", g.compute[c].name));
    return true;
  }

  void run() {
    resident.assign(g.data.size(), false);
    contributions.assign(g.data.size(), 0);
    deleted_at.assign(g.data.size(), -1);
    runs.assign(g.compute.size(), 0);
    for (size_t d = 0; d < g.data.size(); ++d)
      if (g.data[d].source) {
        resident[d] = true;
        current += g.data[d].bytes;
      }
    r.peak = current;
    for (size_t i = 0; i < s.ops.size(); ++i) {
      const Op& op = s.ops[i];
      bool ok = true;
      switch (op.kind) {
        case Op::Kind::Compute:
          if (op.node < 0 || static_cast<size_t>(op.node) >= g.compute.size())
            ok = invalid(i, fmt::format("compute of unknown node id {}", op.node));
          else if (g.compute[op.node].kind == ComputeKind::Loss)
            ok = invalid(i, fmt::format("'{}' is the loss node: run it with the loss marker",
                                        g.compute[op.node].name));
          else
            ok = run_compute(i, op.node, op.keep_phantoms);
          break;
        case Op::Kind::Delete: ok = run_delete(i, op.node); break;
        case Op::Kind::Loss: ok = run_loss(i, op); break;
      }
      if (!ok) return;
    }
    run_end();
  }
};

}  // namespace

SimResult simulate(const Graph& g, const Schedule& s, const SimulateOptions& opt) {
  Simulation sim{g, s, opt, {}, {}, {}, {}, {}};
  sim.run();
  return sim.r;
}

}  // namespace hiremate
