#include "hiremate/solvers/solver.h"

#include <fmt/format.h>

#include <chrono>

#include "hiremate/common/error.h"
#include "hiremate/solvers/baselines.h"
#include "hiremate/solvers/checkmate/checkmate.h"
#include "hiremate/solvers/dagremat/dagremat.h"
#include "hiremate/solvers/rotor/rotor.h"
#include "hiremate/solvers/twremat/twremat.h"
#include "hiremate/planner/planner.h"

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

std::vector<std::string> solver_names() {
  return {"autograd", "recompute_all", "checkmate", "dagremat", "twremat", "rotor", "rockmate", "hilp", "hiremate"};
}

std::unique_ptr<Solver> make_solver(const std::string& name) {
  if (name == "autograd") return std::make_unique<AutogradSolver>();
  if (name == "recompute_all") return std::make_unique<RecomputeAllSolver>();
  if (name == "checkmate") return std::make_unique<CheckmateSolver>();
  if (name == "dagremat") return std::make_unique<DagRematSolver>();
  if (name == "twremat") return std::make_unique<TwRematSolver>();
  if (name == "rotor") return std::make_unique<rotor::RotorSolver>();
  if (name == "rockmate") return std::make_unique<rotor::RockmateSolver>();
  if (name == "hilp") {
    planner::PlannerOptions p;
    p.twremat_at_top = false;
    return std::make_unique<planner::HierarchicalSolver>("hilp", p);
  }
  if (name == "hiremate") {
    planner::PlannerOptions p;
    p.partitioners = {"bottom_to_top:can_use_rotor=false", "sequence:can_use_rotor=false",
                      "repetitive:can_use_rotor=false"};
    p.flat_checkmate_max_nodes = 200;
    p.rotor_at_top = true;
    p.dag_solver_for_generic_dags = true;
    return std::make_unique<planner::HierarchicalSolver>("hiremate", p);
  }
  std::string known;
  for (const auto& n : solver_names()) known += (known.empty() ? "" : ", ") + n;
  throw BadInput(fmt::format("unknown solver '{}'; the solvers are: {}", name, known));
}

Plan solve_checked(const Solver& solver, const Graph& g, int64_t budget, const SolveOptions& opt) {
  if (auto why = solver.unsupported(g))
    throw BadInput(fmt::format("solver '{}' does not apply to graph '{}': {}", solver.name(), g.name, *why));
  if (opt.save_budget && !g.is_training())
    throw BadInput("a save budget applies to training graphs (it bounds the bytes held at the loss); this graph "
                   "has no loss");
  auto start = std::chrono::steady_clock::now();
  Plan plan = solver.solve(g, budget, opt);
  plan.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  plan.solver = solver.name();
  plan.budget = budget;
  if (!plan.has_schedule) {
    HM_ASSERT(plan.status == PlanStatus::Infeasible || plan.status == PlanStatus::NoPlanFound ||
                  plan.status == PlanStatus::TimedOut,
              "solver " + solver.name() + " returned no schedule but a feasible status");
    plan.schedule = {};
    // Below the floor no schedule exists, whatever the solver tried: a proof, said as one.
    if (plan.status != PlanStatus::Infeasible)
      if (const int64_t floor_budget = checkmate_min_budget(g); budget < floor_budget) {
        plan.note = below_min_budget_note(g, budget) + (plan.note.empty() ? "" : "; " + plan.note);
        plan.status = PlanStatus::Infeasible;
      }
    return plan;
  }
  plan.sim = simulate(g, plan.schedule);
  HM_ASSERT(plan.sim.valid, fmt::format("solver {} produced an invalid schedule: op {}: {}", solver.name(),
                                        plan.sim.invalid_op, plan.sim.reason));
  HM_ASSERT(plan.sim.peak <= budget, fmt::format("solver {} produced a plan over budget ({} > {} bytes)",
                                                 solver.name(), plan.sim.peak, budget));
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
