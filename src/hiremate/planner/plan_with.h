// The planner's one entry point for the front ends (CLI, torch, Python): plan a graph under a budget
// with a solver or preset named as in the registry. The plan is checked by the simulator
// (solve_checked) and, where the hierarchical planner ran, carries its per-level report
// (Plan::report), so a front end needs no solver types.
#pragma once
#include <cstdint>
#include <string>

#include "hiremate/graph/graph.h"
#include "hiremate/solvers/solver.h"

namespace hiremate::planner {

// make_solver(name) run through solve_checked. opt.deadline bounds the whole solve; without one it
// is made here, opt.time_limit from now, and handed down to every part of the solve.
// Throws BadInput for an unknown name or a solver that does not apply to `g`.
Plan plan_with(const std::string& name, const Graph& g, int64_t budget, const SolveOptions& opt);

}  // namespace hiremate::planner
