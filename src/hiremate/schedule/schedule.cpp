#include "hiremate/schedule/schedule.h"

#include <fmt/format.h>

#include "hiremate/common/error.h"

namespace hiremate {

std::string describe(const Graph& g, const Op& op) {
  switch (op.kind) {
    case Op::Kind::Compute: {
      const auto& c = g.compute.at(op.node);
      bool has_phantoms = c.kind == ComputeKind::Forward && g.phantoms_of(op.node) != kNone;
      return fmt::format("compute({}{})", c.name, has_phantoms && !op.keep_phantoms ? ", no phantoms" : "");
    }
    case Op::Kind::Delete: return fmt::format("delete({})", g.data.at(op.node).name);
    case Op::Kind::Loss: return "loss";
  }
  return "?";
}

// The data nodes an op writes: its outputs, less the phantoms of a forward that does not keep them.
static void written(const Graph& g, const Op& op, std::vector<NodeId>& out) {
  out.clear();
  if (op.node == kNone) return;
  for (NodeId d : g.compute[op.node].outputs)
    if (op.keep_phantoms || g.data[d].kind != DataKind::Phantoms) out.push_back(d);
}

Schedule insert_frees(const Graph& g, const std::vector<Op>& input) {
  std::vector<Op> ops;
  for (const Op& op : input)
    if (op.kind != Op::Kind::Delete) ops.push_back(op);
  if (g.loss != kNone)
    for (Op& op : ops)
      if (op.kind == Op::Kind::Loss) op.node = g.loss;

  // accumulates[i][j]: output j of op i is a grad that an earlier op already started, so the
  // partial sum must stay resident between the two producers.
  std::vector<std::vector<bool>> accumulates(ops.size());
  std::vector<bool> started(g.data.size(), false);
  std::vector<NodeId> outs;
  for (size_t i = 0; i < ops.size(); ++i) {
    written(g, ops[i], outs);
    for (NodeId d : outs) {
      accumulates[i].push_back(g.data[d].kind == DataKind::Grad && started[d]);
      started[d] = true;
    }
  }

  // Backward scan: a read with no later read before the next production is a last use.
  std::vector<bool> needed(g.data.size(), false);
  // Frees after op i: its dead deps in dep order, then its outputs that nothing reads.
  std::vector<std::vector<NodeId>> frees_after(ops.size());
  std::vector<NodeId> dead_outputs;
  for (size_t i = ops.size(); i-- > 0;) {
    written(g, ops[i], outs);
    dead_outputs.clear();
    for (size_t j = 0; j < outs.size(); ++j) {
      NodeId d = outs[j];
      if (!needed[d] && !g.data[d].source) dead_outputs.push_back(d);
      needed[d] = accumulates[i][j];
    }
    if (ops[i].node != kNone)
      for (NodeId d : g.compute[ops[i].node].deps) {
        if (!needed[d] && !g.data[d].source) frees_after[i].push_back(d);
        needed[d] = true;
      }
    frees_after[i].insert(frees_after[i].end(), dead_outputs.begin(), dead_outputs.end());
  }
  Schedule s;
  for (size_t i = 0; i < ops.size(); ++i) {
    s.ops.push_back(ops[i]);
    for (NodeId d : frees_after[i]) s.ops.push_back(Op::del(d));
  }
  return s;
}

}  // namespace hiremate
