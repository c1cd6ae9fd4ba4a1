#include "hiremate/hierarchy/rotor.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "hiremate/common/error.h"
#include "hiremate/hierarchy/menu.h"
#include "hiremate/hierarchy/rotor_dp.h"

namespace hiremate {

namespace {
using Clock = std::chrono::steady_clock;

std::optional<std::string> not_a_chain(const Graph& g) {
  std::string why;
  if (hierarchy::chain_clusters(g, &why)) return std::nullopt;
  return "the graph is not a chain of blocks: " + why;
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
}  // namespace

Plan hierarchy::solve_chain(const Graph& g, const Chain& chain, int64_t budget, const SolveOptions& opt,
                 const RotorConfig& cfg) {
  auto start = Clock::now();
  Plan plan;
  size_t options = 0;
  for (const Block& b : chain.blocks) options += b.options.size();
  const Discretization d = choose_unit(chain, cfg.max_slots);
  std::string about = fmt::format(
      "{} blocks ({} distinct), {:.1f} options per block; memory unit {} bytes (budget rounded down, sizes up)",
      chain.blocks.size(), chain.equivalence_classes, static_cast<double>(options) / chain.blocks.size(), d.unit);
  const int64_t avail = budget - chain.constant;
  if (avail < 0) {
    plan.status = PlanStatus::Infeasible;
    plan.note = fmt::format("the sources alone hold {} bytes, over the budget", chain.constant);
    return plan;
  }
  // Budgets past `slots` units change nothing: the table stops there.
  int64_t m = std::min(avail / d.unit, d.slots);
  // The caller's deadline where it set one (what is left of it), or the limit from the start.
  const double seconds = std::min(opt.time_limit, deadline_of(opt).left());
  auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  RotorTable table(chain, d.unit, m, deadline);
  if (table.timed_out()) {
    plan.status = PlanStatus::TimedOut;
    plan.note = fmt::format("the DP table ({} slots) was not filled within {} s; {}", m, opt.time_limit, about);
    return plan;
  }
  // Rotor's plans are a restricted family (persistent schedules of the blocks' options): none
  // fitting proves nothing about the graph, so "no plan found", not "infeasible".
  if (!(table.time(m) < std::numeric_limits<double>::infinity())) {
    plan.status = PlanStatus::NoPlanFound;
    plan.note = fmt::format("no persistent schedule of the blocks' options fits {} bytes; {}", budget, about);
    return plan;
  }
  // The accounting bounds the simulator's; should a plan still exceed the budget (a bug), retry lower
  // rather than return it, and say so.
  for (int attempt = 0;; ++attempt) {
    Schedule s = to_schedule(g, chain, table.sequence(m));
    SimResult r = simulate(g, s);
    HM_ASSERT(r.valid, "rotor built an invalid schedule: op " + std::to_string(r.invalid_op) + ": " + r.reason);
    bool fits = opt.budget(budget).admits(r.peak, r.bytes_at_loss);
    if (fits) {
      plan.status = PlanStatus::Feasible;
      plan.has_schedule = true;
      plan.schedule = std::move(s);
      break;
    }
    if (opt.save_budget && r.bytes_at_loss > *opt.save_budget && r.peak <= budget) {
      plan.status = PlanStatus::NoPlanFound;
      plan.note = fmt::format("the plan holds {} bytes at the loss, over the save budget (Rotor does not bound it)",
                              r.bytes_at_loss);
      return plan;
    }
    plan.note += fmt::format("accounting missed {} bytes (a bug); ", r.peak - budget);
    m -= (r.peak - budget + d.unit - 1) / d.unit;
    while (m >= 0 && !(table.time(m) < std::numeric_limits<double>::infinity())) --m;
    if (m < 0 || attempt >= 3) {
      plan.status = PlanStatus::NoPlanFound;
      plan.note += about;
      return plan;
    }
  }
  plan.note += fmt::format("{}; {} of {} table slots used, DP {:.3f} s", about, m, d.slots, seconds_since(start));
  return plan;
}

std::optional<std::string> RotorSolver::unsupported(const Graph& g) const { return not_a_chain(g); }

Plan RotorSolver::solve(const Graph& g, int64_t budget, const SolveOptions& opt) const {
  hierarchy::Chain chain = hierarchy::make_chain(g, [](const hierarchy::ClusterProblem& cg) {
    return std::vector<hierarchy::Option>{hierarchy::autograd_option(cg), hierarchy::recompute_all_option(cg)};
  });
  return hierarchy::solve_chain(g, chain, budget, opt, cfg_);
}

std::optional<std::string> RockmateSolver::unsupported(const Graph& g) const { return not_a_chain(g); }

Plan RockmateSolver::solve(const Graph& g, int64_t budget, const SolveOptions& opt) const {
  auto start = Clock::now();
  hierarchy::MenuOptions mo;
  mo.solvers = {bottom_};
  mo.threads = opt.threads;
  mo.verbose = opt.verbose;
  // Half the time limit for the menus, one 1/20 of it (at most 10 s) per bottom solve.
  mo.time_limit = std::clamp(opt.time_limit / 20, 0.2, 10.0);
  mo.deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.time_limit / 2));
  int solves = 0, skipped = 0;
  size_t failed = 0;
  hierarchy::Chain chain = hierarchy::make_chain(g, [&](const hierarchy::ClusterProblem& cg) {
    if (seconds_since(start) > opt.time_limit / 2) {
      ++skipped;
      return std::vector<hierarchy::Option>{hierarchy::autograd_option(cg), hierarchy::recompute_all_option(cg)};
    }
    hierarchy::Menu menu = hierarchy::build_menu(cg, mo);
    solves += menu.solves;
    failed += menu.notes.size();
    return menu.options;
  });
  SolveOptions dp = opt;
  dp.time_limit = std::max(0.05, opt.time_limit - seconds_since(start));
  Plan plan = hierarchy::solve_chain(g, chain, budget, dp, cfg_);
  std::string menus = fmt::format("menus: {} {} solves ({} without a plan) in {:.2f} s", solves, bottom_->name(),
                                  failed, seconds_since(start));
  if (skipped) menus += fmt::format(", {} blocks past half the time limit offer the baselines only", skipped);
  plan.note = menus + "; " + plan.note;
  return plan;
}

}  // namespace hiremate
