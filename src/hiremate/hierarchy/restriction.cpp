#include "hiremate/hierarchy/restriction.h"

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

}  // namespace hiremate::hierarchy
