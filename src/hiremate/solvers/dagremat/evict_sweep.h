// dagremat's first plan at any budget it can reach (issue 23): a greedy eviction in the fixed order,
// in the decision space of keep_state.h so that the search starts from its result. Stages are taken
// in order; while stage t is above the cap, one value resident on entry to t that t does not read is
// evicted: held until t - 1, then recomputed at its next read, at the latest stage before it where its
// inputs are resident (cheap: its own time only), or at the stage before it that recomputes the most
// (shared: its cone joins one that is recomputed anyway; without it, on the 2,000-node dense DAG each
// deep value below 87 % came back through its own cone of about the whole graph below it: 1,457 % at
// 80 %, none at 85 %; with it 183 % and 61 %). A value dropped and resumed before t can be evicted
// again by moving its resume past t (one drop per gap). A stage recomputes on demand whatever of
// a value's inputs is gone, recursively, so an eviction can cost a cone of recomputations: the
// candidates are ranked by that cone at their resume stage (the value and every ancestor reached
// through values not resident there) per byte of excess relieved, the best few evaluated exactly
// (added recomputation per byte of excess removed, over every stage), and the best of those applied.
// Unlike the repair (search.h), which takes the worst stage and evaluates every hold and keep, it
// moves forward and evaluates a few: on dense graphs the repair's steps slow down as it drops (more
// candidates, larger cones), and it ran past a 10 s limit.
//
// When no eviction lowers the excess and stage t still exceeds the cap, what it recomputes is the
// excess: the recomputed value whose keeping lowers the stage's peak most is kept through its gap
// and pinned (never evicted again); the sweep goes back to the first stage that then exceeds the cap.
// Each gap is pinned at most once, so the sweep ends: fitting, stuck (nothing pinnable lowers the
// peak), or at the deadline.
#pragma once
#include "hiremate/solvers/dagremat/keep_state.h"
#include "hiremate/solvers/dagremat/search.h"

namespace hiremate::dagremat {

struct SweepOptions {
  // Candidates evaluated exactly per eviction, best cones first. On the 2,000-node dense DAG at 90 %
  // (issue 23): 2 gave 6.72 % CI, 8 and 32 gave 5.21 % (32 in 0.8 s against 0.6 s).
  size_t exact = 8;
  // Where none of those lowers the excess, this many before the sweep falls back to keeping what the
  // stage recomputes (on that DAG at 85 % the 8 best all moved the excess to their resume stage, and
  // the sweep got stuck 40 bytes above the budget).
  size_t exact_when_stuck = 64;
  // Also try resuming at the latest stage before the next read where the inputs are resident
  // (without: stuck at 90 % on that DAG).
  bool cheap_resumes = true;
  // Also try resuming at the stage of the window that recomputes the most, whose cone it joins.
  bool shared_resumes = true;
};

struct SweepStats {
  long evictions = 0, undone = 0, pins = 0;
  int stuck_stage = -1;  // the stage it could not fit (-1: it fitted or ran out of time)
};

// Sweeps from `s` (normally the keep-all state). Returns whether the state fits. Commits as it goes.
bool evict_sweep(KeepState& s, Clock::time_point deadline, const SweepOptions& opt = {},
                 SweepStats* stats = nullptr);

}  // namespace hiremate::dagremat
