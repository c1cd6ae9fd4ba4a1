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
#include <optional>
#include <string>

#include "hiremate/schedule/simulate.h"
#include "hiremate/hierarchy/hgraph.h"
#include "hiremate/solvers/solver.h"

namespace hiremate::hierarchy {

struct HilpOptions {
  double time_limit = 10;  // seconds, for CBC
  // Seconds a CBC that ignores its limit may run past it before it is killed (milp's default: 10 % + 2 s).
  double grace_seconds = -1;
  int threads = 1;
  bool verbose = false;
  std::optional<int64_t> save_budget;  // bytes resident right after the loss, in the host
};

struct HilpResult {
  PlanStatus status = PlanStatus::Infeasible;
  bool has_schedule = false;
  Schedule schedule;   // host ids, frees inserted
  SimResult sim;       // the simulator's verdict on `schedule` in the host
  std::optional<double> bound;
  std::string note;
  size_t vars = 0, rows = 0;
  double seconds = 0;
  // Schedules the simulator refused (over budget or invalid): a model bug, counted, never returned.
  int rejected = 0;
};

// Solves the H-ILP with a peak budget in host bytes (sources included) and returns the extracted,
// simulated schedule, under both budgets, or none.
// Where CBC finds no plan in time, solve_hilp returns this one instead (status TimedOut, said in
// the note).
HilpResult solve_hilp(const HGraph& h, int64_t budget, const HilpOptions& opt);

// The H-ILP's constructive plan, without CBC: every HCN once (no recomputation of a whole part), each
// forward with its fastest keeping choice, then, while the model's rows do not hold (the budget, the
// save budget), the forward whose next leaner keeping choice costs the least time per byte it frees
// switches to it. Feasible (simulated, within both budgets) or NoPlanFound; Infeasible only below the
// sources. It is in the H-ILP's model, so never faster than the H-ILP's optimum.
HilpResult persistent_hilp(const HGraph& h, int64_t budget, std::optional<int64_t> save_budget = std::nullopt);

}  // namespace hiremate::hierarchy
