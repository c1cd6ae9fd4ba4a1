#include "hiremate/hierarchy/option.h"

#include <fmt/format.h>

#include <algorithm>

#include "hiremate/common/error.h"
#include "hiremate/solvers/baselines.h"

namespace hiremate::hierarchy {

namespace {

size_t loss_index(const Schedule& s) {
  for (size_t i = 0; i < s.ops.size(); ++i)
    if (s.ops[i].kind == Op::Kind::Loss) return i;
  return s.ops.size();
}

Op to_parent(const ClusterProblem& cg, const Op& op) {
  Op r = op;
  r.node = op.kind == Op::Kind::Compute ? cg.compute_to_parent.at(op.node) : cg.data_to_parent.at(op.node);
  return r;
}

Op from_parent(const ClusterProblem& cg, const Op& op) {
  Op r = op;
  r.node = op.kind == Op::Kind::Compute ? cg.compute_of(op.node) : cg.data_of(op.node);
  if (r.node == kNone)
    throw BadInput(fmt::format("op on parent node {} is outside the cluster graph '{}'", op.node, cg.graph.name));
  return r;
}

// max over timeline[first..last] of `during`.
int64_t max_during(const SimResult& r, size_t first, size_t last) {
  int64_t m = 0;
  for (size_t i = first; i <= last && i < r.timeline.size(); ++i) m = std::max(m, r.timeline[i].during);
  return m;
}

SimResult simulate_prefix(const Graph& g, const Schedule& s, size_t end) {
  Schedule prefix;
  prefix.ops.assign(s.ops.begin(), s.ops.begin() + static_cast<long>(end));
  SimulateOptions opt;
  opt.require_complete = false;
  return simulate(g, prefix, opt);
}

}  // namespace

Option make_option(const ClusterProblem& cg, const Schedule& s, const std::string& solver,
                   std::optional<int64_t> budget) {
  SimResult full = simulate(cg.graph, s);
  if (!full.valid)
    throw BadInput(fmt::format("cannot make an option of '{}' from an invalid schedule (op {}): {}",
                               cg.graph.name, full.invalid_op, full.reason));
  const size_t L = loss_index(s);
  HM_ASSERT(L < s.ops.size(), "a valid training schedule has a loss marker");
  // The forward half's time: the simulator's on the prefix up to the loss marker (included; the
  // synthetic loss costs nothing).
  SimResult fwd = simulate_prefix(cg.graph, s, L + 1);
  HM_ASSERT(fwd.valid, "a prefix of a valid schedule is valid");
  SimResult inner = simulate(cg.interior(), s);
  HM_ASSERT(inner.valid && inner.timeline.size() == s.ops.size(), "the interior accepts what the graph does");

  Option o;
  o.solver = solver;
  o.budget = budget;
  for (size_t i = 0; i < s.ops.size(); ++i)
    if (i != L) (i < L ? o.fwd_ops : o.bwd_ops).push_back(to_parent(cg, s.ops[i]));
  o.fwd_time = fwd.time;
  o.bwd_time = full.time - fwd.time;
  o.mem = inner.bytes_at_loss;
  const int64_t save_end = inner.timeline.back().after;
  o.fwd_overhead = max_during(inner, 0, L) - o.mem;
  o.bwd_overhead = max_during(inner, L, s.ops.size() - 1) - o.mem - save_end;
  o.inner_peak = inner.peak;
  o.peak = full.peak;

  // Interface data the backward reads: what the parent must keep (or hand back) for it.
  const auto& gi = cg.interface;
  auto listed = [](const std::vector<NodeId>& v, NodeId d) { return std::binary_search(v.begin(), v.end(), d); };
  std::vector<char> regenerated(cg.graph.data.size(), 0), needed(cg.graph.data.size(), 0);
  for (size_t i = L + 1; i < s.ops.size(); ++i) {
    if (s.ops[i].kind != Op::Kind::Compute) continue;
    const ComputeNode& node = cg.graph.compute[s.ops[i].node];
    for (NodeId d : node.deps)
      if (listed(gi.input_data, d) || (listed(gi.output_data, d) && !regenerated[d])) needed[d] = 1;
    for (NodeId d : node.outputs) regenerated[d] = 1;
  }
  std::vector<NodeId> deps;  // cluster ids, sorted
  for (size_t d = 0; d < needed.size(); ++d)
    if (needed[d]) deps.push_back(static_cast<NodeId>(d));
  for (NodeId d : deps) o.dep_interfaces_data.push_back(cg.data_to_parent[d]);
  std::sort(o.dep_interfaces_data.begin(), o.dep_interfaces_data.end());
  o.corrections = make_corrections(cg, s, L, inner, deps);
  return o;
}

Option make_option(const ClusterProblem& cg, const Plan& plan) {
  if (!plan.has_schedule)
    throw BadInput(fmt::format("the {} plan for '{}' has no schedule ({}): no option", plan.solver,
                               cg.graph.name, to_string(plan.status)));
  return make_option(cg, plan.schedule, plan.solver, plan.budget);
}

Option autograd_option(const ClusterProblem& cg) {
  return make_option(cg, keep_all_schedule(cg.graph), "autograd");
}

Option recompute_all_option(const ClusterProblem& cg) {
  return make_option(cg, recompute_all_schedule(cg.graph), "recompute_all");
}

Schedule cluster_schedule(const ClusterProblem& cg, const Option& o) {
  Schedule s;
  for (const Op& op : o.fwd_ops) s.ops.push_back(from_parent(cg, op));
  s.ops.push_back(Op::loss_marker(cg.graph.loss));
  for (const Op& op : o.bwd_ops) s.ops.push_back(from_parent(cg, op));
  return s;
}

FastForward fast_forward(const ClusterProblem& cg) {
  Schedule s = recompute_all_schedule(cg.graph);
  const size_t L = loss_index(s);
  HM_ASSERT(L < s.ops.size(), "the recompute-all schedule has a loss marker");
  SimResult inner = simulate_prefix(cg.interior(), s, L + 1);
  HM_ASSERT(inner.valid && !inner.timeline.empty(), "the recompute-all forward is valid: " + inner.reason);
  FastForward ff;
  for (size_t i = 0; i < L; ++i) ff.ops.push_back(to_parent(cg, s.ops[i]));
  ff.time = inner.time;
  ff.overhead = max_during(inner, 0, L) - inner.timeline.back().after;
  return ff;
}

FastForward fast_forward(const Graph& g, NodeId forward) {
  const ComputeNode& node = g.compute.at(forward);
  if (node.kind != ComputeKind::Forward)
    throw BadInput(fmt::format("{} is not a forward: it has no fast-forward", g.describe_compute(forward)));
  return {{Op::compute(forward, false)}, node.time, node.overhead};
}

}  // namespace hiremate::hierarchy
