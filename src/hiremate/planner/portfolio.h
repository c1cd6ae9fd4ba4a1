// The portfolio: every composition of solvers in one place (DESIGN §3, issue 20). A solver folder
// never runs another solver; "solver A, then B from A's plan", fallbacks and the time shares between
// them are here, under one Deadline (common/deadline.h) that the parts' deadlines are children of.
//
// - checkmate_with_fallbacks (the registry's `checkmate`): on a generic DAG where keep-all does not
//   fit, dagremat first, its plan as the MILP's start; elsewhere (no start) TW-Remat first, within
//   its share; then the MILP (solvers/checkmate); where the MILP ends TimedOut (not built, or CBC
//   cut by the limit), TW-Remat's plan (run after the MILP where there was a start) when it is
//   faster or the only one; so too, where TW-Remat ran first, on a training graph whose other
//   orders the MILP's optimum or proof does not cover.
// - dagremat_then_checkmate (`hiremate` on a generic DAG): dagremat for a share of the limit, then
//   checkmate_with_fallbacks from its plan where the MILP builds quickly; dagremat alone otherwise.
// - The hierarchical planner (planner.h) takes its top-level shares from PortfolioOptions and runs
//   the flat MILP through checkmate_with_fallbacks.
#pragma once
#include <cstdint>

#include "hiremate/graph/graph.h"
#include "hiremate/solvers/checkmate/checkmate.h"
#include "hiremate/solvers/solver.h"

namespace hiremate::planner {

// Every share is of the limit the composition is given (its Deadline's length) unless it says so.
struct PortfolioOptions {
  // checkmate on a generic DAG where keep-all does not fit: dagremat first, for this share of CBC's
  // time (checkmate_cbc_seconds), its plan CBC's MIP start.
  // measured: bench/results/time_shares.md#portfolio-dagremat-start-share
  double dagremat_start_share = 0.2;
  // TW-Remat as the MILP's fallback: this share of the limit at most, what is left of it at least
  // twremat_min_seconds (it takes a fraction of a second on the public graphs). It runs before the
  // MILP where the MILP has no start, so that CBC cannot leave it no time.
  double twremat_fallback_share = 0.1;
  double twremat_min_seconds = 0.05;
  // hiremate on a generic DAG: one whose MILP builds (checkmate_build_seconds) within
  // dag_milp_build_share gets dagremat for dag_dagremat_share, then checkmate from its plan; larger
  // DAGs go to dagremat alone. measured: bench/results/time_shares.md#portfolio-generic-dags
  double dag_milp_build_share = 0.1;
  double dag_dagremat_share = 0.4;
  // What a composition leaves of its limit for CBC's end, the final checks and the caller's own
  // work. measured: bench/results/time_shares.md#planner-limit-margin
  double limit_margin = 0.93;
  // The hierarchical planner's MILP searches (H-ILPs, the flat MILP at the top) that run past their
  // own limits (CBC checks them only between steps: the root LP of an 89,000-row top H-ILP took 9.6 s
  // of a 5.9 s limit) are killed at this share of the run's limit at the latest, so that the final
  // checks and the output fit within it; a killed search's incumbent is lost, the other plans stand.
  // It was 1.05: hilp on an 801-node random training graph at 45 %, 30 s, 2 threads, took 31.6 s.
  double hard_stop_share = 0.98;
  // Below this many seconds left a further MILP is not started after dagremat.
  double min_milp_seconds = 0.5;
  // The hierarchical planner's top: TW-Remat on the whole graph first, with this share of the limit
  // (with one thread, or where twremat_probe_share is 0).
  // measured: bench/results/time_shares.md#planner-twremat-at-top
  double twremat_at_top_share = 0.4;
  // With two threads or more: TW-Remat first for this share of the limit only (milliseconds on
  // small graphs); where the limit cuts it, it runs again beside the hierarchy, on a thread of its
  // own, until the end of the limit, as it would alone, and the hierarchy keeps the other threads.
  // So `hiremate` is not behind TW-Remat alone for want of time (issue 21: at 12 s on a 4,991-node
  // transformer, 36.61 % against TW-Remat's 13.93 % with 0.4 of the limit). Not where its walk, at
  // the rate it climbed in this share, would not reach the budget within the limit: the hierarchy
  // then keeps every thread (planner.cpp, twremat_first), and hiremate has only the probe's plan of
  // TW-Remat (a 19,991-node encoder-decoder at 35 %, 30 s: 33.27 % against TW-Remat alone's 30.47 %).
  // 0: always the share above.
  double twremat_probe_share = 0.05;
  // The hierarchical planner: the flat MILP gets time of its own at the top (half of it, and a
  // from-scratch run beside the hierarchy) only under limits of at least this many seconds.
  // measured: bench/results/time_shares.md#planner-flat-milp
  double flat_min_limit = 20;
  // The levels' share of what the margin leaves: a third where the flat MILP gets its time at the top
  // and no thread of its own (it then has half of the rest at the top), two thirds otherwise. Where
  // it runs from scratch beside the hierarchy (two threads or more), a third left hiremate's H-ILP
  // less than hilp's alone, and worse plans (unet-100 at 50 %, 30 s, 2 threads: 17.29 % with a third,
  // 14.73 % with two thirds, as hilp).
  double levels_share_with_flat = 1.0 / 3;
  double levels_share = 2.0 / 3;
  // With one thread, where the flat MILP gets time at the top: the flat MILP alone first (no start,
  // no fallback), for this share of the limit, because one split of one thread cannot suit both
  // kinds of graph: where the flat MILP wins, it needs its time; where it finds nothing, the
  // hierarchy does. Where CBC finds a plan faster than TW-Remat's in the probe (or proves that none
  // fits), the shares above apply to the rest and the probe's plan is offered at the top; elsewhere
  // the hierarchy gets the rest as hilp alone would (levels_share, the whole top to the H-ILP).
  // With two threads or more, the flat MILP's thread beside the hierarchy probes first the same way,
  // and goes back to the hierarchy where the probe loses (planner.cpp, flat_beside).
  // 0: no probe. measured: bench/results/time_shares.md#planner-flat-probe
  double flat_probe_share = 0.25;
  // With one thread, where the probe wins: its search goes on for this share of the limit more (one
  // search with a checkpoint at the probe's end, milp::Options::checkpoint_seconds), before the levels.
  double flat_probe_continue_share = 0.2;
  // The H-ILP solves at the top share this share of the top's time where the flat MILP gets its
  // time and no thread of its own (it has the rest, from their best plan); where it runs from
  // scratch on its own thread they keep the whole top. measured: bench/results/time_shares.md#planner-flat-milp
  double top_hilp_share_with_flat = 0.5;
  // Rotor at the top: each of its two DPs (over the baselines, over the levels' menus) gets this
  // share of what is left of the top's time.
  double rotor_at_top_share = 0.25;
  // The MILP's own knobs.
  CheckmateOptions checkmate;
};

// Checkmate's MILP with its compositions (see above). `start`: a plan to start the MILP from (then
// dagremat does not run). The deadline is opt.deadline, or opt.time_limit from now.
Plan checkmate_with_fallbacks(const Graph& g, int64_t budget, const SolveOptions& opt, const Schedule* start = nullptr,
                              const PortfolioOptions& po = {});

// The MILP from scratch, without dagremat's start or TW-Remat's fallback: a plan only where CBC found
// one (the planner's probe of whether the flat MILP earns its time, PortfolioOptions::flat_probe_share).
Plan flat_milp_alone(const Graph& g, int64_t budget, const SolveOptions& opt, const PortfolioOptions& po = {});

// A generic DAG: dagremat, then checkmate_with_fallbacks from its plan (see above).
Plan dagremat_then_checkmate(const Graph& g, int64_t budget, const SolveOptions& opt, const PortfolioOptions& po = {});

// The registry's `checkmate`: checkmate_with_fallbacks behind the Solver interface.
class CheckmatePortfolio : public Solver {
 public:
  explicit CheckmatePortfolio(PortfolioOptions po = {}) : po_(po) {}
  std::string name() const override { return "checkmate"; }
  std::string description() const override { return CheckmateSolver().description(); }
  std::optional<std::string> unsupported(const Graph& g) const override { return CheckmateSolver().unsupported(g); }
  Plan solve(const Graph& g, int64_t budget, const SolveOptions& opt) const override {
    return checkmate_with_fallbacks(g, budget, opt, nullptr, po_);
  }

 private:
  PortfolioOptions po_;
};

}  // namespace hiremate::planner
