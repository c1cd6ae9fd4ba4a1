// One interface for every solver (DESIGN §3). A solver turns (graph, budget) into a Plan; it never
// edits the graph. solve_checked() is how everyone calls a solver: it runs the simulator on the
// returned schedule and refuses (as an internal error) any schedule that is invalid or over budget,
// so that a plan over budget is never an output.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hiremate/common/deadline.h"
#include "hiremate/common/progress.h"
#include "hiremate/graph/graph.h"
#include "hiremate/schedule/budget.h"
#include "hiremate/schedule/schedule.h"
#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/planner_report.h"

namespace hiremate {

enum class PlanStatus {
  Optimal,     // proven optimal for this budget (in the solver's model)
  Feasible,    // a valid plan under the budget, optimality not proven
  TimedOut,    // the time limit was hit; `schedule` holds the best plan found, if any
  Infeasible,  // proven: no schedule in the graph's memory model fits (DESIGN §2), not only the solver's
  NoPlanFound, // the solver gave up without a proof (a heuristic, or a proof in a restricted model only)
};
const char* to_string(PlanStatus s);

struct SolveOptions {
  double time_limit = 60;  // wall-clock seconds for the whole solve (where `deadline` is not set)
  // The deadline the solve must end by, handed down by a composition (planner/portfolio.h) so that
  // its parts share one clock; none: a Deadline of `time_limit` from the solve's start
  // (deadline_of). Whoever sets it sets `time_limit` to its length too (part_of does): solvers that
  // read only the limit use it, the others take their shares of it and their clock from `deadline`.
  std::optional<Deadline> deadline;
  int threads = 2;
  uint64_t seed = 0;
  // Log on stderr: 0 none; 1 the solvers' and the planner's own lines (`hiremate solve -v`); 2 also
  // CBC's log (`-vv`).
  int verbose = 0;
  // Where set, the planner and the solvers report their phase, the fastest plan so far and their
  // bound to it (common/progress.h), for a status line; copies of these options share it. Solves
  // of parts of the graph (clusters) do not report (their times are not the graph's).
  std::shared_ptr<Progress> progress;
  // Training graphs: the most bytes resident right after the loss (what the forward half hands the
  // backward half, SimResult::bytes_at_loss). None: only the peak budget applies.
  std::optional<int64_t> save_budget;
  // Experiment knobs (defaults are the measured choices; see the solvers' comments):
  // CBC parameters (name, value), e.g. {"cuts", "off"}, appended to those checkmate's model sets;
  // `hiremate solve --cbc-parameter name=value`.
  std::vector<std::pair<std::string, std::string>> cbc_parameters;
  // dagremat's improvement search (dagremat.h, step 2): Mixed runs ruin and recreate on two threads
  // of three and annealing on the third; the others run one of them on every thread.
  enum class DagRematSearch { Mixed, Annealing, RuinAndRecreate };
  DagRematSearch dagremat_search = DagRematSearch::Mixed;

  // The peak budget a solver is given, with save_budget: the one fit test (schedule/budget.h).
  Budget budget(int64_t peak) const { return {peak, save_budget}; }
};

// The solve's deadline: opt.deadline, or `time_limit` seconds from now.
Deadline deadline_of(const SolveOptions& opt);
// `opt` for a part of a solve that may take `seconds` of `parent`: its deadline a child of `parent`,
// its time limit `seconds` (what is left of `parent` where that is less).
SolveOptions part_of(SolveOptions opt, const Deadline& parent, double seconds);

struct Plan {
  std::string solver;
  PlanStatus status = PlanStatus::Infeasible;
  bool has_schedule = false;  // false when infeasible or timed out without a plan
  Schedule schedule;
  SimResult sim;              // the simulator's verdict on `schedule` (filled by solve_checked)
  int64_t budget = 0;
  std::optional<double> bound;  // a lower bound on the time, where the solver has one
  // A lower bound in the solver's own model only, where that model restricts the schedules (checkmate
  // on a training graph with other orders: RK-Checkmate's bound over the graph's order); not a bound
  // on every schedule, so never `bound`. What plans in that model are compared with.
  std::optional<double> model_bound;
  // Proven optimal in the solver's own model where that model restricts the schedules (as above:
  // the status is then Feasible); a status of Optimal is a proof for the graph itself.
  bool optimal_in_model = false;
  double solve_seconds = 0;
  std::string note;           // why infeasible, what was tried, what was cut by a time limit, ...
  // Without a schedule: the lowest peak of a plan the solver did build (over the budget), where known.
  std::optional<int64_t> lowest_peak;
  // The hierarchical planner's per-level table, where it planned (instead of a cast to its type).
  std::optional<PlannerReport> report;
};

class Solver {
 public:
  virtual ~Solver() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  // Whether it can plan this graph (e.g. recompute_all needs a training graph); if not, why.
  virtual std::optional<std::string> unsupported(const Graph&) const { return std::nullopt; }
  // Solves; the caller checks the result (use solve_checked()). solve_checked() refuses a budget
  // below min_budget(g) first, so a solver need not check it.
  virtual Plan solve(const Graph& g, int64_t budget, const SolveOptions& opt) const = 0;
  // Whether solve_checked() still runs it below min_budget(g), where no schedule exists: a cheap
  // heuristic whose note says how low it got (Plan::lowest_peak). Others are refused at once.
  virtual bool reports_lowest_peak() const { return false; }
};

// Solvers by name: make_solver() in planner/registry.h (above the solvers: some names are compositions);
// the front ends plan through planner::plan_with (planner/plan_with.h).

// Runs the solver, times it, simulates the schedule and checks it against the budget.
// Throws BadInput when the solver does not apply to the graph. A budget below the floor every
// schedule needs (min_budget, schedule/min_budget.h) is Infeasible, a proof, for every solver: the
// check is made here once, before the solver runs (see Solver::reports_lowest_peak).
Plan solve_checked(const Solver& solver, const Graph& g, int64_t budget, const SolveOptions& opt);

// Nothing when `plan` has a schedule; otherwise throws Infeasible where the plan says it is proven,
// NoPlanFound where the solver gave up, with `what` (which solve, which budget) leading the message.
void require_schedule(const Plan& plan, const std::string& what);

// The keep-all reference of budgets and overheads (the `autograd` baseline on training graphs, the
// fixed order run once on generic DAGs): every node once in graph.order, freed after last use.
Schedule keep_all_schedule(const Graph& g);
struct Baseline {
  int64_t peak = 0;
  double time = 0;
};
Baseline baseline(const Graph& g);

}  // namespace hiremate
