#include "hiremate/schedule/prune.h"

namespace hiremate {

std::vector<Op> prune_dead_recomputations(const Graph& g, const std::vector<Op>& input) {
  std::vector<Op> ops;
  ops.reserve(input.size());
  for (const Op& op : input)
    if (op.kind != Op::Kind::Delete) ops.push_back(op);
  // First runs stay: every node must run, and a generic DAG's first runs follow its fixed order.
  std::vector<char> first(ops.size(), 0), seen(g.compute.size(), 0);
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].kind == Op::Kind::Compute && !seen[ops[i].node]) first[i] = seen[ops[i].node] = 1;

  // Backward scan: needed[d] when a kept op reads d before d is made again.
  std::vector<char> needed(g.data.size(), 0), keep(ops.size(), 1);
  for (size_t i = ops.size(); i-- > 0;) {
    Op& op = ops[i];
    const NodeId c = op.kind == Op::Kind::Loss ? g.loss : op.node;
    if (c == kNone) continue;
    const auto& node = g.compute[c];
    if (op.kind == Op::Kind::Compute && node.kind == ComputeKind::Forward && !first[i]) {
      bool grads = false, live = false, phantoms = false, phantoms_live = false;
      for (NodeId d : node.outputs) {
        const auto kind = g.data[d].kind;
        grads |= kind == DataKind::Grad;
        if (kind == DataKind::Phantoms) {
          phantoms |= op.keep_phantoms;
          phantoms_live |= op.keep_phantoms && needed[d];
        } else {
          live |= needed[d] != 0;
        }
      }
      if (!grads && !live && !phantoms_live) {
        keep[i] = 0;
        continue;
      }
      if (!grads && phantoms && !phantoms_live) op.keep_phantoms = false;
    }
    for (NodeId d : node.outputs)
      if (op.keep_phantoms || g.data[d].kind != DataKind::Phantoms) needed[d] = 0;
    for (NodeId d : node.deps) needed[d] = 1;
  }
  std::vector<Op> out;
  out.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i)
    if (keep[i]) out.push_back(ops[i]);
  return out;
}

}  // namespace hiremate
