// A lower bound on the gap relaxation (gap_bound.h) that scales to DAGs whose relaxation is too
// large to build: the Lagrangian dual of its LP, maximized by subgradient steps.
//
// The relaxation: min sum_g c_g x_g  s.t.  sum_{g around t} m_g x_g >= D_t at every tight moment t,
// 0 <= x <= 1 (c_g: the value's cost, m_g: its bytes, D_t: what moment t holds beyond the cap if
// every gap around it is kept). For any multipliers y >= 0,
//     L(y) = sum_t D_t y_t + sum_g min(0, c_g - m_g Y_g),   Y_g = sum_{t around g} y_t,
// is at most the LP's optimum, hence at most the relaxation's and any plan's recomputation cost
// (weak duality), so every iterate's L(y) is a valid bound and the best one is kept. Y_g over a gap
// is a difference of prefix sums and the subgradient a difference array: one step costs O(gaps + n)
// (about 20 ms on a 20,000-node dense DAG of 600,000 gaps), where the relaxation's rows would have held
// tens of millions of nonzeros.
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
