// The registry: every solver and preset by the name the front ends use (`hiremate solve --solver`,
// torch, Python, bench, tests). It sits in the planner layer, above the solvers, because some of its
// names are compositions: checkmate is the MILP with its fallbacks (portfolio.h), hilp and hiremate
// are presets of the hierarchical planner, rockmate is Rotor's DP over menus of checkmate solves. A
// solver folder never builds another solver (DESIGN §3).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "hiremate/solvers/solver.h"

namespace hiremate {

// The names make_solver() knows, in the order the CLI lists them.
std::vector<std::string> solver_names();
// Throws BadInput naming the known solvers when `name` is unknown.
std::unique_ptr<Solver> make_solver(const std::string& name);

}  // namespace hiremate
