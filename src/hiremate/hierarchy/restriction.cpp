#include "hiremate/hierarchy/restriction.h"

#include <algorithm>

#include "hiremate/partition/translate.h"
#include "hiremate/schedule/simulate.h"

namespace hiremate::hierarchy {

std::optional<Schedule> restrict_schedule(const ClusterProblem& cg, const Schedule& whole) {
  std::vector<Op> ops;
  bool loss = false;
  for (const Op& op : whole.ops) {
    if (op.kind == Op::Kind::Loss) {
      ops.push_back(Op::loss_marker(cg.graph.loss));
      loss = true;
    } else if (op.kind == Op::Kind::Compute) {
      const NodeId c = cg.compute_of(op.node);
      if (c != kNone) ops.push_back(Op::compute(c, op.keep_phantoms));
    }
  }
  if (!loss) return std::nullopt;
  Schedule s = insert_frees(cg.graph, ops);
  if (!simulate(cg.graph, s).valid) return std::nullopt;
  return s;
}

std::vector<Schedule> restricted_copies(const partition::ClusterTree& tree, const ClusterProblem& cg, int rep,
                                        const Schedule& whole, int max_copies) {
  std::vector<Schedule> out;
  std::vector<int> copies;
  for (int m : tree.classes.at(tree.cluster(rep).cls).members)
    if (m != rep) copies.push_back(m);
  const size_t take = std::min(copies.size(), static_cast<size_t>(std::max(0, max_copies)));
  for (size_t i = 0; i < take; ++i) {
    const partition::Translator tr(tree, copies[i * copies.size() / take], rep);
    Schedule mapped;  // the copy's computations of `whole`, as the representative's nodes
    for (const Op& op : whole.ops)
      if (op.kind == Op::Kind::Loss) mapped.ops.push_back(op);
      else if (op.kind == Op::Kind::Compute && tr.has_compute(op.node))
        mapped.ops.push_back(Op::compute(tr.compute(op.node), op.keep_phantoms));
    if (auto s = restrict_schedule(cg, mapped)) out.push_back(std::move(*s));
  }
  return out;
}

}  // namespace hiremate::hierarchy
