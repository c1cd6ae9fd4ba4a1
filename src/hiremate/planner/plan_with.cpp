#include "hiremate/planner/plan_with.h"

#include "hiremate/planner/registry.h"

namespace hiremate::planner {

Plan plan_with(const std::string& name, const Graph& g, int64_t budget, const SolveOptions& opt) {
  auto solver = make_solver(name);
  // The one Deadline of the solve, made here at the top from the user's limit and handed down (the
  // limit stays as given: it is the deadline's length, and messages quote it).
  SolveOptions o = opt;
  if (!o.deadline) o.deadline = Deadline(o.time_limit);
  return solve_checked(*solver, g, budget, o);
}

}  // namespace hiremate::planner
