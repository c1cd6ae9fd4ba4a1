// Checkmate's MILP for generic DAGs in the fixed order (see checkmate.h for the model).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <utility>
#include <numeric>

#include "hiremate/common/error.h"
#include "hiremate/milp/model.h"
#include "hiremate/milp/solve.h"
#include "hiremate/solvers/fixed_order_dag.h"
#include "hiremate/solvers/checkmate/checkmate.h"
#include "hiremate/solvers/checkmate/stage_model.h"
#include "hiremate/solvers/greedy_evict.h"
#include "hiremate/stage_milp/stage_vars.h"

namespace hiremate::checkmate {

namespace {

using stage_milp::kAbsent;  // here also a variable fixed to 0 by pre-fixing
// FREE[t,(i,k)]: the stage MILPs' record, `data` being node i's position in graph.order here.
using stage_milp::Free;

// Positions (in graph.order) and per-position data of a generic DAG, sizes in units of `unit`.
struct CheckmateDag : FixedOrderDag {
  std::vector<int> last_desc;  // the largest position among descendants-or-self
  int64_t unit = 1;

  explicit CheckmateDag(const Graph& g) : FixedOrderDag(g) {
    int64_t gcd = 0;
    for (int p = 0; p < n; ++p) gcd = std::gcd(gcd, std::gcd(mem[p], overhead[p]));
    unit = gcd > 0 ? gcd : 1;
    for (int p = 0; p < n; ++p) {
      mem[p] /= unit;
      overhead[p] /= unit;
    }
    last_desc.assign(n, 0);
    for (int p = n - 1; p >= 0; --p) {
      last_desc[p] = p;
      for (int u : users[p]) last_desc[p] = std::max(last_desc[p], last_desc[u]);
    }
  }
};

struct DagModel {
  const CheckmateDag& dag;
  int64_t cap;  // budget in units, sources removed
  milp::Model model;
  std::vector<std::vector<milp::Var>> R, S, U;  // R[t][i], i <= t; S[t][i], i < t (S[n] empty); U[t][k]
  std::vector<std::vector<std::vector<Free>>> frees;  // frees[t][k]: FREE[t,(i,k)]

  milp::Var s(int t, int i) const { return t < dag.n && i < t ? S[t][i] : kAbsent; }

  // The relaxation: no FREE and U, memory only by the knapsack rows (while node t runs), so a
  // subset of the rows on a subset of the variables: its optimum is a lower bound.
  bool relaxed = false;

  // With `relaxed`, the stages marked here still get their FREE and U (the lazy relaxation).
  std::vector<char> full_stage;

  DagModel(const CheckmateDag& d, int64_t capacity, bool relax = false, std::vector<char> full = {})
      : dag(d), cap(capacity), relaxed(relax), full_stage(std::move(full)) {
    full_stage.resize(d.n, 0);
    const int n = dag.n;
    R.resize(n);
    S.resize(n);
    U.resize(n);
    frees.resize(n);
    for (int t = 0; t < n; ++t) {
      R[t].assign(t + 1, kAbsent);
      S[t].assign(t, kAbsent);
      U[t].assign(t + 1, kAbsent);
      frees[t].resize(t + 1);
      for (int i = 0; i <= t; ++i)
        if (i == t || dag.last_desc[i] >= t)
          R[t][i] = model.add_var(milp::VarType::Binary, i == t ? 1 : 0, 1, dag.cost[i]);
      for (int i = 0; i < t; ++i)
        if (dag.last_desc[i] >= t) S[t][i] = model.add_var(milp::VarType::Binary, 0, 1, 0);
    }
    for (int t = 0; t < n; ++t) add_stage_rows(t);
  }

  void add_stage_rows(int t) {
    const bool relaxed = this->relaxed && !full_stage[t];
    using milp::Term;
    const double inf = milp::kInf;
    for (int k = 0; k <= t; ++k) {
      if (R[t][k] == kAbsent) continue;
      for (int i : dag.pred[k]) {  // dependencies: k needs i computed or resident in this stage
        if (R[t][i] == kAbsent && s(t, i) == kAbsent) {
          HM_ASSERT(k != t, "a node's input cannot be available in its own stage");
          model.set_bounds(R[t][k], 0, 0);
          continue;
        }
        std::vector<Term> row{{R[t][k], 1}};
        if (R[t][i] != kAbsent) row.push_back({R[t][i], -1});
        if (s(t, i) != kAbsent) row.push_back({s(t, i), -1});
        model.add_row(row, -inf, 0);
      }
    }
    for (int i = 0; i < t; ++i) {
      if (R[t][i] != kAbsent && S[t][i] != kAbsent) model.add_row({{R[t][i], 1}, {S[t][i], 1}}, -inf, 1);
      if (s(t + 1, i) != kAbsent) {  // carry: resident next stage only if resident or computed now
        std::vector<Term> row{{s(t + 1, i), 1}};
        if (S[t][i] != kAbsent) row.push_back({S[t][i], -1});
        if (R[t][i] != kAbsent) row.push_back({R[t][i], -1});
        model.add_row(row, -inf, 0);
      }
    }
    // FREE[t,(i,k)] = R[t,k] and not S[t+1,i] and no later user j of i computed in this stage: only
    // its upper bounds are rows. Freeing never adds memory, so in every integer solution FREE can
    // take the product's value, and the R and S that fit the budget are the same without the
    // product's covering row (measured on rl1-n100 at 80 %: 70961 rows instead of 81288, optimal in
    // 10.8 s instead of 16.6 s).
    for (int k = 0; k <= t && !relaxed; ++k) {
      if (R[t][k] == kAbsent) continue;
      if (k == t) continue;  // frees after the stage's last op affect no memory row of the stage
      std::vector<int> candidates = dag.pred[k];
      // (k itself, freed right after it runs, is left out: with k < t that needs a recomputation that
      // nothing reads, which the usefulness rows exclude.)
      for (int i : candidates) {
        milp::Var f = model.add_var(milp::VarType::Binary, 0, 1, 0);
        frees[t][k].push_back({i, f});
        model.add_row({{f, 1}, {R[t][k], -1}}, -inf, 0);
        if (s(t + 1, i) != kAbsent) model.add_row({{f, 1}, {s(t + 1, i), 1}}, -inf, 1);
        for (int j : dag.users[i])
          if (j > k && j <= t && R[t][j] != kAbsent) model.add_row({{f, 1}, {R[t][j], 1}}, -inf, 1);
      }
    }
    {
      // Usefulness (dominance): a recomputation whose value nothing in the stage reads and the next
      // stage does not receive, or a resident value that nothing reads and is not carried, can be
      // dropped (less time, less memory), so no optimum needs one.
      for (int i = 0; i < t; ++i) {
        for (milp::Var v : {R[t][i], S[t][i]}) {
          if (v == kAbsent) continue;
          std::vector<Term> row{{v, 1}};
          if (s(t + 1, i) != kAbsent) row.push_back({s(t + 1, i), -1});
          for (int j : dag.users[i])
            if (j <= t && R[t][j] != kAbsent) row.push_back({R[t][j], -1});
          model.add_row(row, -inf, 0);
        }
      }
    }
    {
      // Each value is freed at most once per stage, and only if present and not carried on (valid for
      // every integer solution; the LP could otherwise free a value more than once).
      std::vector<std::vector<Term>> rows(t);
      for (int k = 0; k < t; ++k)
        for (const Free& f : frees[t][k]) rows[f.data].push_back({f.var, 1});
      for (int i = 0; i < t; ++i) {
        if (rows[i].empty()) continue;
        if (s(t + 1, i) != kAbsent) rows[i].push_back({s(t + 1, i), 1});
        if (R[t][i] != kAbsent) rows[i].push_back({R[t][i], -1});
        if (S[t][i] != kAbsent) rows[i].push_back({S[t][i], -1});
        model.add_row(rows[i], -inf, 0);
      }
    }
    {
      // While node t runs (the stage's last op), its inputs, itself and every value carried to the
      // next stage are resident: a knapsack row in S[t+1] alone (implied by the recurrence, but
      // explicit rows let CBC derive cover cuts).
      int64_t fixed = dag.mem[t] + dag.overhead[t];
      for (int i : dag.pred[t]) fixed += dag.mem[i];
      std::vector<Term> row;
      std::vector<char> is_pred(t, 0);
      for (int i : dag.pred[t]) is_pred[i] = 1;
      for (int i = 0; i < t; ++i)
        if (!is_pred[i] && s(t + 1, i) != kAbsent) row.push_back({s(t + 1, i), static_cast<double>(dag.mem[i])});
      if (!row.empty()) model.add_row(row, -inf, static_cast<double>(cap - fixed));
    }
    // Memory while each op of the stage runs, by recurrence, and the peak constraint.
    if (relaxed) return;
    int prev = -1;
    for (int k = 0; k <= t; ++k) {
      if (R[t][k] == kAbsent) continue;
      U[t][k] = model.add_var(milp::VarType::Continuous, 0, static_cast<double>(cap), 0);
      std::vector<Term> row{{U[t][k], 1}, {R[t][k], -static_cast<double>(dag.mem[k])}};
      if (prev < 0) {
        for (int i = 0; i < t; ++i)
          if (S[t][i] != kAbsent) row.push_back({S[t][i], -static_cast<double>(dag.mem[i])});
      } else {
        row.push_back({U[t][prev], -1});
        for (const Free& f : frees[t][prev]) row.push_back({f.var, static_cast<double>(dag.mem[f.data])});
      }
      model.add_row(row, 0, 0);
      if (dag.overhead[k] > 0)
        model.add_row({{U[t][k], 1}, {R[t][k], static_cast<double>(dag.overhead[k])}}, -inf,
                      static_cast<double>(cap));
      prev = k;
    }
  }

  // A full assignment for given R and S (FREE and U follow), or nothing when it exceeds the budget
  // or breaks a pre-fixed zero. Used for the MIP start.
  std::optional<std::vector<std::pair<milp::Var, double>>> assignment(
      const std::vector<std::vector<char>>& r, const std::vector<std::vector<char>>& sv) const {
    std::vector<std::pair<milp::Var, double>> values;
    auto S1 = [&](int t, int i) { return t < dag.n && i < t && sv[t][i]; };
    for (int t = 0; t < dag.n; ++t) {
      for (int i = 0; i <= t; ++i) {
        if (r[t][i] && R[t][i] == kAbsent) return std::nullopt;
        if (R[t][i] != kAbsent) values.push_back({R[t][i], r[t][i] ? 1.0 : 0.0});
      }
      for (int i = 0; i < t; ++i) {
        if (sv[t][i] && S[t][i] == kAbsent) return std::nullopt;
        if (S[t][i] != kAbsent) values.push_back({S[t][i], sv[t][i] ? 1.0 : 0.0});
      }
      int64_t u = 0;
      for (int i = 0; i < t; ++i) u += sv[t][i] ? dag.mem[i] : 0;
      for (int k = 0; k <= t; ++k) {
        if (R[t][k] == kAbsent) continue;
        u += r[t][k] ? dag.mem[k] : 0;
        // (A relaxed stage has no memory rows beyond its knapsack row, which this implies.)
        if (u + (r[t][k] ? dag.overhead[k] : 0) > cap && (!relaxed || full_stage[t])) return std::nullopt;
        if (U[t][k] != kAbsent) values.push_back({U[t][k], static_cast<double>(u)});
        for (const Free& f : frees[t][k]) {
          bool on = r[t][k] && !S1(t + 1, f.data);
          for (int j : dag.users[f.data])
            if (j > k && j <= t && r[t][j]) on = false;
          values.push_back({f.var, on ? 1.0 : 0.0});
          if (on) u -= dag.mem[f.data];
        }
      }
    }
    return values;
  }

  // The stages whose memory (frees after last use, in the stage order of the model) exceeds the
  // capacity, for R and S as given.
  std::vector<int> stages_over(const std::vector<std::vector<char>>& r, const std::vector<std::vector<char>>& sv) const {
    std::vector<int> over;
    for (int t = 0; t < dag.n; ++t) {
      int64_t u = 0;
      for (int i = 0; i < t; ++i) u += sv[t][i] ? dag.mem[i] : 0;
      for (int k = 0; k <= t; ++k) {
        if (!r[t][k]) continue;
        u += dag.mem[k];
        if (u + dag.overhead[k] > cap) {
          over.push_back(t);
          break;
        }
        for (int i : dag.pred[k]) {
          bool last = !(t + 1 < dag.n && sv[t + 1][i]);
          for (int j : dag.users[i])
            if (j > k && j <= t && r[t][j]) last = false;
          if (last) u -= dag.mem[i];
        }
      }
    }
    return over;
  }

  // R as read from a solution, and S by the walk of start_from (resident where needed later).
  std::pair<std::vector<std::vector<char>>, std::vector<std::vector<char>>> read(const std::vector<double>& x) const {
    std::vector<std::vector<char>> r(dag.n), sv(dag.n);
    for (int t = 0; t < dag.n; ++t) {
      r[t].assign(t + 1, 0);
      sv[t].assign(t, 0);
      for (int k = 0; k <= t; ++k) r[t][k] = R[t][k] != kAbsent && x[R[t][k]] > 0.5;
    }
    std::vector<char> needed(dag.n, 0);
    for (int t = dag.n - 1; t >= 0; --t) {
      for (int k = t; k >= 0; --k) {
        if (!r[t][k]) continue;
        needed[k] = 0;
        for (int i : dag.pred[k]) needed[i] = 1;
      }
      for (int i = 0; i < t; ++i) sv[t][i] = needed[i];
    }
    return {r, sv};
  }

  std::vector<double> full(const std::vector<std::pair<milp::Var, double>>& a) const {
    std::vector<double> x(model.num_vars(), 0.0);
    for (const auto& [v, value] : a) x[v] = value;
    return x;
  }

  // Keep-all: each node computed once in its stage and kept while a later stage reads it.
  std::optional<std::vector<std::pair<milp::Var, double>>> keep_all_start() const {
    std::vector<std::vector<char>> r(dag.n), sv(dag.n);
    for (int t = 0; t < dag.n; ++t) {
      r[t].assign(t + 1, 0);
      r[t][t] = 1;
      sv[t].assign(t, 0);
      for (int i = 0; i < t; ++i)
        for (int u : dag.users[i]) sv[t][i] |= u >= t;
    }
    return assignment(r, sv);
  }

  // A start from any compute sequence of the fixed-order model (e.g. the greedy heuristic): each
  // recomputation belongs to the stage of the next first computation; a value is resident on entry
  // to a stage when a later stage reads it before it is computed again (frees after last use).
  std::optional<std::vector<std::pair<milp::Var, double>>> start_from(const std::vector<int>& positions) const {
    std::vector<std::vector<char>> r(dag.n), sv(dag.n);
    for (int t = 0; t < dag.n; ++t) {
      r[t].assign(t + 1, 0);
      sv[t].assign(t, 0);
    }
    int stage = 0;
    for (int p : positions) {
      if (stage >= dag.n || p > stage) return std::nullopt;  // not in the fixed order (r[stage] has stage + 1 entries)
      r[stage][p] = 1;
      if (p == stage) ++stage;
    }
    if (stage != dag.n) return std::nullopt;
    // Walk the stages backwards: `needed[i]` = some later op reads i before i is computed again.
    std::vector<char> needed(dag.n, 0);
    for (int t = dag.n - 1; t >= 0; --t) {
      for (int k = t; k >= 0; --k) {
        if (!r[t][k]) continue;
        if (k < t && !needed[k]) {  // a recomputation nothing reads: dropped (usefulness rows)
          r[t][k] = 0;
          continue;
        }
        needed[k] = 0;
        for (int i : dag.pred[k]) needed[i] = 1;
      }
      for (int i = 0; i < t; ++i) sv[t][i] = needed[i];
    }
    return assignment(r, sv);
  }

  // Recompute-heavy: nothing kept between stages; stage t recomputes every ancestor of t. Its
  // memory is the largest single-stage need, often far below keep-all.
  std::optional<std::vector<std::pair<milp::Var, double>>> recompute_start() const {
    std::vector<std::vector<char>> r(dag.n), sv(dag.n);
    for (int t = 0; t < dag.n; ++t) {
      r[t].assign(t + 1, 0);
      sv[t].assign(t, 0);
      r[t][t] = 1;
      for (int k = t; k >= 0; --k)
        if (r[t][k])
          for (int i : dag.pred[k]) r[t][i] = 1;
    }
    return assignment(r, sv);
  }
};

}  // namespace

StageModel build_dag_model(const Graph& g, int64_t budget, double heuristic_seconds) {
  auto dag = std::make_shared<CheckmateDag>(g);
  const int64_t cap = (budget - dag->sources) / dag->unit;
  auto m = std::make_shared<DagModel>(*dag, cap);
  StageModel out;
  out.start = m->keep_all_start();
  if (!out.start) {
    if (auto greedy = greedy_evict_sequence(g, budget, heuristic_seconds)) {
      std::vector<int> positions;
      for (const Op& op : *greedy) positions.push_back(dag->pos[op.node]);
      out.fallback = m->start_from(positions);
      // The greedy computes in its own order within a stage; the model's stages run in graph order,
      // where the same computations can need more memory. The sequence itself is still a plan.
      if (!out.fallback) {
        out.heuristic_plan.clear();
        for (const Op& op : *greedy) out.heuristic_plan.push_back(op);
      }
    }
    if (!out.fallback) out.fallback = m->recompute_start();
  }
  out.assignment_of = [dag, m](const std::vector<Op>& ops) -> std::optional<Assignment> {
    std::vector<int> positions;
    for (const Op& op : ops)
      if (op.kind == Op::Kind::Compute) positions.push_back(dag->pos[op.node]);
    return m->start_from(positions);
  };
  out.summary = fmt::format("{} stages, memory unit {} bytes", dag->n, dag->unit);
  // Measured on rl1-n100 at 80 % (2 threads): with CBC's defaults its preprocessing and feasibility
  // pump took the whole 60 s without an incumbent or a root cut round; without them the optimum
  // (2.30 %) was found by diving at the root and proven in 31 s. The rows above already carry what
  // preprocessing strengthened.
  out.cbc_parameters = {{"preprocess", "off"}, {"feasibilityPump", "off"}};
  out.decode = [dag, m, order = g.order](const std::vector<double>& x) {
    std::vector<Op> ops;
    for (int t = 0; t < dag->n; ++t)
      for (int k = 0; k <= t; ++k)
        if (m->R[t][k] != kAbsent && x[m->R[t][k]] > 0.5) ops.push_back(Op::compute(order[k]));
    return ops;
  };
  // The lazy relaxation first (measured, 2 threads: rl1-n100 optimal in 2 rounds, 9 s at 80 % and
  // 12 s at 90 %, one stage with memory rows; fcn8-b32-train in 1 round, 0.5 s; resnet50-b256-train
  // in 1 round, 15 s at 90 % and 48 s at 80 %, where the full model did not finish its root LP in
  // 120 s). What it leaves of the time goes to the full model.
  {
    out.lazy = [dag, cap](double seconds, const milp::Options& base, bool verbose) {
      auto t0 = std::chrono::steady_clock::now();
      LazyOutcome outcome;
      std::vector<char> full(dag->n, 0);
      for (int round = 1;; ++round) {
        double left = seconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (left < 1) break;
        DagModel r(*dag, cap, /*relax=*/true, full);
        milp::Options o = base;
        o.time_limit = left;
        // The caller's grace ends at its own hard deadline, whichever round runs then.
        o.grace_seconds = base.grace_seconds >= 0 ? base.grace_seconds : 0.25 * left + 2;
        milp::Result res = milp::solve(r.model, o);
        outcome.rounds = round;
        if (res.status == milp::Status::Infeasible) {
          outcome.infeasible = true;
          return outcome;
        }
        if ((milp::has_solution(res.status) || res.status == milp::Status::TimeLimitNoSolution) &&
            std::isfinite(res.bound) && (!outcome.bound || res.bound > *outcome.bound))
          outcome.bound = res.bound;
        if (!milp::has_solution(res.status)) break;
        auto [rv, sv] = r.read(res.solution);
        std::vector<int> over = r.stages_over(rv, sv);
        int n_full = 0;
        for (char f : full) n_full += f;
        if (verbose)
          std::cerr << fmt::format("checkmate: lazy relaxation round {} ({} of {} stages with memory rows, {} rows): {} "
                                   "{}, bound {}, {} stages over the budget, {:.1f} s\n", round, n_full, dag->n,
                                   r.model.num_rows(), milp::to_string(res.status), res.objective,
                                   res.bound, over.size(), res.seconds);
        std::vector<Op> ops;
        for (int t = 0; t < dag->n; ++t)
          for (int k = 0; k <= t; ++k)
            if (rv[t][k]) ops.push_back(Op::compute(dag->order[k]));
        outcome.plans.push_back(std::move(ops));
        if (over.empty()) {
          outcome.optimal = res.status == milp::Status::Optimal;
          break;
        }
        for (int t : over) full[t] = 1;
      }
      return outcome;
    };
  }
  out.model = std::move(m->model);
  return out;
}

}  // namespace hiremate::checkmate
