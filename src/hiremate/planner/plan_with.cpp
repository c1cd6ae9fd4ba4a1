#include "hiremate/planner/plan_with.h"

#include "hiremate/planner/registry.h"

namespace hiremate::planner {

Plan plan_with(const std::string& name, const Graph& g, int64_t budget, const SolveOptions& opt) {
  return solve_checked(*make_solver(name), g, budget, opt);
}

}  // namespace hiremate::planner
