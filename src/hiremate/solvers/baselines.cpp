#include "hiremate/solvers/baselines.h"

#include <fmt/format.h>

namespace hiremate {

// A baseline has one schedule: it fits the budget, or the answer is "no plan found" (another schedule
// may fit: not a proof), with that schedule's peak as the lowest it reached.
static Plan single_schedule_plan(const Graph& g, Schedule s, int64_t budget, const SolveOptions& opt,
                                 PlanStatus if_fits, const std::string& solver) {
  Plan plan;
  SimResult r = simulate(g, s);
  if (r.peak > budget) {
    plan.status = PlanStatus::NoPlanFound;
    plan.lowest_peak = r.peak;
    plan.note = fmt::format("{} needs {} bytes, over the budget of {} bytes", solver, r.peak, budget);
    return plan;
  }
  if (opt.save_budget && r.bytes_at_loss > *opt.save_budget) {
    plan.status = PlanStatus::NoPlanFound;
    plan.note = fmt::format("{} holds {} bytes at the loss, over the save budget of {} bytes", solver,
                            r.bytes_at_loss, *opt.save_budget);
    return plan;
  }
  plan.status = if_fits;
  plan.has_schedule = true;
  plan.schedule = std::move(s);
  return plan;
}

Plan AutogradSolver::solve(const Graph& g, int64_t budget, const SolveOptions& opt) const {
  // Every node runs exactly once, so when it fits no plan is faster: it is optimal.
  return single_schedule_plan(g, keep_all_schedule(g), budget, opt, PlanStatus::Optimal, name());
}

std::optional<std::string> RecomputeAllSolver::unsupported(const Graph& g) const {
  if (!g.is_training()) return std::string("it needs a training graph (forward, loss and backward nodes)");
  return std::nullopt;
}

Schedule recompute_all_schedule(const Graph& g) {
  std::vector<Op> ops;
  for (NodeId c : g.order)
    if (g.compute[c].kind == ComputeKind::Forward) ops.push_back(Op::compute(c, false));
  ops.push_back(Op::loss_marker(g.loss));
  for (NodeId c : g.order)
    if (g.compute[c].kind == ComputeKind::Forward) ops.push_back(Op::compute(c, true));
  for (NodeId c : g.order)
    if (g.compute[c].kind == ComputeKind::Backward) ops.push_back(Op::compute(c, true));
  return insert_frees(g, ops);
}

Plan RecomputeAllSolver::solve(const Graph& g, int64_t budget, const SolveOptions& opt) const {
  return single_schedule_plan(g, recompute_all_schedule(g), budget, opt, PlanStatus::Feasible, name());
}

}  // namespace hiremate
