// A lower bound on the recomputation cost of any plan of the fixed-order model, from a covering
// relaxation over gaps (stage_dag.h), solved with the milp layer.
//
// Why it is valid. At moment t (node t's first computation) the memory holds t's output, its inputs
// and overhead, the sources, and every value that is resident then. Take a value v and one of its
// gaps (lo, hi) with lo < t < hi: v is read at hi, so either it is resident at moment t, or it is
// computed again between moment t and moment hi, which costs cost(v); the runs that serve different
// gaps of v lie in disjoint time spans, so each dropped gap costs cost(v) on its own. Hence for every
// plan, with x_g = 1 when v is not resident at some moment of gap g:
//     sum_g cost(v_g) x_g  <=  the plan's recomputation cost, and for every moment t
//     floor(t) + sum_{g: lo < t < hi} mem(v_g) (1 - x_g)  <=  budget - sources.
// The least cost over binary x under these rows is a lower bound, and so is any bound CBC proves on
// it (it relaxes what a recomputation needs: its own inputs, its memory). Its solution, read as
// keep/drop decisions, is also a start for the search.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "hiremate/solvers/dagremat/stage_dag.h"

namespace hiremate::dagremat {

struct GapBound {
  bool infeasible = false;        // some moment exceeds the cap whatever is dropped
  std::optional<double> bound;    // on the recomputation cost (time beyond one run of each node)
  std::vector<char> keep;         // the relaxation's decisions per gap, where CBC found a solution
  bool optimal = false;           // CBC proved the relaxation optimal
  bool dual = false;              // the bound is covering_dual's (the relaxation too large, or CBC proved none)
  std::string note;
};

// Above this many nonzeros the relaxation is not built (about 80 bytes each in CBC and its copies).
// Above it the bound is the Lagrangian dual of its LP (covering_dual.h), with at most this many steps
// (each O(gaps + n); the bound's share of the limit cuts them earlier on the largest DAGs).
constexpr size_t kMaxBoundNonzeros = 5'000'000;
constexpr int kDualIterations = 2000;

GapBound gap_bound(const StageDag& dag, int64_t cap, double seconds, int threads, bool verbose);

}  // namespace hiremate::dagremat
