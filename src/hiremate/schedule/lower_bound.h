// A lower bound on the compute time of every valid schedule of a training graph under a peak budget
// (DESIGN §2's memory model), whatever the order or the solver: what any plan must recompute
// because the budget cannot hold, while the loss runs, everything the backward will read.
//
// While the loss node runs, the resident bytes (sources, the loss's inputs, outputs and overhead
// included) are within the budget. Every forward output or phantoms a backward reads and that is
// not resident then must be produced again after the loss, by running its forward again. So with
// b_f the bytes of forward f that backwards read and t_f its time, any plan pays t_f for every f
// whose b_f it did not hold, and the bytes it held fit in what the budget leaves at the loss:
// a 0/1 knapsack, whose fractional relaxation (greedy by t_f / b_f) gives a bound that is valid and
// costs a sort. The recomputations' own inputs are not counted (the bound stays valid, only weaker).
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "hiremate/graph/graph.h"

namespace hiremate {

struct LossPointBound {
  double time = 0;           // lower bound on the schedule's compute time (every node once included)
  double recompute = 0;      // the part of it that is recomputation
  int64_t held_at_loss = 0;  // bytes the budget leaves for backward inputs while the loss runs
  int64_t needed = 0;        // bytes of forward outputs and phantoms that backwards read
};

// nullopt for a graph without a loss node (a generic DAG) or a budget below what the loss alone
// needs (then no plan exists: the minimum-budget check says so with its reason).
std::optional<LossPointBound> loss_point_bound(const Graph& g, int64_t budget);

// The better of the loss-point bound and the chain bound (chain_bound.h), with what proves it, for
// a plan's `bound` and note. The chain bound's dual takes at most kScheduleBoundSteps subgradient
// steps and stops at the deadline (each step is O(moments + items): milliseconds on 20,000 nodes).
struct ScheduleBound {
  double time = 0;
  std::string why;  // "what the budget cannot hold ... must be recomputed", said for the winner
};
constexpr int kScheduleBoundSteps = 2000;
constexpr double kScheduleBoundShare = 0.02;  // the most of a solve's time limit left that callers give it
std::optional<ScheduleBound> schedule_bound(const Graph& g, int64_t budget,
                                            std::chrono::steady_clock::time_point deadline);

}  // namespace hiremate
