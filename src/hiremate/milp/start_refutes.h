// CBC's "proven infeasible" is not trusted against a MIP start that satisfies every row: CBC was
// seen to flag a model infeasible, without its time-limit flag, when a 1 s limit cut a loaded run
// short (ctest -j2: a training graph started from TW-Remat's plan, whose assignment holds every row).
// The decision is kept apart from the CBC call so that it can be tested without provoking CBC.
#pragma once
#include <vector>

#include "hiremate/milp/model.h"

namespace hiremate::milp {

// The model's start as a full assignment (unlisted variables 0) when it satisfies every row within
// 1e-6, which refutes a verdict of infeasible; empty when there is no start or it violates a row.
std::vector<double> start_refuting_infeasible(const Model& model);

}  // namespace hiremate::milp
