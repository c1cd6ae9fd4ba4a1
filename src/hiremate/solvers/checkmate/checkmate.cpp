// The Checkmate driver shared by both models: MIP start, lazy relaxation, CBC, decode, simulate.
#include "hiremate/solvers/checkmate/checkmate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "hiremate/common/error.h"
#include "hiremate/milp/solve.h"
#include "hiremate/schedule/lower_bound.h"
#include "hiremate/schedule/min_budget.h"
#include "hiremate/solvers/checkmate/model_size.h"
#include "hiremate/solvers/checkmate/stage_model.h"

namespace hiremate {

std::optional<std::string> CheckmateSolver::unsupported(const Graph& g) const { return checkmate::too_big(g); }

double checkmate_build_seconds(const Graph& g, const CheckmateOptions& copt) {
  return static_cast<double>(checkmate::estimated_variables(g)) /
         (g.is_training() ? copt.training_variables_per_second : copt.dag_variables_per_second);
}

bool checkmate_builds(const Graph& g, double seconds, const CheckmateOptions& copt) {
  return checkmate_build_seconds(g, copt) <= copt.max_build_share * seconds;
}

double checkmate_cbc_seconds(double limit, double built, const CheckmateOptions& copt) {
  return std::max(0.1, std::min(copt.cbc_share * limit, (limit - 2) / 1.1) - built);
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

namespace {

using TimedSchedule = std::pair<Schedule, double>;  // a schedule and its simulated time

// One solve of the MILP, step by step (CheckmateSolver::solve_from runs the steps in order).
struct MilpRun {
  const Graph& g;
  const int64_t budget;
  const SolveOptions& opt;
  const CheckmateOptions& copt;
  const Schedule* start_plan;
  const Deadline deadline;  // the caller's (started before the MILP where a composition ran first)
  const double limit = opt.time_limit;  // its length (SolveOptions::deadline): the shares are of it
  checkmate::StageModel m;
  milp::Options mo;
  bool integral = true;
  std::optional<double> relaxation_bound;
  std::optional<TimedSchedule> other_plan;  // the relaxation's, the heuristic's or the start's
  // Valid for every schedule of a training graph (lower_bound.h), computed first, while time is left.
  const std::optional<ScheduleBound> every_plans_bound;

  MilpRun(const Graph& graph, int64_t b, const SolveOptions& o, const CheckmateOptions& co, const Schedule* start)
      : g(graph), budget(b), opt(o), copt(co), start_plan(start), deadline(deadline_of(o)),
        every_plans_bound(schedule_bound(g, b, deadline.share(kScheduleBoundShare).end())) {}

  // The model (not cut by the time limit), CBC's options, and keep-all as MIP start where it fits.
  void build() {
    if (opt.progress) opt.progress->phase("checkmate: building the MILP");
    m = g.is_training() ? checkmate::build_training_model(g, budget, opt.save_budget,
                                                          start_plan ? &start_plan->ops : nullptr)
                        : checkmate::build_dag_model(g, budget, copt.heuristic_share * limit);
    const double built = deadline.elapsed();
    for (double c : m.model.objective()) integral &= c == std::floor(c);
    mo.time_limit = checkmate_cbc_seconds(limit, built, copt);
    mo.threads = opt.threads;
    // Optimal means optimal: with integer times any gap below 1 proves it, otherwise a 1e-9 gap.
    mo.relative_gap = integral ? 0 : 1e-9;
    mo.absolute_gap = integral ? 0.999 : 0;
    mo.log = opt.verbose >= 2;  // CBC's own log at -vv only
    mo.cbc_parameters = m.cbc_parameters;
    mo.cbc_parameters.insert(mo.cbc_parameters.end(), opt.cbc_parameters.begin(), opt.cbc_parameters.end());
    // Starts and fallbacks are checked against every row: one that does not fit the budget is
    // dropped (keep-all often does not), and CBC never sees an inconsistent start.
    if (m.start && !fits_rows(*m.start)) m.start.reset();
    if (m.fallback && !fits_rows(*m.fallback)) m.fallback.reset();
    if (m.start) m.model.set_start(*m.start);
    if (opt.verbose)
      std::cerr << fmt::format("checkmate: {}; {} variables (estimated {}), {} rows, {} nonzeros, built in {:.2f} s, {}\n",
                               m.summary, m.model.num_vars(), checkmate::estimated_variables(g), m.model.num_rows(),
                               m.model.num_nonzeros(), built,
                               m.start ? "keep-all as MIP start" : m.fallback ? "a heuristic plan as fallback"
                                                                              : "no heuristic plan fits");
    if (!m.heuristic_plan.empty()) other_plan = checked(m.heuristic_plan);
  }

  std::vector<double> full(const checkmate::Assignment& a) const {
    std::vector<double> x(m.model.num_vars(), 0.0);
    for (const auto& [v, value] : a) x[v] = value;
    return x;
  }
  bool fits_rows(const checkmate::Assignment& a) const { return m.model.max_violation(full(a)) <= 1e-6; }

  // A schedule with its simulated time, when the simulator accepts it under the budget.
  std::optional<TimedSchedule> checked(std::vector<Op> ops) const {
    Schedule s = insert_frees(g, ops);
    SimResult r = simulate(g, s);
    if (!opt.budget(budget).admits(r)) return std::nullopt;
    return std::make_pair(std::move(s), r.time);
  }

  // The caller's plan (on generic DAGs where keep-all does not fit, dagremat's: without one, CBC
  // found no plan in 120 s on rl2-n250 at 80 %): the incumbent CBC starts from, where keep-all does
  // not fit and the model can express it; otherwise a fallback when it beats the heuristic's.
  void take_start_plan() {
    if (!start_plan || m.start) return;
    auto c = checked(start_plan->ops);
    if (!c || (other_plan && c->second >= other_plan->second)) return;
    if (m.assignment_of)
      if (auto a = m.assignment_of(c->first.ops); a && fits_rows(*a)) {
        m.model.set_start(*a);
        m.start = std::move(a);
      }
    if (opt.verbose)
      std::cerr << fmt::format("checkmate: the given plan ({}) {}\n", c->second,
                               m.start ? "is CBC's MIP start" : "cannot be expressed in the model: kept as a fallback");
    other_plan = std::move(c);
  }

  // A CBC that ignores its limit (it checks it only between steps) is killed at
  // CheckmateOptions::hard_stop_share of the caller's limit at the latest, less a margin for
  // decoding and simulating: the grace of a solve of `seconds` that starts now.
  double grace(double seconds) const {
    return std::max(0.05, copt.hard_stop_share * limit - 0.2 - deadline.elapsed() - seconds);
  }

  // Proven optimal by the relaxation's bound (integer times: a difference below 1 cannot be a plan).
  bool meets(double time, std::optional<double> b) const {
    return relaxation_bound && b && time - *b <= (integral ? 0.999 : 1e-9 * std::abs(time));
  }

  // The best proven bound, the model's or the relaxation's.
  std::optional<double> bound_with(double model_bound) const {
    std::optional<double> b;
    if (std::isfinite(model_bound)) b = model_bound;
    if (relaxation_bound && (!b || *relaxation_bound > *b)) b = relaxation_bound;
    return b;
  }

  // CBC's proof is one for the graph (exit 3) where the model's fixed order is the graph's own: a
  // generic DAG (DESIGN §2), or a training graph with a single topological order. Otherwise another
  // order of first computations may fit: "no plan found", with the proof's scope in the note.
  Plan infeasible() const {
    Plan out;
    const bool for_the_graph = !g.is_training() || order_is_forced(g);
    out.status = for_the_graph ? PlanStatus::Infeasible : PlanStatus::NoPlanFound;
    out.note = fmt::format("{}: no schedule in this model fits {} bytes{} (every node alone fits from "
                           "{} bytes; interactions between nodes need more){}",
                           for_the_graph ? "proven infeasible" : "proven infeasible in RK-Checkmate's model only",
                           budget,
                           opt.save_budget ? fmt::format(" with at most {} bytes held at the loss", *opt.save_budget)
                                           : std::string(),
                           min_budget(g),
                           for_the_graph ? "" : fmt::format("; its first computations follow the {} order, and "
                                                            "another order may fit", start_plan ? "given plan's" : "graph's"));
    return out;
  }

  // The lazy relaxation first: often optimal in a round or two; otherwise a bound that the model
  // itself may not reach in time (its root LP did not finish in 120 s on rl2-n250). Returns the
  // plan when it settles the solve (a proof of infeasibility, or a plan that meets its bound).
  std::optional<Plan> run_lazy() {
    if (!m.lazy) return std::nullopt;
    if (opt.progress) opt.progress->phase("checkmate: lazy relaxation");
    const Deadline::TimePoint t0 = deadline.now();
    milp::Options ro = mo;
    // No zero-half cuts (measured: bench/results/time_shares.md#checkmate-relaxation-share).
    ro.cbc_parameters.push_back({"zeroHalfCuts", "off"});
    const double lazy_seconds = std::max(0.1, copt.relaxation_share * mo.time_limit);
    ro.grace_seconds = grace(lazy_seconds);
    checkmate::LazyOutcome lo = m.lazy(lazy_seconds, ro, opt.verbose);
    mo.time_limit = std::max(0.1, mo.time_limit - std::chrono::duration<double>(deadline.now() - t0).count());
    if (lo.infeasible) return infeasible();
    relaxation_bound = lo.bound;
    for (auto& ops : lo.plans)
      if (auto c = checked(std::move(ops)); c && (!other_plan || c->second < other_plan->second)) other_plan = std::move(c);
    if (opt.verbose)
      std::cerr << fmt::format("checkmate: lazy relaxation: {} rounds, bound {}, {}\n", lo.rounds,
                               relaxation_bound ? fmt::format("{}", *relaxation_bound) : "none",
                               other_plan ? fmt::format("best plan {}", other_plan->second) : "no plan that fits");
    // A plan whose time reaches the relaxation's bound is optimal (integer times: within 1).
    if (!other_plan || !relaxation_bound ||
        other_plan->second - *relaxation_bound > (integral ? 0.999 : 1e-9 * std::abs(other_plan->second)))
      return std::nullopt;
    Plan plan;
    plan.status = PlanStatus::Optimal;
    plan.bound = std::min(*relaxation_bound, other_plan->second);
    plan.schedule = std::move(other_plan->first);
    plan.has_schedule = true;
    plan.note = fmt::format("a plan whose time equals the bound of the lazy relaxation ({} rounds)", lo.rounds);
    return plan;
  }

  // CBC on the full model. Anytime: when CBC found nothing (or crashed, or did worse), the checked
  // heuristic plan (the fallback assignment) stands.
  milp::Result run_cbc() {
    mo.grace_seconds = grace(mo.time_limit);
    if (copt.probe_seconds > 0) {
      mo.checkpoint_seconds = std::max(0.05, copt.probe_seconds - deadline.elapsed());
      mo.checkpoint_objective = copt.probe_time;
    }
    if (opt.progress) {
      opt.progress->phase(fmt::format("checkmate: CBC on {} variables", m.model.num_vars()));
      if (other_plan) opt.progress->best(other_plan->second);
    }
    milp::Result res = milp::solve(m.model, mo);
    if (!m.fallback) return res;
    std::vector<double> x = full(*m.fallback);
    const double objective = m.model.objective_value(x);
    const bool cbc_has = milp::has_solution(res.status);
    if (cbc_has && objective >= res.objective) return res;
    if (res.status != milp::Status::Error && res.status != milp::Status::TimeLimitNoSolution && !cbc_has) return res;
    res.note += std::string(res.note.empty() ? "" : "; ") + "returning the heuristic plan (" +
                (cbc_has ? "CBC's best was worse" : "CBC found no plan in time") + ")";
    res.solution = std::move(x);
    res.objective = objective;
    res.status = milp::Status::Feasible;
    res.gap = std::isfinite(res.bound) ? (objective - res.bound) / std::max(std::abs(objective), 1e-9) : milp::kInf;
    return res;
  }

  // CBC found nothing in time: the relaxation's or the heuristic's plan, if any.
  Plan no_cbc_plan(const milp::Result& res) {
    Plan plan;
    plan.status = PlanStatus::TimedOut;
    plan.bound = bound_with(res.bound);
    plan.note = res.stopped_at_checkpoint
                    ? fmt::format("stopped at its probe ({:.2f} s): CBC held no plan faster than {}", copt.probe_seconds,
                                  copt.probe_time)
                    : fmt::format("time limit of {} s reached before CBC found a plan", limit);
    if (other_plan) {
      plan.schedule = std::move(other_plan->first);
      plan.has_schedule = true;
      plan.note += "; returning the relaxation's or the heuristic's plan";
    }
    if (!res.note.empty()) plan.note += "; " + res.note;
    return plan;
  }

  // CBC's solution as a checked plan (or the relaxation's or heuristic's, when faster), its status.
  Plan decoded(milp::Result res) {
    Plan plan;
    plan.schedule = insert_frees(g, m.decode(res.solution));
    SimResult sim = simulate(g, plan.schedule);
    if (!opt.budget(budget).admits(sim))
      throw SolverFailure(fmt::format("checkmate: the decoded plan was rejected by the simulator ({}); this is a bug",
                                      sim.valid ? fmt::format("peak {} / budget {}, at the loss {}", sim.peak, budget,
                                                              sim.bytes_at_loss)
                                                : sim.reason));
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
      plan.note = plan.bound ? fmt::format("time limit of {} s reached: best plan found, gap {:.2f} %", limit,
                                           100 * (time - *plan.bound) / std::max(std::abs(time), 1e-9))
                             : fmt::format("time limit of {} s reached: best plan found, no bound proven", limit);
    }
    if (!res.note.empty()) plan.note += (plan.note.empty() ? "" : "; ") + res.note;
    if (start_plan && g.is_training() && plan.status == PlanStatus::Optimal) {
      plan.status = PlanStatus::Feasible;  // exact over the given plan's order only
      plan.optimal_in_model = true;
      plan.note += "; optimal over the order of the given plan's first computations";
    }
    return plan;
  }

  // RK-Checkmate's stages fix the order of first computations (the graph's, or the given plan's). On
  // a training graph with other topological orders its optimum and its bound hold over that order
  // only: another order can be faster (a 25-node random training graph at 99 %, `generate random -n
  // 12 --seed 21`: "optimal" at 0.98 % where TW-Remat's plan has 0.00 %). There the plan is Feasible
  // and the bound reported is the better of the loss-point and chain bounds (lower_bound.h), valid
  // for every schedule; the model's own bound is Plan::model_bound, and said in the note. (A generic
  // DAG's order is part of its problem: there both hold for the graph.)
  // On every training graph that bound also stands where it proves more than CBC did (`generate
  // random -n 70 --seed 3` at 70 %, 20 s: the loss-point bound 5.64 % against CBC's 4.01 %).
  Plan in_the_graphs_terms(Plan plan) const {
    if (!g.is_training()) return plan;
    const std::optional<ScheduleBound>& lb = every_plans_bound;
    auto take_schedule_bound = [&] {
      if (!lb || (plan.bound && *plan.bound >= lb->time)) return;
      plan.bound = lb->time;
      plan.note += std::string(plan.note.empty() ? "" : "; ") + "bound: " + lb->why;
    };
    if (order_is_forced(g)) {
      take_schedule_bound();
      return plan;
    }
    if (plan.status == PlanStatus::Optimal) {
      plan.status = PlanStatus::Feasible;
      plan.optimal_in_model = true;
      plan.note += fmt::format("{}{}, over the {} order of first computations; another order may be faster",
                               plan.note.empty() ? "" : "; ", kOptimalInModel, start_plan ? "given plan's" : "graph's");
    }
    if (plan.bound) {
      plan.note += fmt::format("{}the model's bound {:.6g} holds over that order only", plan.note.empty() ? "" : "; ",
                               *plan.bound);
      plan.model_bound = plan.bound;
      plan.bound.reset();
    }
    take_schedule_bound();
    return plan;
  }
};

}  // namespace

Plan CheckmateSolver::solve_from(const Graph& g, int64_t budget, const SolveOptions& opt,
                                 const Schedule* start_plan) const {
  MilpRun run(g, budget, opt, copt_, start_plan);
  // Building the model is not cut by the time limit: when the estimate says it would eat the
  // limit, it is not built (measured: bench/results/time_shares.md#checkmate-build-speed).
  if (!checkmate_builds(g, run.limit, copt_)) {
    Plan plan;
    plan.status = PlanStatus::TimedOut;
    plan.note = fmt::format("the MILP (about {} variables) would take about {:.1f} s to build, more than half the {} s "
                            "limit: not built; a longer --time-limit, or --solver hiremate / twremat for this size",
                            checkmate::estimated_variables(g), checkmate_build_seconds(g, copt_), run.limit);
    return plan;
  }
  // A composition's part may start past the deadline it is handed: no model, no CBC.
  if (run.deadline.expired()) {
    Plan plan;
    plan.status = PlanStatus::TimedOut;
    plan.note = fmt::format("the {} s deadline had passed before the MILP was built: not built", run.limit);
    return plan;
  }
  run.build();
  run.take_start_plan();
  if (auto settled = run.run_lazy()) return run.in_the_graphs_terms(std::move(*settled));
  milp::Result res = run.run_cbc();
  if (res.status == milp::Status::Infeasible) return run.infeasible();
  if (res.status == milp::Status::TimeLimitNoSolution) return run.in_the_graphs_terms(run.no_cbc_plan(res));
  if (!milp::has_solution(res.status))
    throw SolverFailure(fmt::format("checkmate: CBC returned status {}", milp::to_string(res.status)));
  return run.in_the_graphs_terms(run.decoded(std::move(res)));
}

}  // namespace hiremate
