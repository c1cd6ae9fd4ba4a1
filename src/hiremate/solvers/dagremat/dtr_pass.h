// dagremat's constructive fallback (issue 23): a DTR-style pass (Kirisame et al., ICLR 2021) in the
// fixed order. It reaches budgets where every keep/drop start gets stuck, because its plans are not
// limited to one drop per gap and its recomputed values stay resident until evicted (keep_state.h
// frees a stage's recomputations at the stage's end, so deep cones are recomputed again and again).
//
// Stages are run in order. Stage t needs its inputs: those not resident are recomputed with their
// own missing inputs, recursively: the whole missing cone at once, in depth-first post-order (each
// value right before its first reader), each value once, every input of a pending computation pinned.
// Before each computation, while its output and overhead do not fit, an unpinned resident value is
// evicted, the one of least (recomputation estimate) / (bytes x steps until its next first-computation
// read; for values no first computation reads, steps since their last access), in tiers
// (DtrOptions::tiers): values whose recomputation is one op and that no evicted value needs go first,
// because on dense DAGs evicting the inputs of evicted values made every later recomputation a cone
// back to the graph's start (657 recomputations in one stage at 99 % on the 2,000-node dense DAG).
// Between stages, values no first computation reads and no evicted value needs are freed.
//
// It fails when a stage's pinned cone does not fit (the 2,000-node dense DAG at 80 % and below:
// cones of about 500 values). Cost: each eviction scores the resident values, or a sample of them
// above DtrOptions::sample.
#pragma once
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "hiremate/solvers/fixed_order_dag.h"

namespace hiremate::dagremat {

struct DtrOptions {
  // A victim's cost: its own time plus this factor times DTR's e* (the evicted values its eviction
  // joins into one cone).
  double neighbourhood = 1.0;
  // Eviction tiers (dtr_pass.cpp's evict_one): with 3, first values whose recomputation is one op
  // (inputs resident) and that no evicted value reads, then any that no evicted value reads, then
  // any; 2 merges the first two; 1 ranks every unpinned value alike. On the 2,000-node dense DAG at
  // 80 % and 70 %, 3 got stuck later than 2 (stages 1768 and 1501 against 1564 and 1399).
  int tiers = 3;
  // Recomputes a stage's missing cone at once, each value once, pinning every input of what is
  // pending (false: depth first, one input at a time, pinning only the inputs of the values on the
  // recursion's stack, as DTR does; that thrashed on the 2,000-node dense DAG).
  bool whole_cone = true;
  // What a victim's cost counts beyond its own time (times `neighbourhood`): its inputs that are gone;
  // its recomputation cone (the evicted values reached through inputs); or DTR's e* (through inputs
  // and readers). Measured on the 2,000-node dense DAG and rl4-n1000 (tiers 3 / 2): Inputs 2.62 % at
  // 90 %, rl4 73 % at 80 % (tiers 2); Cone the same at 90 %, rl4 at 70 % 187 % (tiers 2, where every
  // other got stuck); EStar 8.83 % at 90 % and each eviction scan slow (1-2 s per pass). None gets
  // through at 80 % on the dense DAG. dagremat tries Inputs and Cone with 3 and 2 tiers.
  enum class VictimCost { Inputs, Cone, EStar };
  VictimCost victim_cost = VictimCost::Inputs;
  // Recomputes evicted values between stages once their inputs are resident and they fit.
  // Off: on the 2,000-node dense DAG it churned (restored values evicted again at the next stage):
  // 6.36 % recomputation at 90 % against 2.62 % without, and stuck at 80 % either way.
  bool restore = false;
  // Where a stage's whole cone does not fit pinned, finish the stage depth first (it thrashed on
  // that DAG at 80 %: no stage ended within seconds); off, the pass fails there.
  bool depth_first_fallback = false;
  // Above this many resident values, each eviction scores this many drawn at random instead of all
  // (DTR's sampling; seeded, so the pass stays deterministic); 0: always all. Below it nothing
  // changes (the public graphs' passes). On a 20,000-node dense DAG the full scans took 1.5-3 s
  // per pass, so the pass ran out of its share of a 10 s limit at 95 %.
  int sample = 1024;
  // Guarded cones: an evicted value that is still read keeps the resident frontier of its
  // recomputation cone (the values it would read, directly or through other missing values) from
  // being evicted or freed until it is back, so that its cone cannot grow past what was counted
  // when it was evicted. Without it, evicting a value whose inputs had been freed, or the input of
  // an evicted value, made later cones reach back to the graph's start (the stuck stages above).
  // Candidates go in tiers: unguarded values by cone size (at most each of cone_limits in turn),
  // then guarded ones the same way; each ranked by (its time + its cone's) per byte-step relieved:
  // its bytes times the steps to its read, less what the values it newly guards are then held
  // beyond their own last read. `tiers`, `victim_cost` and `restore` do not apply. Measured, the pass
  // alone: dense-n2000-w0.49-s1 at 85 % 43.2 % recomputation in 0.02 s (every other variant stuck;
  // the sweep's plan 64.9 %); rl4-n1000 at 70 % 57.1 % (the others stuck; dagremat's plan at 10 s
  // was 130.2 % without it, 42.1 % with it as a start). Stuck still on that dense DAG at 80 % (stage
  // 1741) and 70 % (1642): every resident value is read by the stage's cone, or guarded.
  // bench/results/checkmate.md has dagremat's plans with it. Cost: each candidate's score walks its
  // missing cone (up to the tier's limit).
  bool guard_cones = false;
  std::vector<int> cone_limits{0, 4, 16, 64, std::numeric_limits<int>::max()};
};

struct DtrResult {
  std::vector<int> positions;  // the compute sequence, by position (recomputations included)
  double recompute_cost = 0;   // time beyond one run of every node
  int depth_first_stages = 0;  // stages whose whole cone did not fit pinned (DtrOptions::whole_cone)
  // Per value, the stages at whose entry it was resident, as intervals (a, b]: made in stage a,
  // evicted in stage b (n: never). What dtr_decisions.h projects onto keep/drop decisions.
  std::vector<std::vector<std::pair<int, int>>> held;
};

// Runs the pass under `cap` (the budget minus the sources). Nothing when a computation cannot fit
// (then *stuck_stage is its stage) or the deadline passes.
std::optional<DtrResult> dtr_pass(const FixedOrderDag& dag, int64_t cap, std::chrono::steady_clock::time_point deadline,
                                  const DtrOptions& opt = {}, int* stuck_stage = nullptr);

}  // namespace hiremate::dagremat
