// A first plan for dense DAGs at budgets where the eviction sweep and the DTR pass get stuck
// (issue 23), in keep_state.h's decisions: a global greedy over *one-op drops*, each a value's gap
// cut after its last read (or computation) and the value recomputed at one stage, from inputs that
// are resident there, so that no drop ever recomputes a cone. An input that is gone at that stage
// (its last read is earlier) is held on until it (its tail gap's hold moved there): on dense random
// DAGs a value held only for a skip read is often large beside some of its inputs. Per gap two
// candidates: recomputed at the next read, holding the inputs gone there; and at the latest stage
// before it where every input is still resident (no hold).
//
// Candidates are taken by least time per byte of excess relieved (the bytes the drop takes off
// stages above the cap, less what its holds add above it), lazily re-scored (a drop's relief only
// shrinks as others are taken). A taken drop *requires* its inputs at its stage: no later drop may
// free them there, so a drop stays one op. Each applied drop is checked on the state: one that
// would cost more than its own time (a cone) is undone.
#pragma once
#include "hiremate/solvers/dagremat/keep_state.h"
#include "hiremate/solvers/dagremat/search.h"

namespace hiremate::dagremat {

struct RetentionStats {
  long drops = 0, holds = 0, undone = 0;
};

// From `s` (the keep-all state). Returns whether the state fits. Commits as it goes.
bool retention_greedy(KeepState& s, Clock::time_point deadline, RetentionStats* stats = nullptr);

// The share of the keep-all state's excess (bytes above the cap, summed over the stages) that one-op
// drops without holds could relieve if all were made at once (each gap dropped from its start to the
// latest stage before its end where the value's inputs are all still resident in keep-all): an upper
// bound on what the greedy reaches without holds, in O(gaps + stages); 1 where nothing exceeds the
// cap. bench/solvers/cheap_drops.py computes it too. On the dense DAGs of issue 23 the greedy fits
// where it is at least 0.85 and is far from fitting where it is at most 0.79.
double one_op_coverage(const KeepState& keep_all);

}  // namespace hiremate::dagremat
