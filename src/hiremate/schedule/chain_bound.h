// A lower bound on the compute time of every valid schedule under a peak budget, whatever the order
// or the solver: the loss-point bound (lower_bound.h) taken at every moment of a chain of compute
// nodes that every schedule runs in the same order, and solved as one covering relaxation
// (interval_cover.h), so that what one recomputation serves is counted once.
//
// Why it is valid. Take a dependency path m_0 -> m_1 -> ... (here the longest one through the loss):
// in every schedule the first runs of its nodes come in that order, at moments t_0 < t_1 < ....
// At moment t_k the resident bytes hold the sources, m_k's inputs, outputs and overhead, and every
// value d that is resident then. Call d *live* at k when its producer p is an ancestor of m_k (so d
// was made before t_k) and some reader of d is a descendant of m_k (so d is read after t_k): then d
// is resident at t_k or p runs again between t_k and that read, costing t_p. A reader of d that lies
// between m_k and m_j on every schedule (a descendant of m_k, an ancestor of or equal to m_j) splits
// d's live moments into runs whose recomputations lie in disjoint time spans; within a run one
// recomputation may serve every moment. Each run of live moments is an item of the relaxation, its
// cost t_p shared among p's outputs by bytes (one run of p serves each of them once). A reader whose
// position relative to the chain is not forced splits nothing (the bound stays valid, only weaker).
// Values with several producers (accumulated gradients) are left out, as are what recomputations
// need themselves (their inputs, their memory): the bound is valid, and weaker where plans recompute
// chains.
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>

#include "hiremate/graph/graph.h"

namespace hiremate {

struct ChainBound {
  double time = 0;        // lower bound on the schedule's compute time (every node once included)
  double recompute = 0;   // the part of it that is recomputation
  int moments = 0;        // compute nodes on the chain
  int items = 0;          // runs of live moments (the relaxation's variables)
  int iterations = 0;     // subgradient steps of the dual (interval_cover.h)
};

// nullopt where some chain node alone (with the sources) exceeds the budget: then no plan exists,
// and the minimum-budget check says why. `budget` counts the sources, as loss_point_bound's does.
std::optional<ChainBound> chain_bound(const Graph& g, int64_t budget, int max_iterations,
                                      std::chrono::steady_clock::time_point deadline);

}  // namespace hiremate
