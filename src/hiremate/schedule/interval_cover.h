// The interval-covering relaxation that both lower bounds on recomputation rest on (dagremat's gap
// bound, solvers/dagremat/gap_bound.h, and the chain bound of training graphs, chain_bound.h), and
// the Lagrangian dual of its LP, which bounds it without an LP solver.
//
// Moments 0..n-1 in time order. An item is a value over a run of consecutive moments [first, last]
// at which it must be resident unless it is computed again, once for the whole run, at `cost`. The
// relaxation: min sum_i c_i x_i  s.t.  sum_{i around t} m_i x_i >= D_t at every moment t, 0 <= x <= 1,
// with D_t = floor_t + (the bytes of the items around t) - cap. For any multipliers y >= 0,
//     L(y) = sum_t D_t y_t + sum_i min(0, c_i - m_i Y_i),   Y_i = sum_{t in [first_i, last_i]} y_t,
// is at most the LP's optimum, hence at most the relaxation's and any plan's recomputation cost
// (weak duality), so every iterate's L(y) is a valid bound and the best one is kept. Y_i is a
// difference of prefix sums and the subgradient a difference array: one step costs O(items + n)
// (about 20 ms on a 20,000-node dense DAG of 600,000 items).
#pragma once
#include <chrono>
#include <cstdint>
#include <vector>

namespace hiremate {

struct IntervalCover {
  struct Item {
    int first = 0, last = 0;  // the moments it covers, both included
    double cost = 0;          // what dropping it costs (one recomputation)
    int64_t bytes = 0;        // what dropping it frees at each of its moments
  };
  std::vector<int64_t> floor;  // per moment: what is resident whatever is dropped
  std::vector<Item> items;
};

struct IntervalCoverDual {
  double bound = 0;     // the best L(y) found: a lower bound on the relaxation's optimum
  int iterations = 0;   // subgradient steps taken
  bool infeasible = false;  // some moment's floor alone exceeds the cap (then the bound says nothing)
};

// Starts from the best one-row LP among the kStartRows moments of most demand, then takes Polyak's
// steps towards the cost of dropping every item, the factor halved when the bound stalls;
// deterministic for a given `max_iterations` unless the deadline cuts it first.
constexpr int kStartRows = 8;
IntervalCoverDual interval_cover_dual(const IntervalCover& cover, int64_t cap, int max_iterations,
                                      std::chrono::steady_clock::time_point deadline);

}  // namespace hiremate
