// Large neighbourhood search on a MILP whose whole search stalls (issue 21: the top H-ILP of a
// 101-node U-Net at 25 % ends CBC's limit 19-23 % from its bound): from a feasible solution, rounds
// fix the variables of every group but a window of consecutive groups to the incumbent's values and
// let CBC re-decide the window (and every variable in no group) from the incumbent. Such a model is
// small after CBC's presolve and is often solved to optimality in a fraction of a second; a better
// solution becomes the incumbent. Windows start at every position of the current width in a seeded
// random order; once none improves the incumbent, the width grows by one group.
#pragma once
#include <cstdint>
#include <vector>

#include "hiremate/common/deadline.h"
#include "hiremate/milp/model.h"
#include "hiremate/milp/solve.h"

namespace hiremate::milp {

struct NeighbourhoodOptions {
  int width = 2;              // groups re-decided at once at first
  double round_seconds = 1;   // each window's CBC limit (less where the deadline is nearer)
  uint64_t seed = 1;          // the order in which windows are tried
  Options solve;              // CBC's options for each window (its time_limit is the round's)
};

struct NeighbourhoodResult {
  std::vector<double> x;  // the best solution: the one given where no window improved it
  int rounds = 0;         // windows solved
  int improvements = 0;   // windows that gave a better solution
  int width = 0;          // the widest window tried (never every group: that is the whole model)
};

// `x` must be feasible (Model::max_violation 0); the model's bounds are restored before it returns.
// Variables are binaries or continuous; only those in `groups` are fixed.
NeighbourhoodResult neighbourhood_search(Model& model, std::vector<double> x, const std::vector<std::vector<Var>>& groups,
                                         const Deadline& deadline, const NeighbourhoodOptions& opt);

}  // namespace hiremate::milp
