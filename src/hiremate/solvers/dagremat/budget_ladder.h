// A first plan where the starts at the cap get stuck (issue 23: the dense DAGs' 75-80 % cells):
// continuation in the budget. A plan at a looser cap is easier to find (the eviction sweep from
// keep-all fits there) and nearer to one at the cap than keep-all is: from it the sweep only has to
// relieve the difference, with the evictions of the looser rung already paid. So the rungs
// cap + k x step (k = rungs ... 1, each below the keep-all peak), then the cap itself, each started
// from the plan of the rung above: the eviction sweep (evict_sweep.h), and where it gets stuck, the
// repair (search.h) within a share of the time left. Where a rung does not fit, the rung halfway
// between it and the last one that fitted is tried once, then that rung again from there.
#pragma once
#include <cstdint>
#include <optional>

#include "hiremate/solvers/dagremat/keep_state.h"
#include "hiremate/solvers/dagremat/search.h"

namespace hiremate::dagremat {

struct LadderOptions {
  // The rungs' spacing, as a share of the keep-all peak (bytes above the sources), and how many rungs
  // above the cap. measured: bench/results/checkmate.md (dense DAGs, budget ladder)
  double step_share = 0.025;
  int rungs = 4;
  // A rung above the cap whose sweep gets stuck is repaired for this share of the time left at most
  // (the cap's own rung: all of it).
  double repair_share = 0.5;
  // How many times a rung that does not fit may be halved toward the last one that did.
  int halvings = 1;
};

struct LadderStats {
  int rungs = 0;         // rungs tried (halfway rungs included)
  int fitted = 0;        // of which fitted
  int64_t lowest = -1;   // the lowest cap a rung fitted (-1: none)
  int64_t failed = -1;   // the cap of the rung that ended the ladder without a plan (-1: none)
};

// From the keep-all decisions (every gap kept) of `dag`, whose keep-all peak above the sources is
// `keep_all_peak`, to a state at `cap` that fits, or none by `deadline`.
std::optional<KeepState> budget_ladder(const StageDag& dag, int64_t cap, int64_t keep_all_peak,
                                       Clock::time_point deadline, const LadderOptions& opt = {},
                                       LadderStats* stats = nullptr);

}  // namespace hiremate::dagremat
