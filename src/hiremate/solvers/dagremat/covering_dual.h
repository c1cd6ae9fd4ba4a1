// A lower bound on the gap relaxation (gap_bound.h) that scales to DAGs whose relaxation is too
// large to build: the Lagrangian dual of its LP, maximized by subgradient steps.
//
// The relaxation's moments are the stages, its items the gaps that relieve some moment (a gap (lo, hi)
// covers the moments strictly inside it); the dual is the shared one (schedule/interval_cover.h).
#pragma once
#include <chrono>
#include <cstdint>

#include "hiremate/solvers/dagremat/stage_dag.h"

namespace hiremate::dagremat {

struct CoveringDual {
  double bound = 0;    // the best L(y) found: a lower bound on the recomputation cost
  int iterations = 0;  // subgradient steps taken
};

// Deterministic for a given `max_iterations` unless the deadline cuts it first.
CoveringDual covering_dual(const StageDag& dag, int64_t cap, int max_iterations,
                           std::chrono::steady_clock::time_point deadline);

}  // namespace hiremate::dagremat
