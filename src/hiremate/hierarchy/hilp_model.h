// The H-ILP (research/hiremate.md §5) on one H-graph, and its extraction into a schedule (§6.2).
//
// The model generalizes RK-Checkmate (solvers/checkmate/checkmate_training.cpp) from single compute
// nodes to HCNs with choices. Stages: forwards, loss, backwards; stage t runs HCN t for the first
// time; only forwards are recomputed (backwards and the loss run once, in their own stage, last).
// Variables per stage t:
//   R[t,k,c]   HCN k runs choice c in stage t;
//   PH[t,k,c]  what keeping choice c of forward k left for its backward is resident on entry to t;
//   S[t,i]     data HAN i is resident on entry to t;
//   FREE[t,k,i] HAN i is freed right after forward k runs in stage t (the hazard encoding);
//   U[t,k]     memory while k runs in stage t, HANs and kept bytes, overheads on top (continuous).
// Grads are produced by backwards that run once, so they are resident from their first producer to
// their last user: a constant per stage.
// The rows that only read the stage tables (need, carry, FREE, memory) are RK-Checkmate's too and are
// built once, in stage_milp/stage_vars.h; this model adds the choices, their ties and kept bytes.
//
// Memory is conservative where the level above cannot see inside a choice (accurate_mem off, §5.5):
// a sub-cluster's interface inputs and outputs count as resident for its whole step, and its
// overheads are the simulator's maxima. The model's peak is therefore never below the simulated one;
// the simulator has the last word on every extracted schedule anyway.
//
// Sizes are in units of their GCD; when that leaves more than 2^22 units under the budget, the unit
// is coarsened and every size rounded up, the budget down (still conservative).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hiremate/schedule/simulate.h"
#include "hiremate/hierarchy/hgraph.h"
#include "hiremate/solvers/solver.h"

namespace hiremate::hierarchy {

// A solution of one H-ILP in terms another H-ILP over the same parts (the same HCNs and HANs, other
// choices: a model with larger option quotas) can read: what each stage runs and keeps resident,
// choices named by what they run and keep. A model whose choices include the ones named holds it,
// so it is a start there that the model's optimum is never slower than.
struct HilpSolution {
  struct Pick {
    int stage, hcn;
    std::string choice;  // the choice's signature (hilp_model.cpp)
  };
  std::vector<Pick> runs;  // R = 1
  std::vector<Pick> kept;  // PH = 1: what the choice kept is resident on entry to the stage
  std::vector<std::pair<int, NodeId>> resident;  // S = 1: (stage, data)
};

struct HilpOptions {
  double time_limit = 10;  // seconds, for CBC
  // Seconds a CBC that ignores its limit may run past it before it is killed (milp's default: 10 % + 2 s).
  double grace_seconds = -1;
  int threads = 1;
  bool verbose = false;
  std::optional<int64_t> save_budget;  // bytes resident right after the loss, in the host
  // Where the autograd-like schedule does not fit: persistent_hilp's schedule that recomputes parts
  // in their backward's stage, improved for at most recompute_start_share of the limit, is the plan
  // where CBC finds none or a slower one, and, with recompute_start, CBC's MIP start. Off: as a start
  // it made CBC's plans slower in 3 of 4 cells (measured: bench/results/recompute_parts.md).
  bool recompute_start = false;
  double recompute_start_share = 0.05;
  // Another model's solution over the same parts (HilpSolution): CBC's start where this model holds
  // it and it is faster than the autograd-like start, and the plan where CBC ends with none or a
  // slower one. The top's models with more options start from the last one's plan.
  std::shared_ptr<const HilpSolution> start;
  // The share of the limit that CBC's search of the whole model leaves to a large neighbourhood
  // search from its plan (milp/neighbourhood_search.h), where it ends without a proof: windows of
  // consecutive forward parts, each with its backward, re-decided with every other part's choices
  // fixed, each window within neighbourhood_round_seconds. 0: none; 1: no search of the whole
  // model, the neighbourhood search from the start given or the constructive plans.
  double neighbourhood_share = 0;
  double neighbourhood_round_seconds = 1;
};

struct HilpResult {
  PlanStatus status = PlanStatus::Infeasible;
  bool has_schedule = false;
  Schedule schedule;   // host ids, frees inserted
  SimResult sim;       // the simulator's verdict on `schedule` in the host
  // The time of the model's own schedule, before its dead recomputations were pruned (the fast
  // forwards of whole parts where a stage reads one output): what the H-ILP's objective counts, and
  // what its optima and bounds compare with; sim.time is at most this.
  double model_time = 0;
  std::optional<double> bound;
  std::string note;
  size_t vars = 0, rows = 0;
  double seconds = 0;
  // Schedules the simulator refused (over budget or invalid): a model bug, counted, never returned.
  int rejected = 0;
  // solve_hilp's: the model's solution behind `schedule` (another model's HilpOptions::start).
  std::shared_ptr<const HilpSolution> solution;
  // HilpOptions::start was a solution of this model (it holds every choice the start names, and the
  // start fits its rows).
  bool start_held = false;
};

// Solves the H-ILP with a peak budget in host bytes (sources included) and returns the extracted,
// simulated schedule, under both budgets, or none.
// Where CBC finds no plan in time, or a slower one than persistent_hilp's (below), solve_hilp returns
// that one instead (status TimedOut, said in the note).
HilpResult solve_hilp(const HGraph& h, int64_t budget, const HilpOptions& opt);

// The H-ILP's constructive plans, without CBC, the faster of two that fits:
// - persistent: every HCN once, each forward with its fastest keeping choice, then, while the
//   model's rows do not hold (the budget, the save budget), the forward whose next leaner keeping
//   choice costs the least time per byte it frees switches to it;
// - where the autograd-like schedule does not fit: each forward's fast forward, and the part run
//   again with a keeping choice in its backward's stage (HiRemate's lowest-memory way through a
//   sequence of parts: between a part's forward and its backward only the interfaces are held), the
//   leanest first, then faster choices (kept or recomputed) where they still fit, for at most `seconds`;
//   where even the interfaces do not fit (long edges: a random training graph, an encoder output
//   read by every decoder part), forwards also drop their outputs: each stage that reads them runs
//   their fast forward again first, as TW-Remat would; every drop first (held to its first reader
//   where that fits), then undone where it still fits, the costliest first, or else made once in the
//   backward and held there (refreshed) or held longer (to its first reader, through the forward),
//   the fastest that fits.
// Then, with `exchange`, a local search from each of them (the faster first) until `seconds` have
// passed or no move is left, the fastest plan kept: one forward's mode changed (its keeping choice, whether it runs again in its
// backward's stage, whether its fast forward runs again before the first backward that reads its
// outputs), or, where that does not fit, with others made leaner by less time than it saves (an
// ejection chain), or its outputs dropped or kept again. The moves a greedy walk cannot undo
// (outputs on cuts between parts refreshed so that another part keeps more); measured:
// bench/results/exchange_search.md.
// Feasible (simulated, within both budgets) or NoPlanFound; Infeasible only below the sources. All
// are in the H-ILP's model, so never faster than the H-ILP's optimum (model_time; the schedule's
// dead recomputations pruned, sim.time may be lower).
// `drops` false: no drops at all, neither to fit nor as exchange moves (a cluster's menu: such slow
// low-memory options took the place of others within the top's quotas, and CBC found no plan there,
// bench/results/hilp_drops.md; drop moves in the menus' searches: unet-100 at 25 %, 30 s, 72.97 %
// against 56.61 % without, bench/results/hilp_drop_variants.md).
HilpResult persistent_hilp(const HGraph& h, int64_t budget, std::optional<int64_t> save_budget = std::nullopt,
                           double seconds = 1, bool exchange = true, bool drops = true);

}  // namespace hiremate::hierarchy
