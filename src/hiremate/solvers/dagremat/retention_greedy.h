// A first plan for dense DAGs at budgets where the eviction sweep and the DTR pass get stuck
// (issue 23), in keep_state.h's decisions: a global greedy over drops of small, known recomputation,
// each a value's gap cut after its last read (or computation) and the value recomputed at one stage.
// An input that is gone at that stage is held on until it (its tail gap's hold moved there: on dense
// random DAGs a value held only for a skip read is often large beside some of its inputs), or
// recomputed there too from its own inputs, those gone supplied the same way, up to
// RetentionOptions::depth levels below the value; whichever costs less time per net byte relieved.
// Per gap the candidates are the read, and the latest stage before it where the value's inputs are
// resident in keep-all, or recomputable from resident ones, level by level.
//
// Candidates are taken by least time per byte of excess relieved (the bytes the drop takes off
// stages above the cap, less what its holds and recomputed inputs add above it), lazily re-scored (a
// drop's relief only shrinks as others are taken). A taken drop *requires* the resident inputs of
// what it recomputes at its stage: no later drop may free them there, so a drop's recomputation
// stays what was counted, but one may recompute them in that stage (a candidate offered as each
// requirement is made: their recomputation joins the stage's). Each applied drop is checked on
// the state: one that costs more than counted (a cone) is undone.
#pragma once
#include "hiremate/solvers/dagremat/keep_state.h"
#include "hiremate/solvers/dagremat/search.h"

namespace hiremate::dagremat {

struct RetentionStats {
  long drops = 0, holds = 0, undone = 0;
};

struct RetentionOptions {
  // How many levels of gone inputs a drop may recompute with its value (0: one-op drops, every gone
  // input held). Measured at 6cfb58a (the greedy alone, before the join candidates; recomputation):
  // dense-n2000-w0.49-s1 at 85 / 80 %: depth 0 8.05 % 11 kB above / 32.57 % far above; depth 1 6.12 % /
  // 30 kB above; depth 2 5.80 % / 25.61 %; depth 3 5.80 % / 25.15 %, and at 70 % none fits. Each level
  // multiplies an evaluation's work by the inputs' count: depth 2 took 3.6 s on the 20,000-node one at
  // 80 % (fits, 24.04 %; depth 0 1.9 s, far above).
  int depth = 2;
};

// From `s`: the keep-all state, or one with drops (their recomputations' resident inputs stay where
// they read them; only kept gaps are dropped). Returns whether the state fits. Commits as it goes.
bool retention_greedy(KeepState& s, Clock::time_point deadline, const RetentionOptions& opt = {},
                      RetentionStats* stats = nullptr);

// The share of the keep-all state's excess (bytes above the cap, summed over the stages) that drops
// without holds could relieve if all were made at once, each gap dropped from its start to the
// latest stage before its end where the value can be recomputed from what keep-all holds there,
// reaching at most `levels` levels of inputs that are gone (0: its inputs all resident, one-op
// drops): an upper bound on what the greedy reaches without holds at that depth, in
// O(levels x edges + gaps); 1 where nothing exceeds the cap. bench/solvers/cheap_drops.py computes it
// for 0 levels. On the dense DAGs of issue 23 (bench/results/checkmate.md), at 1 level: 0.87 / 0.80 /
// 0.85 at 80 % on the 2,000-, 5,000- and 20,000-node ones, where the greedy fits on the first and
// the last; at most 0.77 at 75 % and below, where it is far from fitting.
double drop_coverage(const KeepState& keep_all, int levels);

}  // namespace hiremate::dagremat
