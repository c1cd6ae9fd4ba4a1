// A first plan where the starts at the cap get stuck (issue 23: the dense DAGs' 70-80 % cells):
// continuation in the budget. A plan at a looser cap is easier to find and nearer to one at the cap
// than keep-all is: from it, a greedy only has to relieve the difference, with the drops of the
// looser rung already paid and the stages they left below the cap. So rungs from cap + top x peak
// down to the cap, step x peak apart, each from the plan of the rung above: the retention greedy
// (retention_greedy.h, from any state) first; where it does not fit, the rung halfway to the last
// one that fitted, down to min_step; below that, the eviction sweep (evict_sweep.h) and the repair
// (search.h) from the last plan. On the 5,000-node dense DAG the greedy from keep-all leaves 5.9
// MB-stages above the cap at 80 %, and fits at every rung of 1 % from 90 % down to 80 %.
#pragma once
#include <cstdint>
#include <optional>

#include "hiremate/solvers/dagremat/keep_state.h"
#include "hiremate/solvers/dagremat/search.h"

namespace hiremate::dagremat {

struct LadderOptions {
  // The first rung, above the cap, and the rungs' spacing, as shares of the keep-all peak (bytes
  // above the sources); a rung that does not fit is halved toward the last one that did down to
  // min_step. measured: bench/results/checkmate.md (dense DAGs, budget ladder)
  double top = 0.1;
  double step = 0.01;
  double min_step = 0.0025;
  // The sweep's repair at a rung above the cap gets this share of the time left at most (at the
  // cap: all of it).
  double repair_share = 0.5;
};

struct LadderStats {
  int rungs = 0;         // rungs tried
  int fitted = 0;        // of which fitted
  int swept = 0;         // rungs where the greedy did not fit and the sweep (and repair) ran
  int64_t lowest = -1;   // the lowest cap a rung fitted (-1: none)
  int64_t failed = -1;   // the cap of the rung that ended the ladder without a plan (-1: none)
  int drifted = 0;       // final states that fitted as evaluated incrementally but not afresh (a bug)
};

// From keep-all (every gap kept) of `dag`, whose keep-all peak above the sources is
// `keep_all_peak`, to a state at `cap` that fits, or none by `deadline`. The state is not polished.
std::optional<KeepState> budget_ladder(const StageDag& dag, int64_t cap, int64_t keep_all_peak,
                                       Clock::time_point deadline, const LadderOptions& opt = {},
                                       LadderStats* stats = nullptr);

}  // namespace hiremate::dagremat
