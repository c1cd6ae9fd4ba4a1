#include "hiremate/solvers/dagremat/dagremat.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <future>
#include <iostream>
#include <limits>
#include <optional>
#include <tuple>

#include "hiremate/common/error.h"
#include "hiremate/common/random.h"
#include "hiremate/common/worker_pool.h"
#include "hiremate/solvers/dagremat/budget_ladder.h"
#include "hiremate/solvers/dagremat/dtr_decisions.h"
#include "hiremate/solvers/dagremat/dtr_pass.h"
#include "hiremate/solvers/dagremat/evict_sweep.h"
#include "hiremate/solvers/dagremat/gap_bound.h"
#include "hiremate/solvers/dagremat/keep_state.h"
#include "hiremate/solvers/dagremat/pebbling_bound.h"
#include "hiremate/solvers/dagremat/retention_greedy.h"
#include "hiremate/solvers/dagremat/search.h"
#include "hiremate/solvers/dagremat/stage_dag.h"

namespace hiremate {

using dagremat::Clock;
using Decisions = std::vector<dagremat::KeepState::Decision>;

std::optional<std::string> DagRematSolver::unsupported(const Graph& g) const {
  if (g.is_training()) return std::string("it plans generic DAGs (no backward or loss nodes); use hiremate or checkmate");
  return std::nullopt;
}

namespace {

// One solve (dagremat.h's steps), run in order by DagRematSolver::solve.
struct DagRematRun {
  const Graph& g;
  const int64_t budget;
  const SolveOptions& opt;
  const Deadline run;          // the caller's
  const double limit = opt.time_limit;  // its length (SolveOptions::deadline): the shares are of it
  // Where the searches end: kEndShare of the limit, and earlier where the final state, its schedule
  // and its simulation (finish) would not fit in the rest (set once the keep-all state's cost is known).
  Clock::time_point deadline = run.fraction(DagRematSolver::kEndShare).end();
  dagremat::StageDag dag;
  const int64_t cap = budget - dag.sources;
  double one_run = 0;          // every node once: the time of keep-all
  Clock::duration state_cost{};  // what each further start costs, at least
  std::optional<dagremat::KeepState> keep_all, swept, from_dtr, retained, laddered;
  bool retained_fits = false;
  // The DTR pass's own plan (dtr_pass.h), checked by the simulator: returned where no keep/drop
  // state fits, or where it is faster than the best of them.
  std::optional<Schedule> dtr_schedule;
  SimResult dtr_sim;
  int dtr_stuck = -1;
  bool from_dtr_fits = false;
  dagremat::SweepStats sweep_stats;
  bool swept_fits = false, keep_all_fits = false;
  Clock::time_point repair_until;
  dagremat::GapBound gb;
  Decisions best_keep;         // the best start's decisions (empty: none fits)
  double best_cost = std::numeric_limits<double>::infinity();
  std::string best_from;
  // Every start that fits, for the searches after the best one's (improve()).
  struct Start {
    double cost;
    Decisions decisions;
    std::string from;
  };
  std::vector<Start> starts;

  DagRematRun(const Graph& graph, int64_t b, const SolveOptions& o)
      : g(graph), budget(b), opt(o), run(deadline_of(o)), dag(graph) {
    for (double c : dag.cost) one_run += c;
  }

  void phase(const std::string& what) const {
    if (opt.verbose) std::cerr << fmt::format("dagremat: {} at {:.2f} s\n", what, run.elapsed());
  }
  // The end of a phase that may run until `share` of the limit (never past the deadline).
  Clock::time_point until(double share) const {
    return std::min(deadline, run.fraction(std::min(share, DagRematSolver::kEndShare)).end());
  }
  // The end of a phase that may run for `share` of the limit from now (never past the deadline).
  Clock::time_point from_now(double share) const {
    return std::min(deadline, Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                 std::chrono::duration<double>(share * limit)));
  }

  void repair_start(dagremat::KeepState& s, bool& ok, Clock::time_point end,
                    const std::atomic<bool>* stop = nullptr) const {
    ok = dagremat::repair(s, end, stop);
    if (ok) dagremat::polish(s, end);
    s.commit();
  }

  void consider(dagremat::KeepState& s, bool fits, const char* from) {
    if (!fits) return;
    if (opt.verbose)
      std::cerr << fmt::format("dagremat: start from {}: recomputation {} ({:.3f} %), {:.2f} s\n", from,
                               s.recompute_cost(), 100 * s.recompute_cost() / one_run, run.elapsed());
    if (s.recompute_cost() < best_cost) {
      best_cost = s.recompute_cost();
      best_keep = s.decisions();
      best_from = from;
    }
    starts.push_back({s.recompute_cost(), s.decisions(), from});
  }

  // Each further start costs a full state (seconds at 10,000 nodes): none is begun past the deadline.
  // Measured: on a 100,000-node DAG the recompute-all start, begun 1 s before the deadline, ended 1.4 s past it.
  bool time_for_a_start() const { return Clock::now() + 3 * state_cost < deadline; }

  // Step 1 and the first starts: the keep-all state (the plan itself when it fits), the eviction
  // sweep's plan, the keep-all start repaired, while the bound is solved beside them.
  std::optional<Plan> first_starts() {
    const auto state_begun = Clock::now();
    keep_all.emplace(dag, cap);
    state_cost = Clock::now() - state_begun;
    // finish() builds a state again and simulates its schedule: on the 20,000-node dense DAG (10 s)
    // the state took 1.1 s, and the solve ended at 14 s.
    deadline = std::min(deadline, std::max(run.end() - DagRematSolver::kFinishStates * state_cost,
                                           run.fraction(DagRematSolver::kFinishFloorShare).end()));
    if (keep_all->excess() == 0) {  // every node once: nothing is faster
      Plan plan;
      plan.status = PlanStatus::Optimal;
      plan.schedule = insert_frees(g, keep_all->ops());
      plan.has_schedule = true;
      plan.bound = one_run;
      plan.note = "keep-all fits the budget";
      return plan;
    }
    phase("keep-all state built");
    // The relaxation's CBC search runs in a child process: its thread here only waits, so the
    // keep-all start is repaired meanwhile. Measured: a 60-node DAG with a 2 s limit under a loaded
    // CI machine found no start at all when the repair waited for the bound (CBC was stopped at
    // 2.7 s, past the deadline, and the repair, a millisecond's work, never began).
    //
    // Its share of the limit, within what is left of the deadline: none where nothing is (a part of a
    // composition that starts past its end), so that no CBC search begins after the deadline.
    const double bound_seconds = std::min(DagRematSolver::kBoundShare * limit, run.left());
    WorkerPool pool;
    auto bound_job = pool.run([&] {
      if (bound_seconds <= 0) {
        dagremat::GapBound none;
        none.note = "no time was left for the gap relaxation";
        return none;
      }
      return dagremat::gap_bound(dag, cap, bound_seconds, opt.threads, opt.verbose);
    });
    // The first plan: the eviction sweep (evict_sweep.h), a fraction of a second where the repair can
    // take the whole limit (issue 23: a 2,000-node DAG of 10 edges per node at 90 %, none in 30 s).
    // The DTR pass after it: on the 5,000-node dense DAG at 85 % the pass took its 20 % of a 10 s limit
    // to get stuck, and the sweep then ran out of time.
    // With two threads or more the DTR pass runs beside the sweep, within the sweep's share, on the
    // threads the sweep leaves: after it, the pass had what the sweep left of its share, and on the
    // 20,000-node dense DAG at 80 % the guarded variant, which gets through there in about 2 s, was
    // cut at 10 s (the sweep ran out of its time).
    // The retention greedy (retention_greedy.h) first: on that thread too, before the pass, with two
    // threads or more (where it got nowhere, on the 20,000-node dense DAG at 80 %, it took seconds
    // that the sweep, which has a plan there, needs); first of all with one.
    std::future<void> dtr_job;
    if (opt.threads >= 2)
      dtr_job = pool.run([&] {
        retention_start();
        if (!retained_fits) ladder_start(DagRematSolver::kLadderShare);
        run_dtr_pass(until(DagRematSolver::kSweepShare), opt.threads - 1);
      });
    else {
      retention_start();
      if (!retained_fits) ladder_start(DagRematSolver::kLadderShare);
    }
    swept.emplace(*keep_all);
    swept_fits = dagremat::evict_sweep(*swept, until(DagRematSolver::kSweepShare), {}, &sweep_stats);
    phase(swept_fits ? fmt::format("eviction sweep with shared resumes fits ({:.3f} % recomputation)",
                                   100 * swept->recompute_cost() / one_run)
                     : "eviction sweep with shared resumes stuck");
    if (dtr_job.valid())
      dtr_job.get();
    else
      run_dtr_pass(from_now(DagRematSolver::kDtrShare), opt.threads);
    // Again without shared resumes (evict_sweep.h), within the same share: on smaller dense DAGs
    // they cost more or got stuck where the sweep without them fits (a 1,000-node one at 85 %: 21.7 %
    // against 9.4 %; at 80 % stuck against 832 %); the cheaper plan is the start.
    if (Clock::now() < until(DagRematSolver::kSweepShare)) {
      dagremat::KeepState alone(*keep_all);
      dagremat::SweepOptions no_sharing;
      no_sharing.shared_resumes = false;
      dagremat::SweepStats alone_stats;
      const bool alone_fits = dagremat::evict_sweep(alone, until(DagRematSolver::kSweepShare), no_sharing, &alone_stats);
      phase(alone_fits ? fmt::format("eviction sweep without them fits ({:.3f} % recomputation)",
                                     100 * alone.recompute_cost() / one_run)
                       : "eviction sweep without them stuck");
      if (alone_fits && (!swept_fits || alone.recompute_cost() < swept->recompute_cost())) {
        swept.emplace(std::move(alone));
        swept_fits = true;
        sweep_stats = alone_stats;
      }
    }
    if (swept_fits) dagremat::polish(*swept, deadline);
    swept->commit();
    phase(swept_fits ? "eviction sweep fits" : "eviction sweep stuck");
    // The pass's decisions are a start where the sweep is stuck, and where the pass's plan is cheaper
    // than the sweep's (the search can improve a keep/drop state, not the pass's own plan).
    if (!swept_fits || (dtr && dtr->recompute_cost < swept->recompute_cost())) dtr_projection_start();
    const bool laddered_fits = laddered.has_value();
    // Keep-all first (the better start on every public graph but resnet50). With the sweep's plan in
    // hand it gets a share of the limit, so that the search has time to improve whichever is better.
    const bool a_start_fits = swept_fits || from_dtr_fits || retained_fits || laddered_fits;
    repair_until = a_start_fits ? until(DagRematSolver::kRepairShare) : deadline;
    if (opt.threads >= 2 && a_start_fits) {
      // The search from the cheaper of those runs beside it, on the other threads, until the repair
      // ends: on the 2,000-node dense DAG at 85 % (30 s) the repair ran from 1.7 s to 24 s and fitted
      // nothing, and the search had the last 4.5 s.
      std::atomic<bool> repaired{false};
      auto job = pool.run([&] {
        repair_start(*keep_all, keep_all_fits, repair_until);
        repaired = true;
      });
      search_beside_repair(opt.threads - 1, &repaired);
      job.get();
    } else {
      repair_start(*keep_all, keep_all_fits, repair_until);
    }
    phase("keep-all start repaired");
    gb = bound_job.get();
    if (!gb.infeasible) return std::nullopt;
    Plan plan;
    plan.status = PlanStatus::Infeasible;
    plan.note = "proven infeasible: " + gb.note;
    return plan;
  }

  // The retention greedy's state (retention_greedy.h), repaired within its own share where it leaves
  // stages above the cap (on the 2,000-node dense DAG at 85 %: three, 11 kB above it).
  void retention_start() {
    const double coverage = dagremat::drop_coverage(*keep_all, DagRematSolver::kRetentionCoverageLevels);
    if (coverage < DagRematSolver::kRetentionMinCoverage) {
      phase(fmt::format("retention greedy not run: drops recomputing at most {} level(s) of inputs relieve at most {:.1f} % of the excess",
                        DagRematSolver::kRetentionCoverageLevels, 100 * coverage));
      return;
    }
    retained.emplace(*keep_all);
    dagremat::RetentionStats stats;
    // With two threads or more it has a thread of its own (the DTR pass's, which follows it): it may
    // run until the searches end. Cut at kRetentionShare there, the 20,000-node dense DAG at 80 % (10 s)
    // lost its only plan on a loaded CI machine (the greedy fitted at 5.6-6.9 s here, beside the sweep).
    const auto greedy_until = opt.threads >= 2 ? deadline : until(DagRematSolver::kRetentionShare);
    retained_fits = dagremat::retention_greedy(*retained, greedy_until, {}, &stats);
    phase(retained_fits ? fmt::format("retention greedy fits ({:.3f} % recomputation, {} drops, {} holds)",
                                      100 * retained->recompute_cost() / one_run, stats.drops, stats.holds)
                        : fmt::format("retention greedy leaves {} bytes above the cap (summed over the stages)",
                                      retained->excess()));
    if (!retained_fits) {  // above the cap (or cut by its share)
      repair_start(*retained, retained_fits, from_now(DagRematSolver::kRetentionRepairShare));
      phase(retained_fits ? fmt::format("retention greedy's state repaired ({:.3f} % recomputation)",
                                        100 * retained->recompute_cost() / one_run)
                          : "retention greedy's state not repaired");
    } else if (retained_fits) {
      dagremat::polish(*retained, until(DagRematSolver::kRetentionShare));
      retained->commit();
    }
  }

  // The budget ladder's state (budget_ladder.h), polished, where it reaches the cap by `share` of the
  // limit, where the retention greedy from keep-all does not fit: after it, on its thread, before the
  // DTR pass (the 5,000-node dense DAG at 80 %, none in 60 s before). With one thread it runs before
  // the sweeps too: after them (by kSweepShare) it had no time left at 10 s.
  int64_t ladder_lowest = -1, ladder_peak = 1;  // where it found no plan: its lowest rung that fitted
  void ladder_start(double share) {
    const auto end = until(share);
    if (Clock::now() >= end) return;
    const int64_t peak = *std::max_element(keep_all->stage_peaks().begin(), keep_all->stage_peaks().end());
    dagremat::LadderStats stats;
    std::optional<dagremat::KeepState> s = dagremat::budget_ladder(dag, cap, peak, end, {}, &stats);
    if (!s) {
      ladder_lowest = stats.lowest;
      ladder_peak = peak;
      phase(fmt::format("budget ladder: no plan ({} of {} rungs fitted, the lowest at {:.1f} % of the keep-all peak)",
                        stats.fitted, stats.rungs, stats.lowest < 0 ? 100.0 : 100.0 * static_cast<double>(stats.lowest) / static_cast<double>(peak)));
      return;
    }
    dagremat::polish(*s, end);
    s->commit();
    laddered.emplace(std::move(*s));
    phase(fmt::format("budget ladder fits ({:.3f} % recomputation, {} rungs)", 100 * laddered->recompute_cost() / one_run,
                      stats.rungs));
  }

  // The DTR pass (dtr_pass.h): milliseconds, and a checked plan wherever it gets through (on the
  // 2,000-node dense DAG at 90 %: 2.62 % recomputation in 0.02 s; stuck at 80 % and 70 %).
  // Its plan is returned where no keep/drop state fits or where it is faster than the best of them;
  // its decisions (dtr_decisions.h) are a start where the sweep gets stuck (dtr_projection_start).
  std::optional<dagremat::DtrResult> dtr;
  // Until `pass_until`, its variants on `workers` threads.
  void run_dtr_pass(Clock::time_point pass_until, int workers) {
    // A few variants (dtr_pass.h's measurements: each gets through where others get stuck), each
    // milliseconds on the public graphs; the cheapest plan is kept.
    using Cost = dagremat::DtrOptions::VictimCost;
    std::vector<dagremat::DtrOptions> variants;
    // Guarded cones first: on the dense DAGs and rl4-n1000 at 85-70 % it gets through where the
    // others get stuck (dtr_pass.h).
    variants.emplace_back().guard_cones = true;
    for (Cost cost : {Cost::Inputs, Cost::Cone})
      for (int tiers : {3, 2}) {
        dagremat::DtrOptions& o = variants.emplace_back();
        o.tiers = tiers;
        o.victim_cost = cost;
      }
    // On the solver's threads at once: on a 20,000-node dense DAG each pass takes about a second, and
    // one after the other they did not all fit in what the sweep left of a 10 s limit.
    std::vector<std::optional<dagremat::DtrResult>> passes(variants.size());
    std::vector<int> stuck(variants.size(), -1);
    WorkerPool::for_each(variants.size(), std::max(1, workers), [&](size_t i) {
      passes[i] = dagremat::dtr_pass(dag, cap, pass_until, variants[i], &stuck[i]);
    });
    for (size_t i = 0; i < variants.size(); ++i) {
      if (!passes[i]) dtr_stuck = std::max(dtr_stuck, stuck[i]);
      if (passes[i] && (!dtr || passes[i]->recompute_cost < dtr->recompute_cost)) dtr = std::move(passes[i]);
    }
    if (!dtr) {
      phase(dtr_stuck >= 0 ? fmt::format("DTR pass stuck (at stage {} at best)", dtr_stuck) : "DTR pass ran out of time");
      return;
    }
    std::vector<Op> ops;
    ops.reserve(dtr->positions.size());
    for (int p : dtr->positions) ops.push_back(Op::compute(dag.order[p]));
    Schedule schedule = insert_frees(g, ops);
    dtr_sim = simulate(g, schedule);
    if (dtr_sim.valid && dtr_sim.peak <= budget) dtr_schedule = std::move(schedule);
    phase(fmt::format("DTR pass: {} ({:.3f} % recomputation)",
                      dtr_schedule ? "valid" : (dtr_sim.valid ? "over the budget" : "invalid: " + dtr_sim.reason),
                      100 * dtr->recompute_cost / one_run));
  }

  // The search (improve) from the cheapest of the retention greedy's, the sweep's and the DTR pass's
  // starts on `workers` threads while the keep-all start is repaired (until `repaired`, at most
  // repair_until); its result is a start of its own (more_starts).
  std::optional<dagremat::KeepState> searched;
  std::vector<dagremat::SearchStats> searched_stats;
  void search_beside_repair(int workers, const std::atomic<bool>* repaired) {
    const dagremat::KeepState* from = nullptr;
    searched_from = "";
    auto cheaper = [&](const std::optional<dagremat::KeepState>& s, bool fits, const char* name) {
      if (fits && (!from || s->recompute_cost() < from->recompute_cost())) {
        from = &*s;
        searched_from = name;
      }
    };
    cheaper(retained, retained_fits, "the search beside the repair, from the retention greedy");
    cheaper(swept, swept_fits, "the search beside the repair, from the eviction sweep");
    cheaper(from_dtr, from_dtr_fits, "the search beside the repair, from the DTR pass");
    cheaper(laddered, laddered.has_value(), "the search beside the repair, from the budget ladder");
    auto [decisions, cost, stats] = search(from->decisions(), from->recompute_cost(), repair_until, workers, repaired, 1000);
    searched_stats = std::move(stats);
    if (cost >= from->recompute_cost()) {  // nothing new: no state (seconds at 20,000 nodes)
      phase(fmt::format("{}: no improvement", searched_from));
      return;
    }
    searched.emplace(dag, cap);
    searched->assign(decisions);
    phase(fmt::format("{}: {:.3f} % recomputation", searched_from, 100 * searched->recompute_cost() / one_run));
  }
  const char* searched_from = "";

  // The pass's decisions, repaired within their own share (a stuck repair must not take the
  // searches' time). Only where the sweep got stuck: the repair is slow on dense DAGs.
  // Both projections (dtr_decisions.h: the one that holds what the pass held through each stage,
  // and the one that also holds what it removed within a stage until that stage's end), repaired in
  // a race: the first that fits is the start, the other is stopped. The exact one fitted in 0.06 s on
  // the 2,000-node dense DAG at 85 %, where the held one did not fit in 3.4 s; on the 5,000-node one
  // at 90 % the held one fitted in 1.7 s, the exact one not in 3.6 s. With one thread, the exact one
  // has half of the share, the held one what is left.
  void dtr_projection_start() {
    // Each projection builds a state (1.2 s for the two on the 20,000-node dense DAG with one thread,
    // begun at the deadline: the solve ended at 10.5 s of 10).
    if (!dtr || !time_for_a_start()) return;
    std::optional<dagremat::KeepState> states[2];
    bool fits[2] = {false, false};
    std::atomic<bool> fitted{false};
    const auto end = std::max(Clock::now(), until(DagRematSolver::kDtrRepairShare));
    const auto half = Clock::now() + (end - Clock::now()) / 2;
    WorkerPool::for_each(2, std::max(1, opt.threads), [&](size_t i) {
      if (fitted) return;
      states[i].emplace(dag, cap);
      states[i]->assign(dagremat::dtr_decisions(dag, *dtr, i == 1));
      repair_start(*states[i], fits[i], opt.threads >= 2 || i == 1 ? end : half, &fitted);
      if (fits[i]) fitted = true;
    });
    const size_t pick = fits[1] && (!fits[0] || states[1]->recompute_cost() < states[0]->recompute_cost()) ? 1 : 0;
    if (!states[pick]) return;
    from_dtr.emplace(std::move(*states[pick]));
    from_dtr_fits = fits[pick];
    phase(from_dtr_fits ? fmt::format("DTR start repaired ({} projection)", pick == 0 ? "the exact" : "the held")
                        : "DTR start stuck");
  }

  // Starts: the sweep's, keep-all's and the relaxation's decisions, each repaired and polished.
  void more_starts() {
    std::optional<dagremat::KeepState> relaxed;
    bool relaxed_fits = false;
    if (!gb.keep.empty() && time_for_a_start()) {
      relaxed.emplace(dag, cap);
      auto decisions = relaxed->decisions();
      for (size_t gi = 0; gi < dag.gaps.size(); ++gi)
        if (!gb.keep[gi]) decisions[gi] = {dag.gaps[gi].lo, dag.gaps[gi].hi};
      relaxed->assign(decisions);
    }
    // The relaxation's start only while little of the time is gone (kRelaxedStartShare).
    if (relaxed && ((!keep_all_fits && !swept_fits) || run.elapsed() < DagRematSolver::kRelaxedStartShare * limit))
      repair_start(*relaxed, relaxed_fits, repair_until);
    if (retained) consider(*retained, retained_fits, "the retention greedy");
    consider(*swept, swept_fits, "the eviction sweep");
    consider(*keep_all, keep_all_fits, "keep-all");
    if (from_dtr) consider(*from_dtr, from_dtr_fits, "the DTR pass");
    if (laddered) consider(*laddered, true, "the budget ladder");
    if (searched) consider(*searched, searched->excess() == 0, searched_from);
    if (relaxed) consider(*relaxed, relaxed_fits, "the relaxation");
    if (best_keep.empty() && time_for_a_start()) recompute_all_start();
    if (best_keep.empty() && time_for_a_start()) annealing_start();
  }

  // Recompute-all: every value dropped between its reads, each stage recomputing what it needs
  // (Checkmate's recompute-heavy start); the polish then keeps back what fits. Measured: at 70 % on
  // rl1-n100 and rl2-n250 the repair from keep-all got stuck (no single change lowered the excess).
  void recompute_all_start() {
    dagremat::KeepState s(dag, cap);
    auto decisions = s.decisions();
    for (size_t gi = 0; gi < dag.gaps.size(); ++gi)
      if (!dag.gaps[gi].tail) decisions[gi] = {dag.gaps[gi].lo, dag.gaps[gi].hi};
    s.assign(decisions);
    bool ok = false;
    phase("recompute-all start");
    repair_start(s, ok, deadline);
    phase("recompute-all start repaired");
    consider(s, ok, "recompute-all");
  }

  // Every start got stuck (no single change lowers the excess: rl1-n100, rl2-n250 and rl4-n1000 at
  // 70 %). Annealing accepts moves that raise it, with the excess as a growing penalty: from the
  // keep-all repair's stuck state, for half the time left.
  void annealing_start() {
    dagremat::KeepState s(dag, cap);
    s.assign(keep_all->decisions());
    SplitMix64 rng{opt.seed * 7919 + 7};
    Decisions found;
    const auto half = Clock::now() + (deadline - Clock::now()) / 2;
    phase("annealing from the stuck repair");
    dagremat::anneal(s, half, rng, found, 0.0);
    phase("annealing done");
    if (found.empty()) return;
    s.assign(found);
    if (s.excess() == 0) consider(s, true, "annealing from the stuck repair");
  }

  // How the gap relaxation's bound was had, for the plan's note.
  const char* bound_how() const {
    if (!gb.bound) return "none proven";
    if (gb.dual) return "too large or too slow for CBC: the Lagrangian dual of its LP";
    return gb.optimal ? "solved" : "cut by its time limit";
  }

  // No keep/drop state fits but the DTR pass's plan does (checked by the simulator in run_dtr_pass).
  Plan dtr_only() const {
    Plan plan;
    plan.schedule = *dtr_schedule;
    plan.has_schedule = true;
    plan.status = PlanStatus::Feasible;
    if (gb.bound) plan.bound = std::min(dtr_sim.time, one_run + *gb.bound);
    plan.note = fmt::format("the DTR pass's own plan (no keep/drop start fits: the greedy repair from every start "
                            "found none); bound from the gap relaxation ({})",
                            bound_how());
    if (opt.verbose)
      std::cerr << fmt::format("dagremat: {} -> recomputation {:.3f} % in {:.2f} s\n", plan.note,
                               100 * (dtr_sim.time - one_run) / one_run, run.elapsed());
    return plan;
  }

  // No start fits: TimedOut, with the bound and why.
  // (greedy_evict_sequence is no fallback here: on a generated 5,000-node DAG it ran for minutes.)
  Plan no_start() const {
    Plan plan;
    plan.status = PlanStatus::TimedOut;
    plan.bound = gb.bound ? std::optional<double>(one_run + *gb.bound) : std::nullopt;
    const std::string sweep =
        sweep_stats.stuck_stage >= 0
            ? fmt::format("the eviction sweep got stuck at stage {} of {}", sweep_stats.stuck_stage, dag.n)
            : fmt::format("the eviction sweep ran out of its {:.0f} % of the time after {} evictions",
                          100 * DagRematSolver::kSweepShare, sweep_stats.evictions);
    const std::string pass = dtr_stuck >= 0 ? fmt::format("the DTR pass got stuck (at stage {} at best)", dtr_stuck)
                                            : std::string("the DTR pass ran out of its time");
    plan.note = fmt::format("no start fits the budget after {:.1f} s ({}; {}; the greedy repair from every start and "
                            "annealing from its state found none); a longer --time-limit may find a plan",
                            run.elapsed(), sweep, pass);
    // The ladder's lowest rung that fitted: the lowest budget this search reached, for the user.
    if (ladder_lowest >= 0)
      plan.note += fmt::format("; the budget ladder reached a plan at a budget of {} bytes ({:.1f} % of the keep-all "
                               "peak) and none below it in this run",
                               ladder_lowest + dag.sources,
                               100.0 * static_cast<double>(ladder_lowest + dag.sources) /
                                   static_cast<double>(ladder_peak + dag.sources));
    // Where the budget holds the recursive pebbling of every node, a plan exists: the search fell short.
    if (const dagremat::PebblingBound pb = dagremat::recursive_pebbling_bound(dag); pb.bytes <= cap)
      plan.note += fmt::format(
          "; one exists within this budget: recomputing each node's cone from nothing, one input at a time, needs at "
          "most {} bytes ({:.1f} % of the budget's), with recomputations that grow exponentially with the graph's "
          "depth (pebbling_bound.h); none that recomputes little was found",
          pb.bytes, 100.0 * static_cast<double>(pb.bytes) / static_cast<double>(std::max<int64_t>(1, cap)));
    return plan;
  }

  // One search per worker from `start` until `end` (or `stop`), each with its own seed (`seed_base`
  // + worker); the cheapest result, its cost and every worker's statistics.
  std::tuple<Decisions, double, std::vector<dagremat::SearchStats>> search(const Decisions& start, double start_cost,
                                                                            Clock::time_point end, int workers,
                                                                            const std::atomic<bool>* stop,
                                                                            uint64_t seed_base) const {
    const double target = gb.bound ? *gb.bound : 0.0;  // no plan can recompute less
    // Each worker first builds a state from `start` (about state_cost, and as much again to assign
    // it): none where that would end past `end` (at 20,000 nodes the search beside the repair,
    // begun 0.7 s before its end, ended 2.2 s past it).
    if (Clock::now() + 2 * state_cost >= end) return {start, start_cost, {}};
    std::vector<Decisions> results(workers);
    std::vector<double> costs(workers, start_cost);
    std::vector<dagremat::SearchStats> stats(workers);
    WorkerPool::for_each(static_cast<size_t>(workers), workers, [&](size_t i) {
      const int w = static_cast<int>(i);
      dagremat::KeepState s(dag, cap);
      s.assign(start);
      SplitMix64 rng{opt.seed * 7919 + seed_base + static_cast<uint64_t>(w) + 1};
      // Ruin and recreate on every thread but the third of three and more, which anneals.
      // measured: bench/results/time_shares.md#dagremat-search-mix
      using Search = SolveOptions::DagRematSearch;
      const bool annealing =
          opt.dagremat_search == Search::Mixed ? w % 3 == 2 : opt.dagremat_search == Search::Annealing;
      if (annealing) {
        auto found = start;
        stats[w] = dagremat::anneal(s, end, rng, found, target);
        s.assign(found);
      } else {
        stats[w] = dagremat::improve(s, end, rng, DagRematSolver::kPatience, target, stop);
      }
      results[w] = s.decisions();
      costs[w] = s.recompute_cost();
    });
    const int bw = static_cast<int>(std::min_element(costs.begin(), costs.end()) - costs.begin());
    return {costs[bw] < start_cost ? results[bw] : start, std::min(costs[bw], start_cost), std::move(stats)};
  }

  // Step 2's improvement: one search per thread from the best start until the deadline; where the
  // searches end before it (runs without progress), from the next start in cost order, and so on,
  // each with the same seeds, so that a further start never ends worse than alone: a cheaper start
  // can lead to a dearer local optimum (rl1-n100 at 70 %, 30 s: from the retention greedy's 8.04 %
  // the search stops at 7.23 % in 7 s, from keep-all's 8.29 % it finds 6.72 %).
  // Returns the search statistics of every thread (with those of the search beside the repair).
  std::vector<dagremat::SearchStats> improve() {
    // In cost order, the first is the best start (consider() keeps the first of the least cost).
    std::stable_sort(starts.begin(), starts.end(), [](const Start& a, const Start& b) { return a.cost < b.cost; });
    std::vector<dagremat::SearchStats> all;
    for (size_t k = 0; k < starts.size(); ++k) {
      const Start& st = starts[k];
      if (k > 0 && Clock::now() + 2 * state_cost >= deadline) break;
      const auto same = [&](const Start& other) { return other.decisions == st.decisions; };
      if (std::any_of(starts.begin(), starts.begin() + static_cast<long>(k), same)) continue;
      auto [decisions, cost, stats] = search(st.decisions, st.cost, deadline, std::max(1, opt.threads), nullptr, 0);
      all.insert(all.end(), stats.begin(), stats.end());
      if (cost < best_cost) {
        best_cost = cost;
        best_keep = std::move(decisions);
        best_from = st.from;
      }
    }
    all.insert(all.end(), searched_stats.begin(), searched_stats.end());
    return all;
  }

  // Step 3: the best decisions as a checked plan, its bound, its status and a note on the gap.
  Plan finish(const std::vector<dagremat::SearchStats>& stats) const {
    dagremat::KeepState final_state(dag, cap);
    final_state.assign(best_keep);
    HM_ASSERT(final_state.excess() == 0, "dagremat: the chosen decisions exceed the budget");
    Plan plan;
    plan.schedule = insert_frees(g, final_state.ops());
    SimResult sim = simulate(g, plan.schedule);
    if (!sim.valid || sim.peak > budget)
      throw SolverFailure(fmt::format("dagremat: the plan was rejected by the simulator ({}); this is a bug",
                                      sim.valid ? fmt::format("peak {} > budget {}", sim.peak, budget) : sim.reason));
    plan.has_schedule = true;
    std::string from = best_from;
    if (dtr_schedule && dtr_sim.time < sim.time) {  // the pass's own plan (checked in run_dtr_pass) is faster
      plan.schedule = *dtr_schedule;
      sim = dtr_sim;
      from = "the DTR pass's own plan";
    }
    long rounds = 0, accepted = 0;
    for (const auto& st : stats) {
      rounds += st.rounds;
      accepted += st.accepted;
    }
    if (gb.bound) plan.bound = std::min(sim.time, one_run + *gb.bound);
    const bool meets = plan.bound && sim.time - *plan.bound <= 1e-9 * std::max(1.0, std::abs(sim.time));
    plan.status = meets ? PlanStatus::Optimal : PlanStatus::Feasible;
    plan.note = fmt::format("best start: {}; {} search rounds, {} improvements; bound from the gap relaxation ({})",
                            from, rounds, accepted,
                            bound_how());
    if (plan.bound && from == best_from && sim.time - *plan.bound > DagRematSolver::kLooseGap * sim.time)
      plan.note += loose_gap_note(final_state);
    if (opt.verbose)
      std::cerr << fmt::format("dagremat: {} -> recomputation {:.3f} % in {:.2f} s\n", plan.note,
                               100 * (sim.time - one_run) / one_run, run.elapsed());
    return plan;
  }

  // Why the gap is large: the relaxation charges a dropped value its own time only. What the plan
  // recomputes beyond that is inputs that were not resident (recursively: cones).
  std::string loose_gap_note(const dagremat::KeepState& final_state) const {
    double direct = 0;
    for (size_t gi = 0; gi < dag.gaps.size(); ++gi)
      if (!dag.gaps[gi].tail && !final_state.kept(static_cast<int>(gi))) direct += dag.cost[dag.gaps[gi].value];
    const double cones = std::max(0.0, final_state.recompute_cost() - direct);
    return fmt::format(
        "; the gap is large because the relaxation drops the constraint that a recomputation's inputs be resident "
        "(it charges a dropped value its own time): {:.1f} % of this plan's recomputation is inputs recomputed for "
        "other recomputations",
        100 * cones / std::max(1e-300, final_state.recompute_cost()));
  }
};

}  // namespace

Plan DagRematSolver::solve(const Graph& g, int64_t budget, const SolveOptions& opt) const {
  DagRematRun r(g, budget, opt);
  if (opt.verbose) r.phase(fmt::format("stage DAG of {} values, {} gaps", r.dag.n, r.dag.gaps.size()));
  if (auto settled = r.first_starts()) return std::move(*settled);
  r.more_starts();
  if (r.best_keep.empty()) return r.dtr_schedule ? r.dtr_only() : r.no_start();
  return r.finish(r.improve());
}

}  // namespace hiremate
