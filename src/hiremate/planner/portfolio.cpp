#include "hiremate/planner/portfolio.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "hiremate/common/error.h"
#include "hiremate/solvers/dagremat/dagremat.h"
#include "hiremate/solvers/twremat/twremat.h"

namespace hiremate::planner {

namespace {

// TW-Remat's plan within its share of the limit (PortfolioOptions::twremat_fallback_share); none
// where it has none or it does not fit. `whole`: the composition's deadline.
std::optional<Plan> twremat_part(const Graph& g, int64_t budget, const SolveOptions& opt, const Deadline& whole,
                                 const PortfolioOptions& po) {
  SolveOptions o = opt;
  o.deadline.reset();
  o.time_limit = std::max(po.twremat_min_seconds, std::min(po.twremat_fallback_share * opt.time_limit, whole.left()));
  Plan tw = TwRematSolver().solve(g, budget, o);
  if (!tw.has_schedule) return std::nullopt;
  tw.sim = simulate(g, tw.schedule);
  if (!opt.budget(budget).admits(tw.sim)) return std::nullopt;
  return tw;
}

// Where the MILP did not settle the budget for the graph, TW-Remat's plan (`tw`, simulated) when the
// MILP has none or when it is faster.
void twremat_fallback(const Graph& g, Plan tw, Plan& plan) {
  if (!plan.has_schedule) {
    plan.schedule = std::move(tw.schedule);
    plan.has_schedule = true;
    if (plan.status == PlanStatus::NoPlanFound) plan.status = PlanStatus::Feasible;
    plan.note += "; returning TW-Remat's plan";
  } else if (tw.sim.time < simulate(g, plan.schedule).time) {
    plan.schedule = std::move(tw.schedule);
    plan.note += "; TW-Remat's plan was faster and is returned";
  }
}

// dagremat's plan as the MILP's start on a generic DAG where keep-all does not fit and the MILP
// will be built (without a start, CBC found no plan in 120 s on rl2-n250 at 80 %).
std::optional<Plan> dagremat_start(const Graph& g, int64_t budget, const SolveOptions& opt, const Deadline& whole,
                                   const PortfolioOptions& po) {
  const double limit = opt.time_limit;
  if (g.is_training() || whole.expired() || !checkmate_builds(g, limit, po.checkmate) || baseline(g).peak <= budget)
    return std::nullopt;
  const double cbc = checkmate_cbc_seconds(limit, checkmate_build_seconds(g, po.checkmate), po.checkmate);
  SolveOptions o = part_of(opt, whole, std::max(0.1, po.dagremat_start_share * cbc));
  o.verbose = false;
  Plan d = DagRematSolver().solve(g, budget, o);
  if (opt.verbose)
    std::cerr << fmt::format("portfolio: dagremat's plan for checkmate's start: {} ({})\n",
                             d.has_schedule ? "found" : "none", d.note);
  if (!d.has_schedule) return std::nullopt;
  return d;
}

}  // namespace

Plan checkmate_with_fallbacks(const Graph& g, int64_t budget, const SolveOptions& opt, const Schedule* start,
                              const PortfolioOptions& po) {
  const Deadline whole = deadline_of(opt);
  std::optional<Plan> d = start ? std::nullopt : dagremat_start(g, budget, opt, whole, po);
  if (d) start = &d->schedule;
  SolveOptions o = opt;
  o.deadline = whole;  // what dagremat took counts against the MILP's shares
  // Without a start, TW-Remat runs first (a fraction of a second up to 500 nodes): after the MILP it
  // had what CBC left, nothing where CBC took its limit (an encoder-decoder of 529 nodes at 25 %,
  // 30 s: TW-Remat's first plan, 23.94 %, where it finds 12.60 % in 0.4 s).
  const bool twremat_first = start == nullptr;
  std::optional<Plan> tw = twremat_first ? twremat_part(g, budget, opt, whole, po) : std::nullopt;
  Plan plan = CheckmateSolver(po.checkmate).solve_from(g, budget, o, start);
  // Settled for the graph: an optimum or a proof. Otherwise TW-Remat's plan where it is faster or the
  // only one: where CBC was cut, and on a training graph with other orders of first computations,
  // where the MILP is optimal (Feasible) or infeasible (NoPlanFound) over the graph's order only and
  // TW-Remat, which reorders, ran first (`generate random -n 12 --seed 21` at 99 %: 0.00 % against the
  // model's optimum 0.98 %).
  if (plan.status == PlanStatus::Optimal || plan.status == PlanStatus::Infeasible) return plan;
  if (!twremat_first && plan.status == PlanStatus::TimedOut) tw = twremat_part(g, budget, opt, whole, po);
  if (tw) twremat_fallback(g, std::move(*tw), plan);
  return plan;
}

Plan flat_milp_alone(const Graph& g, int64_t budget, const SolveOptions& opt, const PortfolioOptions& po) {
  return CheckmateSolver(po.checkmate).solve_from(g, budget, opt, nullptr);
}

Plan dagremat_then_checkmate(const Graph& g, int64_t budget, const SolveOptions& opt, const PortfolioOptions& po) {
  auto by_dagremat = [](Plan p) {
    p.note = "generic DAG, planned by dagremat" + std::string(p.note.empty() ? "" : ": ") + p.note;
    return p;
  };
  const Deadline whole = deadline_of(opt);
  const double build = checkmate_build_seconds(g, po.checkmate);
  if (opt.verbose) std::cerr << fmt::format("hiremate: generic DAG, its flat MILP would build in about {:.2f} s\n", build);
  if (build > po.dag_milp_build_share * opt.time_limit) return by_dagremat(DagRematSolver().solve(g, budget, opt));
  if (opt.progress) opt.progress->phase("dagremat");
  Plan d = DagRematSolver().solve(g, budget, part_of(opt, whole, po.dag_dagremat_share * opt.time_limit));
  if (d.status == PlanStatus::Optimal || d.status == PlanStatus::Infeasible) return d;
  // CBC's end and the final checks overrun a little: the margin.
  const Deadline milp = whole.fraction(po.limit_margin);
  if (milp.left() <= po.min_milp_seconds) return by_dagremat(std::move(d));
  try {
    Plan c = checkmate_with_fallbacks(g, budget, part_of(opt, milp, milp.left()), d.has_schedule ? &d.schedule : nullptr,
                                      po);
    // Its proof is one for the graph (the fixed order is a generic DAG's own): said as such.
    if (c.status == PlanStatus::Infeasible) {
      c.note = "generic DAG: dagremat found no plan, and checkmate's MILP " + c.note;
      return c;
    }
    // The MILP never returns a plan slower than its start; the check says so if it did.
    if (c.has_schedule && (!d.has_schedule || simulate(g, c.schedule).time <= simulate(g, d.schedule).time)) {
      if (d.bound && (!c.bound || *d.bound > *c.bound)) c.bound = d.bound;
      c.note = "generic DAG, planned by dagremat then checkmate's MILP from its plan: " + c.note;
      return c;
    }
  } catch (const SolverFailure& e) {
    d.note += std::string("; checkmate after it failed: ") + e.what();
  }
  return by_dagremat(std::move(d));
}

}  // namespace hiremate::planner
