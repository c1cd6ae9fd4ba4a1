#include "hiremate/planner/plan_with.h"

#include "hiremate/planner/registry.h"
#include "hiremate/schedule/lower_bound.h"

namespace hiremate::planner {

Plan plan_with(const std::string& name, const Graph& g, int64_t budget, const SolveOptions& opt) {
  auto solver = make_solver(name);
  // The one Deadline of the solve, made here at the top from the user's limit and handed down (the
  // limit stays as given: it is the deadline's length, and messages quote it).
  SolveOptions o = opt;
  if (!o.deadline) o.deadline = Deadline(o.time_limit);
  Plan plan = solve_checked(*solver, g, budget, o);
  // Every plan on a training graph carries a lower bound valid for every schedule (issue 21): where
  // the solver proves none (twremat, rotor, rockmate, ...), the schedule bound, in its usual share of
  // the limit (milliseconds to a few tenths of a second on 20,000 nodes) after the solve.
  if (plan.has_schedule && !plan.bound && g.is_training()) {
    if (auto sb = schedule_bound(g, budget, Deadline(kScheduleBoundShare * o.time_limit).end())) {
      plan.bound = sb->time;
      plan.note += std::string(plan.note.empty() ? "" : "; ") + "bound: " + sb->why;
    }
  }
  return plan;
}

}  // namespace hiremate::planner
