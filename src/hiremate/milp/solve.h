// Solving a Model with CBC 2.10 (the COIN-OR branch-and-cut solver): options in, status out.
//
// solve() builds a fresh CBC model from the Model every call (the Model is not changed), runs
// CBC's standard solve (preprocessing, cuts, heuristics, branch and bound) and classifies the
// outcome. Models without integer variables go through the same path, so the time limit, threads
// and statuses mean the same for LPs.
//
// CBC writes its log with printf; hiremate keeps stdout for results, so for the duration of the
// call solve() and write_lp() point the process's stdout (fd 1) at stderr. Anything another thread
// prints to stdout meanwhile lands on stderr too.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hiremate/milp/model.h"

namespace hiremate::milp {

struct Options {
  // Wall-clock seconds for the whole solve (CBC "seconds" with "timeMode elapsed"; CBC's own
  // default counts CPU seconds summed over threads). kInf for none. CBC checks the limit between
  // steps, so a huge root LP can overrun it.
  double time_limit = 60;
  // Branch-and-bound nodes (CBC "maxNodes"); 0 for none. With threads == 1 (or a deterministic
  // multi-thread run) a node limit cuts the search at the same place on any machine, unlike
  // time_limit: what tests use to get the same bound under any load.
  int64_t node_limit = 0;
  // Search threads. 1 runs CBC's serial code; n > 1 runs n threads (at most 99) in CBC's
  // repeatable mode (its "threads 100+n") unless `deterministic` is false.
  int threads = 1;
  // With threads > 1: the same input gives the same result unless the time limit cuts the search.
  // false lets the threads race ("threads n"): often more nodes per second, results vary by run.
  bool deterministic = true;
  // CBC stops, reporting Optimal, once |objective - bound| <= relative_gap * max(|objective|,
  // |bound|) (CBC "ratioGap") or <= absolute_gap (CBC "allowableGap"). 0 and 0 ask for a proof.
  double relative_gap = 1e-4;
  double absolute_gap = 0;
  // CBC's log (level 1: progress lines, cut and heuristic statistics) on stderr.
  bool log = false;
  // The search runs in a child process that is killed this many seconds after time_limit, since
  // CBC checks its limit only between steps (a negative value: 10 % of time_limit plus 2 s).
  double grace_seconds = -1;
  // Further CBC parameters as (name, value), set after the ones above (e.g. {"preprocess", "off"}).
  std::vector<std::pair<std::string, std::string>> cbc_parameters;
  // A probe within the search (minimizing models only): once the search has run this many seconds,
  // it stops unless its incumbent's objective is below checkpoint_objective (the caller's other plan
  // is then better, and the time goes elsewhere); where it is, the search goes on, undisturbed, to
  // time_limit. 0: none. One search instead of a probe and a second search from scratch, which
  // would pass again where the probe was.
  double checkpoint_seconds = 0;
  double checkpoint_objective = kInf;
};

enum class Status {
  Optimal,              // search finished: the solution is within relative_gap/absolute_gap of the bound
  Feasible,             // stopped by the time limit with a solution (gap says how good it is)
  Infeasible,           // proven: no solution satisfies the rows, bounds and integrality
  TimeLimitNoSolution,  // stopped by the time or node limit before any solution was found
  Unbounded,            // the LP relaxation is unbounded (so the MILP is unbounded or infeasible)
  Error,                // CBC stopped without a verdict (e.g. numerical trouble); nothing to trust
};

const char* to_string(Status s);

// True for Optimal and Feasible, the statuses that come with a solution.
inline bool has_solution(Status s) { return s == Status::Optimal || s == Status::Feasible; }

struct Result {
  Status status = Status::Error;
  // sum(obj * solution) for Optimal and Feasible. Otherwise the worst value in the model's
  // direction (+kInf when minimizing, -kInf when maximizing), or the best one (-kInf / +kInf)
  // when Unbounded.
  double objective = kInf;
  // The best bound CBC proved on the optimum (<= every solution's objective when minimizing, >=
  // when maximizing). Equals objective for Infeasible and Unbounded.
  double bound = -kInf;
  // (objective - bound) / max(|objective|, 1e-9) when minimizing, (bound - objective) / the same
  // when maximizing, clamped at 0; kInf without a solution.
  double gap = kInf;
  // One value per variable for Optimal and Feasible (integer and binary variables rounded to the
  // nearest integer; CBC leaves them within 1e-7 of it), empty otherwise.
  std::vector<double> solution;
  double seconds = 0;  // wall clock of the whole call, building the CBC model included
  int64_t nodes = 0;   // branch-and-bound nodes CBC explored
  std::string note;    // what went wrong inside CBC (a crash of its process), empty when nothing did
  // Stopped at Options::checkpoint_seconds without an incumbent below checkpoint_objective: status
  // TimeLimitNoSolution (whatever CBC held is not returned: the caller has better) and no bound.
  bool stopped_at_checkpoint = false;
};

// Solves `model` in a child process (CBC can crash; see cbc_solve.cpp). Misuse (bad options) fails HM_ASSERT; a failure inside CBC (it throws or hands
// back no model) throws SolverFailure. Infeasibility and limits are statuses, not exceptions.
Result solve(const Model& model, const Options& options = Options());

// How many times solve() has been called in this process (every call counts, whatever its end):
// what tests read to check that a solve made no MILP search at all (issue 24: an expired deadline
// starts no CBC), a fact that does not depend on the machine's load.
int64_t solves_started();

// Writes `model` in CPLEX LP format with CBC's writer, for debugging (read it back with
// `cbc file.lp`). `path` must end in ".lp" and contain ".lp" nowhere else (CBC's writer cuts the
// name at the first ".lp" and appends its own). Names are made LP-safe (characters other than
// letters, digits and _ become _); unnamed variables are x<id>, unnamed rows r<index>. CBC writes
// a maximizing model as minimizing the negated objective, and a ranged row lb < ub (both finite)
// as two rows, name and name_low. Throws BadInput for a bad name or a file
// that cannot be created, SolverFailure if CBC writes nothing.
void write_lp(const Model& model, const std::string& path);

}  // namespace hiremate::milp
