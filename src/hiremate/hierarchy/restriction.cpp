#include "hiremate/hierarchy/restriction.h"

#include "hiremate/common/error.h"
#include "hiremate/hierarchy/hgraph.h"
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

std::vector<Option> restricted_copies(const Graph& g, const partition::ClusterTree& tree, int rep,
                                      const Schedule& whole, int max_copies, int* refused) {
  std::vector<Option> out;
  const auto& members = tree.classes.at(tree.cluster(rep).cls).members;
  std::vector<int> copies;
  for (int m : members)
    if (m != rep) copies.push_back(m);
  const size_t take = std::min(copies.size(), static_cast<size_t>(std::max(0, max_copies)));
  for (size_t i = 0; i < take; ++i) {
    const int m = copies[i * copies.size() / take];
    const ClusterProblem cm = extract(g, tree.cluster(m));
    const auto s = restrict_schedule(cm, whole);
    if (!s) continue;
    try {
      const Option o = make_option(cm, *s, "twremat (whole graph)");
      const partition::Translator tr(tree, m, rep);
      out.push_back(remap(o, [&](NodeId x) { return tr.compute(x); }, [&](NodeId x) { return tr.data(x); }));
    } catch (const BadInput&) {
      if (refused) ++*refused;
    }
  }
  return out;
}

}  // namespace hiremate::hierarchy
