// The Checkmate driver shared by both models: MIP start, CBC, decode, simulate.
#include "hiremate/solvers/checkmate/checkmate.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>

#include "hiremate/common/error.h"
#include "hiremate/milp/solve.h"
#include "hiremate/schedule/min_budget.h"
#include "hiremate/solvers/checkmate/model_size.h"
#include "hiremate/solvers/checkmate/stage_model.h"
#include "hiremate/solvers/dagremat/dagremat.h"
#include "hiremate/solvers/twremat/twremat.h"

namespace hiremate {

// The share of the time limit that the lazy relaxation (StageModel::lazy) gets, where there is one.
// Measured (120 s, 2 threads): with 0.5, resnet50-b256-train at 80 % was proven optimal in 48 s in
// one run and cut at 60 s in the next (0.31 %, bound 0.28 %), while the full model made no progress
// in the other half on resnet50, rl2-n250 and rl1-n100 at 70 %.
constexpr double kRelaxationShare = 0.75;
// Model building speed in estimated variables (checkmate::estimated_variables, an upper bound, about
// twice the actual count) per second: measured 2.6-4 million on training graphs of 900-1,500 nodes,
// 1.3 million on rl4-n1000 (generic DAG: more rows per variable; 5.5 s for 7.4 million).
constexpr double kTrainingVariablesPerSecond = 3e6;
constexpr double kDagVariablesPerSecond = 1.2e6;
// The share of CBC's time that dagremat gets first on generic DAGs where keep-all does not fit.
constexpr double kDagRematShare = 0.2;

std::optional<std::string> CheckmateSolver::unsupported(const Graph& g) const { return checkmate::too_big(g); }

double checkmate_build_seconds(const Graph& g) {
  return static_cast<double>(checkmate::estimated_variables(g)) /
         (g.is_training() ? kTrainingVariablesPerSecond : kDagVariablesPerSecond);
}

bool order_is_forced(const Graph& g) {
  for (size_t i = 1; i < g.order.size(); ++i) {
    const NodeId prev = g.order[i - 1];
    bool reads = false;
    for (NodeId d : g.compute[g.order[i]].deps)
      for (NodeId p : g.data[d].producers) reads |= p == prev;
    if (!reads) return false;
  }
  return true;
}

// TW-Remat's plan when it fits (it takes a fraction of a second on the public graphs): the last
// resort of an anytime solve where CBC and the fallback found nothing, or something slower.
// Returns the schedule with its simulated time.
static std::optional<std::pair<Schedule, double>> twremat_schedule(const Graph& g, int64_t budget,
                                                                   const SolveOptions& opt, double left) {
  SolveOptions o = opt;
  o.time_limit = std::max(0.05, std::min(0.1 * opt.time_limit, left));
  Plan p = TwRematSolver().solve(g, budget, o);
  if (!p.has_schedule) return std::nullopt;
  SimResult r = simulate(g, p.schedule);
  if (!r.valid || r.peak > budget || (opt.save_budget && r.bytes_at_loss > *opt.save_budget)) return std::nullopt;
  return std::make_pair(std::move(p.schedule), r.time);
}

Plan CheckmateSolver::solve_from(const Graph& g, int64_t budget, const SolveOptions& opt,
                                 const Schedule* start_plan) const {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  if (opt.progress) opt.progress->phase("checkmate: building the MILP");
  Plan plan;
  // Budgets below it are refused by solve_checked; the proof's note below names it.
  const int64_t floor_budget = min_budget(g);
  // Building the model is not cut by the time limit (1.5 million variables took 0.9 s, 3.8 million
  // 2.5 s on this 2-core machine, 4.1 million of a generic DAG 5.5 s): when the estimate says it
  // would eat the limit, the heuristics answer instead (a rockmate menu's 0.2 s solves on a
  // 1,800-node block took 2.8 s each).
  const double build_estimate = checkmate_build_seconds(g);
  if (build_estimate > 0.5 * opt.time_limit) {
    plan.status = PlanStatus::TimedOut;
    plan.note = fmt::format("the MILP (about {} variables) would take about {:.1f} s to build, more than half the {} s "
                            "limit: not built; a longer --time-limit, or --solver hiremate / twremat for this size",
                            checkmate::estimated_variables(g), build_estimate, opt.time_limit);
    if (auto tw = twremat_schedule(g, budget, opt, opt.time_limit - elapsed())) {
      plan.schedule = std::move(tw->first);
      plan.has_schedule = true;
      plan.note += "; returning TW-Remat's plan";
    }
    return plan;
  }
  checkmate::StageModel m = g.is_training()
                               ? checkmate::build_training_model(g, budget, opt.save_budget,
                                                                 start_plan ? &start_plan->ops : nullptr)
                               : checkmate::build_dag_model(g, budget, 0.05 * opt.time_limit);
  double built = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  bool integral = true;
  for (double c : m.model.objective()) integral &= c == std::floor(c);
  milp::Options mo;
  // CBC gets 85 % of the limit less the build time, the rest is for the TW-Remat fallback and checks;
  // and no more than milp's hard deadline (1.1 x its limit + 2 s, for a CBC that ignores its limit)
  // allows within the caller's limit.
  mo.time_limit = std::max(0.1, std::min(0.85 * opt.time_limit, (opt.time_limit - 2) / 1.1) - built);
  mo.threads = opt.threads;
  // Optimal means optimal: with integer times any gap below 1 proves it, otherwise a 1e-9 gap.
  mo.relative_gap = integral ? 0 : 1e-9;
  mo.absolute_gap = integral ? 0.999 : 0;
  mo.log = opt.verbose >= 2;  // CBC's own log at -vv only
  // A CBC that ignores its limit (it checks it only between steps) is killed at 5 % past the
  // caller's limit at the latest, less a margin for decoding and simulating: the grace of a solve
  // of `seconds` that starts now.
  auto grace = [&](double seconds) { return std::max(0.05, 1.05 * opt.time_limit - 0.2 - elapsed() - seconds); };
  mo.cbc_parameters = m.cbc_parameters;
  mo.cbc_parameters.insert(mo.cbc_parameters.end(), opt.cbc_parameters.begin(), opt.cbc_parameters.end());
  // Starts and fallbacks are checked against every row: one that does not fit the budget is dropped
  // (keep-all often does not), and CBC never sees an inconsistent start.
  auto full = [&](const checkmate::Assignment& a) {
    std::vector<double> x(m.model.num_vars(), 0.0);
    for (const auto& [v, value] : a) x[v] = value;
    return x;
  };
  if (m.start && m.model.max_violation(full(*m.start)) > 1e-6) m.start.reset();
  if (m.fallback && m.model.max_violation(full(*m.fallback)) > 1e-6) m.fallback.reset();
  if (m.start) m.model.set_start(*m.start);
  if (opt.verbose)
    std::cerr << fmt::format("checkmate: {}; {} variables (estimated {}), {} rows, {} nonzeros, built in {:.2f} s, {}\n",
                             m.summary, m.model.num_vars(), checkmate::estimated_variables(g), m.model.num_rows(),
                             m.model.num_nonzeros(), built,
                             m.start ? "keep-all as MIP start" : m.fallback ? "a heuristic plan as fallback"
                                                                            : "no heuristic plan fits");
  // CBC's proof is one for the graph (exit 3) where the model's fixed order is the graph's own: a
  // generic DAG (DESIGN §2), or a training graph with a single topological order. Otherwise another
  // order of first computations may fit: "no plan found", with the proof's scope in the note.
  auto infeasible = [&] {
    Plan out;
    const bool for_the_graph = !g.is_training() || order_is_forced(g);
    out.status = for_the_graph ? PlanStatus::Infeasible : PlanStatus::NoPlanFound;
    out.note = fmt::format("{}: no schedule in this model fits {} bytes{} (every node alone fits from "
                           "{} bytes; interactions between nodes need more){}",
                           for_the_graph ? "proven infeasible" : "proven infeasible in RK-Checkmate's model only",
                           budget,
                           opt.save_budget ? fmt::format(" with at most {} bytes held at the loss", *opt.save_budget)
                                           : std::string(), floor_budget,
                           for_the_graph ? "" : fmt::format("; its first computations follow the {} order, and "
                                                            "another order may fit", start_plan ? "given plan's" : "graph's"));
    return out;
  };
  // A schedule with its simulated time, when the simulator accepts it under the budget.
  auto checked = [&](std::vector<Op> ops) -> std::optional<std::pair<Schedule, double>> {
    Schedule s = insert_frees(g, ops);
    SimResult r = simulate(g, s);
    if (!r.valid || r.peak > budget || (opt.save_budget && r.bytes_at_loss > *opt.save_budget)) return std::nullopt;
    return std::make_pair(std::move(s), r.time);
  };
  // The lazy relaxation first: often optimal in a round or two; otherwise a bound that the model
  // itself may not reach in time (its root LP did not finish in 120 s on rl2-n250).
  std::optional<double> relaxation_bound;
  std::optional<std::pair<Schedule, double>> other_plan;  // the relaxation's or the heuristic's
  if (!m.heuristic_plan.empty()) other_plan = checked(m.heuristic_plan);
  // A generic DAG where keep-all does not fit and the caller gives no plan: dagremat's plan first, as
  // the incumbent CBC starts from (without one, CBC found no plan in 120 s on rl2-n250 at 80 %).
  if (!g.is_training() && !m.start && !start_plan) {
    auto t0 = std::chrono::steady_clock::now();
    SolveOptions o = opt;
    o.time_limit = std::max(0.1, kDagRematShare * mo.time_limit);
    o.verbose = false;
    Plan d = DagRematSolver().solve(g, budget, o);
    mo.time_limit = std::max(0.1, mo.time_limit - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (d.has_schedule) {
      if (auto c = checked(std::move(d.schedule.ops)); c && (!other_plan || c->second < other_plan->second)) {
        if (m.assignment_of)
          if (auto a = m.assignment_of(c->first.ops); a && m.model.max_violation(full(*a)) <= 1e-6) {
            m.model.set_start(*a);
            m.start = std::move(a);
          }
        other_plan = std::move(c);
      }
    }
    if (opt.verbose)
      std::cerr << fmt::format("checkmate: dagremat's plan {} ({}){}\n", other_plan ? fmt::format("{}", other_plan->second) : "none",
                               d.note, m.start ? ", given to CBC as MIP start" : "");
  }
  // The caller's plan: the incumbent CBC starts from when keep-all does not fit.
  if (start_plan && !m.start) {
    if (auto c = checked(start_plan->ops); c && (!other_plan || c->second < other_plan->second)) {
      if (m.assignment_of)
        if (auto a = m.assignment_of(c->first.ops); a && m.model.max_violation(full(*a)) <= 1e-6) {
          m.model.set_start(*a);
          m.start = std::move(a);
        }
      if (opt.verbose)
        std::cerr << fmt::format("checkmate: the given plan ({}) {}\n", c->second,
                                 m.start ? "is CBC's MIP start" : "cannot be expressed in the model: kept as a fallback");
      other_plan = std::move(c);
    }
  }
  if (m.lazy) {
    auto t0 = std::chrono::steady_clock::now();
    milp::Options ro = mo;
    // Measured on rl2-n250 at 80 %: zero-half cuts took 22 s in one round and CBC overran its limit.
    ro.cbc_parameters.push_back({"zeroHalfCuts", "off"});
    const double lazy_seconds = std::max(0.1, kRelaxationShare * mo.time_limit);
    ro.grace_seconds = grace(lazy_seconds);
    if (opt.progress) opt.progress->phase("checkmate: lazy relaxation");
    checkmate::LazyOutcome lo = m.lazy(lazy_seconds, ro, opt.verbose);
    mo.time_limit = std::max(0.1, mo.time_limit - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (lo.infeasible) return infeasible();
    relaxation_bound = lo.bound;
    for (auto& ops : lo.plans)
      if (auto c = checked(std::move(ops)); c && (!other_plan || c->second < other_plan->second)) other_plan = std::move(c);
    if (opt.verbose)
      std::cerr << fmt::format("checkmate: lazy relaxation: {} rounds, bound {}, {}\n", lo.rounds,
                               relaxation_bound ? fmt::format("{}", *relaxation_bound) : "none",
                               other_plan ? fmt::format("best plan {}", other_plan->second) : "no plan that fits");
    // A plan whose time reaches the relaxation's bound is optimal (integer times: within 1).
    if (other_plan && relaxation_bound &&
        other_plan->second - *relaxation_bound <= (integral ? 0.999 : 1e-9 * std::abs(other_plan->second))) {
      plan.status = PlanStatus::Optimal;
      plan.bound = std::min(*relaxation_bound, other_plan->second);
      plan.schedule = std::move(other_plan->first);
      plan.has_schedule = true;
      plan.note = fmt::format("a plan whose time equals the bound of the lazy relaxation ({} rounds)", lo.rounds);
      return plan;
    }
  }
  // The best proven bound, the model's or the relaxation's.
  auto bound_with = [&](double model_bound) -> std::optional<double> {
    std::optional<double> b;
    if (std::isfinite(model_bound)) b = model_bound;
    if (relaxation_bound && (!b || *relaxation_bound > *b)) b = relaxation_bound;
    return b;
  };
  // Proven optimal by the relaxation's bound (integer times: a difference below 1 cannot be a plan).
  auto meets = [&](double time, std::optional<double> b) {
    return relaxation_bound && b && time - *b <= (integral ? 0.999 : 1e-9 * std::abs(time));
  };
  mo.grace_seconds = grace(mo.time_limit);
  if (opt.progress) {
    opt.progress->phase(fmt::format("checkmate: CBC on {} variables", m.model.num_vars()));
    if (other_plan) opt.progress->best(other_plan->second);
  }
  milp::Result res = milp::solve(m.model, mo);
  if (m.fallback) {
    // Anytime: when CBC found nothing (or crashed, or did worse), the checked heuristic plan stands.
    std::vector<double> x = full(*m.fallback);
    double objective = 0;
    for (size_t j = 0; j < x.size(); ++j) objective += m.model.objective()[j] * x[j];
    bool cbc_has = milp::has_solution(res.status);
    if (!cbc_has || objective < res.objective) {
      if (res.status == milp::Status::Error || res.status == milp::Status::TimeLimitNoSolution || cbc_has) {
        res.note += std::string(res.note.empty() ? "" : "; ") + "returning the heuristic plan (" +
                    (cbc_has ? "CBC's best was worse" : "CBC found no plan in time") + ")";
        res.solution = std::move(x);
        res.objective = objective;
        res.status = milp::Status::Feasible;
        res.gap = std::isfinite(res.bound) ? (objective - res.bound) / std::max(std::abs(objective), 1e-9)
                                           : milp::kInf;
      }
    }
  }
  if (res.status == milp::Status::Infeasible) return infeasible();
  if (res.status == milp::Status::TimeLimitNoSolution) {
    plan.status = PlanStatus::TimedOut;
    plan.bound = bound_with(res.bound);
    plan.note = fmt::format("time limit of {} s reached before CBC found a plan", opt.time_limit);
    auto tw = twremat_schedule(g, budget, opt, opt.time_limit - elapsed());
    if (other_plan && (!tw || other_plan->second < tw->second)) {
      plan.schedule = std::move(other_plan->first);
      plan.has_schedule = true;
      plan.note += "; returning the relaxation's or the heuristic's plan";
    } else if (tw) {
      plan.schedule = std::move(tw->first);
      plan.has_schedule = true;
      plan.note += "; returning TW-Remat's plan";
    }
    if (!res.note.empty()) plan.note += "; " + res.note;
    return plan;
  }
  if (!milp::has_solution(res.status))
    throw SolverFailure(fmt::format("checkmate: CBC returned status {}", milp::to_string(res.status)));
  plan.schedule = insert_frees(g, m.decode(res.solution));
  SimResult sim = simulate(g, plan.schedule);
  if (!sim.valid || sim.peak > budget)
    throw SolverFailure(fmt::format("checkmate: the decoded plan was rejected by the simulator ({}); this is a bug",
                                    sim.valid ? fmt::format("peak {} > budget {}", sim.peak, budget) : sim.reason));
  plan.has_schedule = true;
  plan.bound = bound_with(res.bound);
  double time = sim.time;
  if (other_plan && other_plan->second < time) {
    plan.schedule = std::move(other_plan->first);
    time = other_plan->second;
    res.note += std::string(res.note.empty() ? "" : "; ") + "the relaxation's or the heuristic's plan was faster and is returned";
  }
  if (res.status == milp::Status::Optimal) {
    plan.status = PlanStatus::Optimal;
  } else if (meets(time, plan.bound)) {
    plan.status = PlanStatus::Optimal;
    plan.note = "time limit reached, but the plan's time equals the relaxation's bound";
  } else {
    plan.status = PlanStatus::TimedOut;
    plan.note = plan.bound ? fmt::format("time limit of {} s reached: best plan found, gap {:.2f} %", opt.time_limit,
                                         100 * (time - *plan.bound) / std::max(std::abs(time), 1e-9))
                           : fmt::format("time limit of {} s reached: best plan found, no bound proven",
                                         opt.time_limit);
  }
  if (!res.note.empty()) plan.note += (plan.note.empty() ? "" : "; ") + res.note;
  if (plan.status != PlanStatus::Optimal)
    if (auto tw = twremat_schedule(g, budget, opt, opt.time_limit - elapsed()); tw && tw->second < time) {
      plan.schedule = std::move(tw->first);
      plan.note += "; TW-Remat's plan was faster and is returned";
    }
  if (start_plan && g.is_training() && plan.status == PlanStatus::Optimal) {
    plan.status = PlanStatus::Feasible;  // exact over the given plan's order only
    plan.note += "; optimal over the order of the given plan's first computations";
  }
  return plan;
}

}  // namespace hiremate
