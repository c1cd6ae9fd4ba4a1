#include "hiremate/solvers/dagremat/gap_bound.h"

#include <fmt/format.h>

#include <cmath>
#include <iostream>

#include "hiremate/common/deadline.h"
#include "hiremate/milp/model.h"
#include "hiremate/milp/solve.h"
#include "hiremate/solvers/dagremat/covering_dual.h"

namespace hiremate::dagremat {

GapBound gap_bound(const StageDag& dag, int64_t cap, double seconds, int threads, bool verbose) {
  GapBound out;
  const int n = dag.n;
  // Bytes of the gaps around each moment, and the rows' terms.
  std::vector<int64_t> around(n, 0);
  std::vector<std::vector<milp::Term>> rows(n);
  milp::Model model;
  std::vector<milp::Var> var(dag.gaps.size(), -1);
  for (size_t gi = 0; gi < dag.gaps.size(); ++gi) {
    const Gap& g = dag.gaps[gi];
    if (!dag.relieves(g)) continue;
    for (int t = g.lo + 1; t < g.hi; ++t) around[t] += dag.mem[g.value];
  }
  std::vector<char> needed(n, 0);
  for (int t = 0; t < n; ++t) {
    int64_t room = cap - dag.moment_floor(t);
    if (room < 0) {
      out.infeasible = true;
      out.note = fmt::format("moment {} alone needs {} bytes above the sources", t, dag.moment_floor(t));
      return out;
    }
    needed[t] = around[t] > room;
  }
  // The model's size first: on a 100,000-node DAG it had 41.5 million nonzeros (3.4 GB, and CBC
  // had no time left to solve it). Past the cap there is no bound rather than an exhausted machine.
  size_t nonzeros = 0;
  for (const Gap& g : dag.gaps) {
    if (!dag.relieves(g)) continue;
    size_t inside = 0;
    for (int t = g.lo + 1; t < g.hi; ++t) inside += needed[t];
    nonzeros += inside;
  }
  if (nonzeros > kMaxBoundNonzeros) {
    // Too large for CBC: the Lagrangian dual of its LP instead (covering_dual.h), weaker (the LP's
    // bound at best) but O(gaps) per step.
    const CoveringDual dual = covering_dual(dag, cap, kDualIterations, Deadline(std::max(0.1, seconds)).end());
    out.bound = dual.bound;
    out.dual = true;
    out.keep.clear();
    out.note = fmt::format("the gap relaxation would have {} nonzeros (at most {}): the Lagrangian dual of its LP "
                           "instead, {} steps", nonzeros, kMaxBoundNonzeros, dual.iterations);
    if (verbose) std::cerr << "dagremat: " << out.note << fmt::format(", bound {}\n", dual.bound);
    return out;
  }
  for (size_t gi = 0; gi < dag.gaps.size(); ++gi) {
    const Gap& g = dag.gaps[gi];
    if (!dag.relieves(g)) continue;
    bool useful = false;
    for (int t = g.lo + 1; t < g.hi && !useful; ++t) useful = needed[t];
    if (!useful) continue;  // dropping it helps no tight moment: x = 0 in some optimum
    var[gi] = model.add_var(milp::VarType::Binary, 0, 1, dag.cost[g.value]);
    for (int t = g.lo + 1; t < g.hi; ++t)
      if (needed[t]) rows[t].push_back({var[gi], static_cast<double>(dag.mem[g.value])});
  }
  int nrows = 0;
  for (int t = 0; t < n; ++t) {
    if (!needed[t]) continue;
    model.add_row(rows[t], static_cast<double>(around[t] - (cap - dag.moment_floor(t))), milp::kInf);
    ++nrows;
  }
  out.keep.assign(dag.gaps.size(), 1);
  if (nrows == 0) {
    out.bound = 0;
    out.optimal = true;
    return out;
  }
  milp::Options o;
  o.time_limit = std::max(0.1, seconds);
  // The caller gives the bound a share of its limit (dagremat: 0.3); CBC may overrun it by twice as
  // much and still end inside the caller's limit, never by the milp layer's default 10 % + 2 s.
  o.grace_seconds = 2 * o.time_limit;
  o.threads = threads;
  o.relative_gap = 0;
  o.absolute_gap = 0;
  o.log = false;
  milp::Result r = milp::solve(model, o);
  if (verbose)
    std::cerr << fmt::format("dagremat: gap relaxation: {} variables, {} rows, {} nonzeros: {}, objective {}, bound "
                             "{}, {:.2f} s\n", model.num_vars(), model.num_rows(), model.num_nonzeros(),
                             milp::to_string(r.status), r.objective, r.bound, r.seconds);
  if (r.status == milp::Status::Infeasible) {
    // Not a proof: every moment has room >= 0 (checked above), so dropping every gap satisfies every
    // row. CBC said so under its time limit on a 5,000-node dense DAG at 90 %, where the eviction
    // sweep has a plan (issue 23); such a claim is CBC's failure, and there is then no bound.
    out.keep.clear();
    out.note = "CBC reported the gap relaxation infeasible, which dropping every gap refutes: no bound";
    if (verbose) std::cerr << "dagremat: " << out.note << "\n";
    return out;
  }
  if (std::isfinite(r.bound)) out.bound = std::max(0.0, r.bound);
  out.optimal = r.status == milp::Status::Optimal;
  if (milp::has_solution(r.status)) {
    for (size_t gi = 0; gi < dag.gaps.size(); ++gi)
      if (var[gi] >= 0 && r.solution[var[gi]] > 0.5) out.keep[gi] = 0;
  } else {
    out.keep.clear();
  }
  if (!out.bound) {
    // CBC proved nothing in its share (a 5,000-node dense DAG at 90 %): the dual of the LP, with half
    // as much time again, rather than no bound.
    const CoveringDual dual = covering_dual(dag, cap, kDualIterations, Deadline(0.5 * o.time_limit).end());
    out.bound = dual.bound;
    out.dual = true;
    out.note = fmt::format("the gap relaxation proved no bound in {:.1f} s: the Lagrangian dual of its LP instead, "
                           "{} steps", r.seconds, dual.iterations);
  }
  return out;
}

}  // namespace hiremate::dagremat
