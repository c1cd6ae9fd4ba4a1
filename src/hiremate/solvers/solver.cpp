#include "hiremate/solvers/solver.h"

#include <fmt/format.h>

#include <chrono>

#include "hiremate/common/error.h"
#include "hiremate/schedule/min_budget.h"
#include "hiremate/solvers/min_budget.h"

namespace hiremate {

const char* to_string(PlanStatus s) {
  switch (s) {
    case PlanStatus::Optimal: return "optimal";
    case PlanStatus::Feasible: return "feasible";
    case PlanStatus::TimedOut: return "timed_out";
    case PlanStatus::Infeasible: return "infeasible";
    case PlanStatus::NoPlanFound: return "no_plan_found";
  }
  return "?";
}

Plan solve_checked(const Solver& solver, const Graph& g, int64_t budget, const SolveOptions& opt) {
  if (auto why = solver.unsupported(g))
    throw BadInput(fmt::format("solver '{}' does not apply to graph '{}': {}", solver.name(), g.name, *why));
  if (opt.save_budget && !g.is_training())
    throw BadInput("a save budget applies to training graphs (it bounds the bytes held at the loss); this graph "
                   "has no loss");
  // Below the floor no schedule exists, whatever a solver would try: a proof, said as one, before
  // any solver spends its time (the planner's levels used the whole of a 5 s limit on a 1-byte
  // budget).
  const int64_t floor_budget = min_budget(g);
  const bool below_floor = budget < floor_budget;
  auto start = std::chrono::steady_clock::now();
  Plan plan;
  if (!below_floor || solver.reports_lowest_peak()) plan = solver.solve(g, budget, opt);
  plan.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  plan.solver = solver.name();
  plan.budget = budget;
  if (below_floor) {
    HM_ASSERT(!plan.has_schedule, "solver " + solver.name() + " returned a schedule below the minimum budget");
    if (plan.status != PlanStatus::Infeasible || plan.note.empty()) {
      plan.note = below_min_budget_note(g, budget) + (plan.note.empty() ? "" : "; " + plan.note);
      plan.status = PlanStatus::Infeasible;
    }
  }
  if (!plan.has_schedule) {
    HM_ASSERT(plan.status == PlanStatus::Infeasible || plan.status == PlanStatus::NoPlanFound ||
                  plan.status == PlanStatus::TimedOut,
              "solver " + solver.name() + " returned no schedule but a feasible status");
    plan.schedule = {};
    return plan;
  }
  plan.sim = simulate(g, plan.schedule);
  HM_ASSERT(plan.sim.valid, fmt::format("solver {} produced an invalid schedule: op {}: {}", solver.name(),
                                        plan.sim.invalid_op, plan.sim.reason));
  HM_ASSERT(plan.sim.peak <= budget, fmt::format("solver {} produced a plan over budget ({} > {} bytes)",
                                                 solver.name(), plan.sim.peak, budget));
  if (opt.progress) {
    opt.progress->best(plan.sim.time);
    if (plan.bound) opt.progress->bound(*plan.bound);
  }
  HM_ASSERT(!opt.save_budget || plan.sim.bytes_at_loss <= *opt.save_budget,
            fmt::format("solver {} produced a plan over the save budget ({} > {} bytes)", solver.name(),
                        plan.sim.bytes_at_loss, opt.save_budget.value_or(0)));
  return plan;
}

void require_schedule(const Plan& plan, const std::string& what) {
  if (plan.has_schedule) return;
  const std::string note = plan.note.empty() ? "" : ": " + plan.note;
  if (plan.status == PlanStatus::Infeasible) throw Infeasible(what + " (proven infeasible)" + note + "; give a larger budget");
  throw NoPlanFound(fmt::format("{} ({}, not a proof that none exists){}{}; give a larger budget, a longer time limit or "
                                "another solver", what, to_string(plan.status), note,
                                plan.lowest_peak ? fmt::format("; the lowest peak it reached is {} bytes", *plan.lowest_peak)
                                                 : ""));
}

Schedule keep_all_schedule(const Graph& g) {
  std::vector<Op> ops;
  bool loss_placed = false;
  for (NodeId c : g.order) {
    const auto kind = g.compute[c].kind;
    if (kind == ComputeKind::Loss) {
      ops.push_back(Op::loss_marker(c));
      loss_placed = true;
      continue;
    }
    if (kind == ComputeKind::Backward && !loss_placed) {  // a training graph without a loss node
      ops.push_back(Op::loss_marker(kNone));
      loss_placed = true;
    }
    ops.push_back(Op::compute(c, true));
  }
  if (g.is_training() && !loss_placed) ops.push_back(Op::loss_marker(g.loss));
  return insert_frees(g, ops);
}

Baseline baseline(const Graph& g) {
  SimResult r = simulate(g, keep_all_schedule(g));
  HM_ASSERT(r.valid, "the keep-all schedule is invalid: " + r.reason);
  return {r.peak, r.time};
}

}  // namespace hiremate
