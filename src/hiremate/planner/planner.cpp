#include "hiremate/planner/planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <future>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "hiremate/common/error.h"
#include "hiremate/common/worker_pool.h"
#include "hiremate/planner/grid.h"
#include "hiremate/planner/persistent_options.h"
#include "hiremate/planner/portfolio.h"
#include "hiremate/planner/twremat_options.h"
#include "hiremate/partition/translate.h"
#include "hiremate/schedule/lower_bound.h"
#include "hiremate/schedule/budget.h"
#include "hiremate/schedule/min_budget.h"
#include "hiremate/solvers/min_budget.h"
#include "hiremate/solvers/checkmate/model_size.h"
#include "hiremate/hierarchy/cluster_problem.h"
#include "hiremate/hierarchy/hgraph.h"
#include "hiremate/hierarchy/hilp_model.h"
#include "hiremate/hierarchy/menu.h"
#include "hiremate/hierarchy/option.h"
#include "hiremate/hierarchy/restriction.h"
#include "hiremate/hierarchy/rotor.h"
#include "hiremate/hierarchy/save_front.h"
#include "hiremate/solvers/twremat/twremat.h"

namespace hiremate::planner {

namespace {

constexpr size_t kRotorAtTopMaxBlocks = 300;
constexpr double kHilpVariablesPerSecond = 1e6;
constexpr int kEveryOption = 1 << 30;  // a total_options that gives every sub-cluster all its options

using hierarchy::FastForward;
using hierarchy::Option;
using Clock = Deadline::Clock;

// Seconds since t0, for the report (the limits are Deadlines).
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// A representative's options and fast forward, in the ids of the graph being planned.
struct HostMenu {
  std::vector<Option> options;
  FastForward ff;
};

// The options that fit `budget`, at most `quota` of them (menu.h's select_options: the extremes,
// then points below the (mem, time) hull and farthest-point sampling on mem in turn).
std::vector<Option> select(const std::vector<Option>& menu, int64_t budget, size_t quota) {
  std::vector<Option> fit;
  for (const Option& o : menu)
    if (o.mem <= budget) fit.push_back(o);
  return hierarchy::select_options(std::move(fit), quota);
}

// A top model's plan as the start of the next one over the same partitioning (HilpOptions::start).
struct TopStart {
  std::shared_ptr<const hierarchy::HilpSolution> solution;
  double time = 0;  // the model's time of it (HilpResult::model_time)
};

struct Planner {
  const Graph& g;
  const SolveOptions& opt;
  const PlannerOptions& popt;
  const PortfolioOptions& portfolio = popt.portfolio;
  const Deadline run_deadline = deadline_of(opt);  // the caller's: the whole run
  // What the planner plans with: the run's less a margin for the last checks and the caller's own
  // work (the CLI's wall time, graph loading included).
  const Deadline planned = run_deadline.fraction(portfolio.limit_margin);
  std::optional<ScheduleBound> every_plans_bound;  // valid for every schedule (lower_bound.h), set first
  partition::ClusterTree tree;
  PlannerReport rep;
  std::optional<Plan> twremat_plan;  // TW-Remat on the whole graph, solved before the levels
  std::future<Plan> twremat_beside;   // or, where that was cut, beside them for the whole limit
  // The whole-graph plan restricted to every cluster solved (PlannerOptions::twremat_restrictions_share).
  std::optional<Schedule> restricted;
  std::unordered_map<int, HostMenu> menus;  // representative -> menu in g's ids
  // Representatives of one height are solved by parallel workers: menus and the report are shared.
  mutable std::mutex mu;
  int hilp_threads = 1;                  // CBC threads per H-ILP solve
  int threads = 1;                       // threads for the hierarchy (the levels' workers, the top's MILPs)
  // The flat MILP from scratch, beside the hierarchy (see plan()); offered at the top.
  std::future<Plan> flat_alone;
  // With one thread, the flat MILP's probe (flat_probe): its plan, and whether it found none faster
  // than TW-Remat's (then the hierarchy gets the time hilp alone would).
  std::optional<Plan> flat_probe;
  bool flat_probe_lost = false;
  // With two threads or more, the verdict of the probe that the flat MILP's thread runs first
  // (flat_beside), written by that thread: 0 none yet, 1 won, 2 lost (its thread went back).
  std::atomic<int> beside_probe{0};
  WorkerPool pool;  // the flat MILP's thread; the levels' workers are WorkerPool::for_each's

  Planner(const Graph& graph, const SolveOptions& o, const PlannerOptions& p) : g(graph), opt(o), popt(p) {
    partition::PartitionOptions po;
    po.partitioners = popt.partitioners;
    const auto t0 = Clock::now();
    tree = partition::partition(g, po);
    rep.partition_seconds = since(t0);
    rep.clusters = tree.clusters.size();
  }

  // The flat MILP runs at the top (small graphs), and with half of the top's time when the limit is
  // long enough for it to improve the hierarchy's plan (measured: bench/results/time_shares.md#planner-flat-milp).
  bool flat_applies() const {
    return popt.flat_checkmate_max_nodes > 0 && g.compute.size() <= popt.flat_checkmate_max_nodes;
  }
  bool flat_gets_time() const {
    return flat_applies() && opt.time_limit >= portfolio.flat_min_limit && !flat_probe_lost;
  }

  // What is left of the limit, less the margin.
  double left() const { return planned.left(); }

  // The hierarchy's threads now: its own, and those of the runs beside it (TW-Remat, the flat MILP)
  // that have ended: a component that finishes early gives its thread to the hierarchy (issue 21).
  int threads_now() const {
    auto ended = [](const std::future<Plan>& f) {
      return f.valid() && f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    };
    return threads + (ended(twremat_beside) ? 1 : 0) + (ended(flat_alone) ? 1 : 0);
  }

  HostMenu menu_of(int c) const {
    int r = tree.representative_of(c);
    HostMenu m;
    {
      std::lock_guard<std::mutex> lock(mu);
      m = menus.at(r);
    }
    if (r == c) return m;
    partition::Translator tr(tree, r, c);
    HostMenu out;
    auto fc = [&](NodeId x) { return tr.compute(x); };
    auto fd = [&](NodeId x) { return tr.data(x); };
    for (const Option& o : m.options) out.options.push_back(hierarchy::remap(o, fc, fd));
    out.ff = hierarchy::remap(m.ff, fc);
    return out;
  }

  // The parts of a partitioning, in the host's ids (fc, fd map g's ids there), each
  // sub-cluster offering the options that fit `budget` within its quota.
  std::vector<hierarchy::HPart> parts(const partition::Partitioning& p, const hierarchy::IdMap& fc,
                                 const hierarchy::IdMap& fd, int64_t budget, int total_options = 0) const {
    if (total_options <= 0) total_options = popt.total_options;
    size_t sub_units = 0;
    for (const auto& part : p.parts)
      if (!part.leaf()) sub_units += tree.cluster(part.cluster).size();
    std::vector<hierarchy::HPart> out;
    for (const auto& part : p.parts) {
      hierarchy::HPart hp;
      if (part.leaf()) {
        hp.unit = fc(part.node);
      } else {
        const auto& sc = tree.cluster(part.cluster);
        HostMenu m = menu_of(part.cluster);
        size_t quota = hierarchy::option_quota(sc.size(), sub_units, static_cast<size_t>(total_options));
        hp.name = fmt::format("cluster {} ({} units)", part.cluster, sc.size());
        for (const Option& o : select(m.options, budget, quota)) hp.options.push_back(hierarchy::remap(o, fc, fd));
        if (hp.options.empty())  // nothing fits: the leanest one, for the ILP to refuse
          hp.options.push_back(hierarchy::remap(m.options.back(), fc, fd));
        hp.ff = hierarchy::remap(m.ff, fc);
        hp.interface = hierarchy::remap(sc.interface, fd);
      }
      out.push_back(std::move(hp));
    }
    return out;
  }

  // The partitionings to solve a cluster with: its own, or the flat one when it has none.
  std::vector<partition::Partitioning> partitionings(int c) const {
    const auto& cl = tree.cluster(c);
    if (!cl.partitionings.empty()) return cl.partitionings;
    return {flat_partitioning(c)};
  }

  // Every unit of cluster c a part of its own.
  partition::Partitioning flat_partitioning(int c) const {
    partition::Partitioning flat;
    flat.partitioner = "flat";
    for (NodeId u : tree.cluster(c).nodes) flat.parts.push_back({u, -1});
    return flat;
  }

  hierarchy::HilpResult run(const hierarchy::HGraph& hg, int64_t budget, std::optional<int64_t> save, double limit,
                            ClusterReport& cr, int cbc_threads = 0,
                            std::shared_ptr<const hierarchy::HilpSolution> start = nullptr, double neighbourhood_share = 0) {
    // A model that would take longer to build than the solve may last is not built
    // (measured: bench/results/time_shares.md#planner-hilp-build-speed).
    // Nor one past checkmate's memory cap (about 1 KiB per variable between the model and CBC).
    const double estimate = estimated_build_seconds(hg);
    const double variables = estimate * kHilpVariablesPerSecond;
    if (estimate > limit || variables > static_cast<double>(checkmate::kMaxVariables)) {
      hierarchy::HilpResult skipped;
      skipped.status = PlanStatus::TimedOut;
      skipped.note = variables > static_cast<double>(checkmate::kMaxVariables)
                         ? fmt::format("not built: its model would have about {:.0f} thousand variables, over the cap "
                                       "of {}", variables / 1e3, checkmate::kMaxVariables)
                         : fmt::format("not built: its model (about {:.0f} thousand variables) would take about {:.1f} s "
                                       "to build, with {:.1f} s left", variables / 1e3, estimate, limit);
      if (opt.verbose) std::cerr << fmt::format("planner: H-ILP of {} HCNs {}\n", hg.nodes.size(), skipped.note);
      std::lock_guard<std::mutex> lock(mu);
      ++rep.hilp_solves;
      ++cr.solves;
      ++cr.timed_out;
      return skipped;
    }
    hierarchy::HilpOptions ho;
    ho.time_limit = limit;
    ho.threads = cbc_threads > 0 ? cbc_threads : hilp_threads;
    ho.verbose = opt.verbose;
    ho.save_budget = save;
    ho.start = std::move(start);
    ho.neighbourhood_share = neighbourhood_share;
    // A CBC that ignores its limit is killed before the caller's limit (PortfolioOptions::hard_stop_share).
    ho.grace_seconds = std::max(0.05, portfolio.hard_stop_share * opt.time_limit - run_deadline.elapsed() - limit);
    hierarchy::HilpResult r = hierarchy::solve_hilp(hg, budget, ho);
    {
      std::lock_guard<std::mutex> lock(mu);
      ++rep.hilp_solves;
      rep.rejected += r.rejected;
    }
    ++cr.solves;
    cr.optimal += r.status == PlanStatus::Optimal;
    cr.timed_out += r.status == PlanStatus::TimedOut;
    cr.infeasible += r.status == PlanStatus::Infeasible;
    cr.max_vars = std::max(cr.max_vars, r.vars);
    cr.max_rows = std::max(cr.max_rows, r.rows);
    return r;
  }

  // The H-ILP's model is built before CBC's limit starts and is not cut by it: about one variable per
  // (stage, choice of an HCN) pair (R[t,k,c] for earlier k, with S, FREE and U alongside; estimated
  // 21,018 where the model had 19,264, 2,790 for 2,348).
  static double estimated_build_seconds(const hierarchy::HGraph& hg) {
    double choices = 0;
    for (const auto& n : hg.nodes) choices += static_cast<double>(n.choices.size());
    return static_cast<double>(hg.nodes.size()) * choices / kHilpVariablesPerSecond;
  }

  // Position i (1..peak_points) of the peak grid strictly between lb and ub.
  int64_t grid_peak(int64_t lb, int64_t ub, int i) const { return ub - (ub - lb) * i / (popt.peak_points + 1); }

  // TW-Remat's plans of the cluster graph on the peak grid, as options (twremat_options.h), then
  // their save axes within PlannerOptions::twremat_save_share of the cluster's time, so that on
  // large clusters they leave the H-ILP's own grid its time.
  template <class Left>
  void add_twremat_options(const hierarchy::ClusterProblem& cg, int64_t lb, int64_t ub, const Left& budget_left,
                           std::vector<Option>& opts) const {
    std::vector<std::pair<int64_t, size_t>> plain;  // (peak, index in opts)
    for (int i = 1; i <= popt.peak_points; ++i) {
      const int64_t peak = grid_peak(lb, ub, i);
      if (auto o = twremat_option(cg, cg.graph, peak, popt.cheap_solver_time_limit, budget_left)) {
        plain.emplace_back(peak, opts.size());
        opts.push_back(std::move(*o));
      }
    }
    const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(popt.twremat_save_share * budget_left()));
    auto left = [&] { return std::min(budget_left(), std::chrono::duration<double>(until - Clock::now()).count()); };
    const size_t lowest = std::min(plain.size(), static_cast<size_t>(std::max(0, popt.twremat_save_peaks)));
    for (size_t j = plain.size() - lowest; j < plain.size(); ++j) {
      const Option base = opts[plain[j].second];
      for (Option& o : twremat_save_options(cg, base, plain[j].first, popt.twremat_save_points,
                                            popt.cheap_solver_time_limit, left))
        opts.push_back(std::move(o));
    }
  }

  // The save axis at one peak budget (PlannerOptions::save_bisection): the plan without a save
  // budget, then save budgets between the interface and its bytes at the loss in bisection order, so
  // that a cluster whose time runs out has options spread down to its lowest saves (a decoder
  // layer's three solves had reached 151 of its 440 MB, and the top recomputed four whole layers).
  // None below a save budget CBC proved infeasible, none where an option already lies. Returns the
  // status of the solve without a save budget (TimedOut where there was no time for it).
  template <class Left>
  PlanStatus save_sweep(const hierarchy::HGraph& hg, int64_t peak, int64_t iface, const Left& budget_left,
                        const hierarchy::ClusterProblem& cg, ClusterReport& cr, std::vector<Option>& opts) {
    double limit = std::min(popt.level_time_limit, budget_left());
    if (limit <= 0.2) return PlanStatus::TimedOut;
    hierarchy::HilpResult r = run(hg, peak, std::nullopt, limit, cr);
    if (!r.has_schedule) return r.status;
    const PlanStatus first = r.status;
    opts.push_back(hierarchy::make_option(cg, r.schedule, "hilp", peak));
    const int64_t most = r.sim.bytes_at_loss;
    std::vector<int64_t> found{most};
    std::optional<int64_t> infeasible_at;
    const int points = popt.max_saves - 1;
    const int64_t tolerance = std::max<int64_t>(1, (most - iface) / (2 * (points + 1)));
    for (const int64_t save : save_budgets(iface, most, points)) {
      limit = std::min(popt.level_time_limit, budget_left());
      if (limit <= 0.2) return first;
      if (infeasible_at && save <= *infeasible_at) continue;
      if (std::any_of(found.begin(), found.end(), [&](int64_t f) { return f <= save && f > save - tolerance; }))
        continue;
      r = run(hg, peak, save, limit, cr);
      if (!r.has_schedule) {
        if (r.status == PlanStatus::Infeasible) infeasible_at = std::max(infeasible_at.value_or(save), save);
        continue;
      }
      opts.push_back(hierarchy::make_option(cg, r.schedule, "hilp", peak));
      found.push_back(r.sim.bytes_at_loss);
    }
    return first;
  }

  // Solves representative c within `share` seconds (and the levels' deadline).
  void solve_cluster(int c, double share, const Deadline& levels) {
    const auto t0 = Clock::now();
    const Deadline deadline = levels.within(share);
    const auto& cl = tree.cluster(c);
    hierarchy::ClusterProblem cg = hierarchy::extract(g, cl);
    ClusterReport cr;
    cr.cluster = c;
    cr.units = cl.size();
    cr.level = cl.level;
    std::vector<Option> opts{hierarchy::autograd_option(cg), hierarchy::recompute_all_option(cg)};
    const int64_t ub = opts[0].peak;
    const int64_t lb = std::min(ub, min_budget(cg.graph));
    int64_t iface = cg.graph.source_bytes();
    for (NodeId d : cg.interface.output_data) iface += cg.graph.data[d].bytes;
    auto fc = [&](NodeId x) { return cg.compute_of(x); };
    auto fd = [&](NodeId x) { return cg.data_of(x); };
    auto budget_left = [&] { return deadline.left(); };
    if (popt.twremat_options) add_twremat_options(cg, lb, ub, budget_left, opts);
    // A schedule of the cluster graph as an option; one the simulator refuses is a bug, counted and
    // never offered.
    auto add_checked = [&](const Schedule& s, const char* solver, const char* what) {
      try {
        opts.push_back(hierarchy::make_option(cg, s, solver));
      } catch (const BadInput& e) {
        if (opt.verbose) std::cerr << "planner: " << what << " was refused: " << e.what() << "\n";
        std::lock_guard<std::mutex> lock(mu);
        ++rep.rejected;
      }
    };
    if (restricted) {
      if (auto s = hierarchy::restrict_schedule(cg, *restricted))
        add_checked(*s, "twremat (whole graph)", "a restricted whole-graph option");
      for (const Schedule& s : hierarchy::restricted_copies(tree, cg, c, *restricted, popt.restricted_copies))
        add_checked(s, "twremat (whole graph)", "a copy's restricted whole-graph option");
    }
    const int save_points = cl.size() >= popt.save_front_large_units ? popt.save_front_points_large : popt.save_front_points;
    for (const Schedule& s : hierarchy::save_front(cg.graph, save_points)) add_checked(s, "save_front", "a save-front option");
    const auto cluster_parts = partitionings(c);
    if (popt.persistent_save_points > 0) {
      // Within persistent_share of the cluster's time: the H-ILP's own solves keep theirs.
      const auto t_persistent = Clock::now();
      const Deadline mine = deadline.share(popt.persistent_share);
      auto left = [&] { return mine.left(); };
      size_t before = opts.size();
      for (const auto& p : cluster_parts)
        for (int i : coverage_order(popt.peak_points)) {
          if (mine.expired()) break;
          const int64_t peak = grid_peak(lb, ub, i);
          hierarchy::HGraph hg = hierarchy::build_hgraph(cg.graph, parts(p, fc, fd, peak));
          for (Option& o : persistent_save_options(cg, hg, peak, iface, popt.persistent_save_points,
                                                   popt.persistent_seconds, left))
            opts.push_back(std::move(o));
        }
      if (opt.verbose)
        std::cerr << fmt::format("planner: cluster {}: {} persistent options in {:.3f} s\n", c, opts.size() - before,
                                 since(t_persistent));
    }
    for (const auto& p : cluster_parts) {
      ++cr.partitionings;
      // Budgets CBC proved infeasible: no point at least as tight is solved. Its menus keep only the
      // options that fit, so it is infeasible too unless the quota (select) let in an option it had
      // left out: a rare loss, against solves that find nothing (an 801-node random training graph at
      // 45 %: 340 of level 2's 384 solves were infeasible). Without a save budget this always applies,
      // with one under reuse_grid_decisions.
      std::vector<Budget> infeasible;
      // Optimal solves (their grid point's budgets, their plan's own peak and bytes at the loss): a
      // point at least as tight whose budgets the plan fits has that plan as its optimum too
      // (reuse_grid_decisions).
      std::vector<std::pair<Budget, Budget>> optimal;
      auto looser = [](const Budget& a, const Budget& b) {  // whether a is at least as loose as b
        return b.peak <= a.peak && (!a.at_loss || (b.at_loss && *b.at_loss <= *a.at_loss));
      };
      auto proven_infeasible = [&](const Budget& b) {
        return std::any_of(infeasible.begin(), infeasible.end(), [&](const Budget& x) { return looser(x, b); });
      };
      for (int i : coverage_order(popt.peak_points)) {
        int64_t peak = grid_peak(lb, ub, i);
        if (proven_infeasible(Budget{peak, std::nullopt})) continue;
        hierarchy::HGraph hg = hierarchy::build_hgraph(cg.graph, parts(p, fc, fd, peak));
        if (popt.save_bisection) {
          if (save_sweep(hg, peak, iface, budget_left, cg, cr, opts) == PlanStatus::Infeasible)
            infeasible.push_back(Budget{peak, std::nullopt});
          continue;
        }
        const int64_t step = std::max<int64_t>(1, (peak - iface) / (2 * popt.save_points));
        std::optional<int64_t> save;
        for (int j = 0; j < popt.max_saves; ++j) {
          double limit = std::min(popt.level_time_limit, budget_left());
          if (limit <= 0.2 || (save && *save < iface)) break;
          const Budget here{peak, save};
          if (popt.reuse_grid_decisions) {
            if (proven_infeasible(here)) {
              ++cr.reused;
              break;
            }
            auto same = std::find_if(optimal.begin(), optimal.end(), [&](const auto& o) {
              return looser(o.first, here) && here.admits(o.second.peak, *o.second.at_loss);
            });
            if (same != optimal.end()) {
              ++cr.reused;
              save = *same->second.at_loss - step;
              continue;
            }
          }
          hierarchy::HilpResult r = run(hg, peak, save, limit, cr);
          if (!r.has_schedule) {
            if (r.status == PlanStatus::Infeasible && (!save || popt.reuse_grid_decisions)) infeasible.push_back(here);
            break;
          }
          opts.push_back(hierarchy::make_option(cg, r.schedule, "hilp", peak));
          save = r.sim.bytes_at_loss - step;
          if (r.status == PlanStatus::Optimal && popt.reuse_grid_decisions)
            optimal.emplace_back(here, Budget{r.sim.peak, r.sim.bytes_at_loss});
        }
      }
    }
    HostMenu m;
    m.options = hierarchy::prune_options(std::move(opts));
    m.ff = hierarchy::fast_forward(cg);
    cr.options = static_cast<int>(m.options.size());
    cr.seconds = since(t0);
    if (opt.verbose)
      std::cerr << fmt::format("planner: cluster {} ({} units, level {}): {} H-ILP solves ({} optimal, {} timed out, "
                               "{} infeasible; largest {} vars, {} rows; {} grid points decided by an earlier solve), {} "
                               "options, {:.2f} s\n",
                               c, cr.units, cr.level, cr.solves, cr.optimal, cr.timed_out, cr.infeasible, cr.max_vars,
                               cr.max_rows, cr.reused, cr.options, cr.seconds);
    std::lock_guard<std::mutex> lock(mu);
    rep.solved.push_back(cr);
    menus[c] = std::move(m);
  }

  // A chain block's options for Rotor at the top: the baselines, and the menu of the tree's cluster
  // with the block's units where the levels solved one (in g's ids, as make_chain expects).
  std::vector<Option> block_menu(const hierarchy::ClusterProblem& cg) const {
    std::vector<Option> out{hierarchy::autograd_option(cg), hierarchy::recompute_all_option(cg)};
    std::vector<NodeId> units;
    for (size_t i = 0; i < cg.graph.compute.size(); ++i)
      if (cg.graph.compute[i].kind == ComputeKind::Forward) units.push_back(cg.compute_to_parent[i]);
    std::sort(units.begin(), units.end());
    for (const auto& c : tree.clusters) {
      if (c.id == tree.root || c.nodes.size() != units.size()) continue;
      std::vector<NodeId> mine = c.nodes;
      std::sort(mine.begin(), mine.end());
      if (mine != units) continue;
      bool solved = false;
      {
        std::lock_guard<std::mutex> lock(mu);
        solved = menus.count(tree.representative_of(c.id)) > 0;
      }
      if (!solved) break;
      for (Option& o : menu_of(c.id).options) out.push_back(std::move(o));
      break;
    }
    return out;
  }

  // The top level's race: every plan offered is simulated, and the fastest that fits the budget
  // wins; what did not fit, or found nothing, is said in the notes.
  struct Race {
    Plan best;
    double best_time = 0;
    // The best lower bound known, whichever plan wins: the loss-point or chain bound (valid for
    // every schedule), or the flat MILP's where it proved more (checkmate reports its model's bound
    // only where the graph has a single topological order, so that it holds for every schedule).
    std::optional<double> lower;
    std::optional<ScheduleBound> schedule_bound;
    std::vector<std::string> notes;
    std::optional<std::string> proof;  // the flat MILP's proof that nothing fits, where it gave one
  };

  void offer(Race& race, int64_t budget, Schedule s, const std::string& who, std::optional<double> bound) {
    SimResult r = simulate(g, s);
    if (opt.verbose)
      std::cerr << fmt::format("planner: top: {} offers {} ({:.2f} s into the run)\n", who,
                               r.valid ? fmt::format("time {}, peak {}", r.time, r.peak) : "an invalid plan",
                               run_deadline.elapsed());
    bool fits = opt.budget(budget).admits(r);
    Plan& best = race.best;
    if (!fits) {
      if (r.valid && r.peak > budget && (!best.lowest_peak || r.peak < *best.lowest_peak)) best.lowest_peak = r.peak;
      race.notes.push_back(who + (!r.valid ? ": rejected by the simulator (" + r.reason + ")"
                                  : r.peak > budget ? fmt::format(": over budget (peak {})", r.peak)
                                                    : fmt::format(": over the save budget ({} at the loss)", r.bytes_at_loss)));
      if (!r.valid) ++rep.rejected;
      return;
    }
    if (bound) race.lower = std::max(race.lower.value_or(*bound), *bound);
    if (best.has_schedule && r.time >= race.best_time) return;
    if (opt.progress) opt.progress->best(r.time);
    best.has_schedule = true;
    best.status = PlanStatus::Feasible;
    best.schedule = std::move(s);
    race.best_time = r.time;
    rep.winner = who;
  }

  // The root's own save-axis options (hierarchy/save_front.h) as whole plans: the fastest that fits
  // is offered (milliseconds; the others would only fill the notes).
  void offer_save_front(Race& race, int64_t budget) {
    if (popt.top_save_front_points <= 0) return;
    std::optional<Schedule> fastest;
    double fastest_time = 0;
    for (Schedule& s : hierarchy::save_front(g, popt.top_save_front_points)) {
      const SimResult r = simulate(g, s);
      if (!opt.budget(budget).admits(r) || (fastest && r.time >= fastest_time)) continue;
      fastest_time = r.time;
      fastest = std::move(s);
    }
    if (fastest) offer(race, budget, std::move(*fastest), "save_front", std::nullopt);
  }

  // Rotor's DP is not time-limited and costs O(blocks^3 x slots): 1.5 s at 300 blocks, 25 s at
  // 1,000 (bench/results/solvers.md); a longer chain would overrun the caller's limit (a 712-layer
  // transformer: 30.6 s for 12 s), so it is skipped there.
  void offer_rotor(Race& race, int64_t budget, const Deadline& top) {
    if ((!popt.rotor_at_top && !popt.rotor_menus_at_top) || RotorSolver().unsupported(g)) return;
    auto blocks = hierarchy::chain_clusters(g, nullptr);
    if (blocks && blocks->size() > kRotorAtTopMaxBlocks) {
      race.notes.push_back(fmt::format("rotor: skipped, {} blocks (at most {} within a time limit)", blocks->size(),
                                       kRotorAtTopMaxBlocks));
      return;
    }
    if (!blocks) return;
    // Each DP gets its share of what is left of the top when it starts.
    auto share = [&] {
      SolveOptions o = opt;
      o.deadline.reset();
      o.time_limit = std::max(0.05, top.left() * portfolio.rotor_at_top_share);
      return o;
    };
    if (popt.rotor_at_top) {
      Plan rp = RotorSolver().solve(g, budget, share());
      if (rp.has_schedule) offer(race, budget, std::move(rp.schedule), "rotor", std::nullopt);
    }
    if (!popt.rotor_menus_at_top) return;
    // HiRemate's chain level: the same DP, each block offering the menu the levels built for it
    // (Rotor above alone knows the baselines; rockmate builds such menus again).
    auto menus_chain = hierarchy::make_chain(g, [&](const hierarchy::ClusterProblem& cg) { return block_menu(cg); });
    Plan mp = hierarchy::solve_chain(g, menus_chain, budget, share());
    if (mp.has_schedule) offer(race, budget, std::move(mp.schedule), "rotor over the levels' menus", std::nullopt);
  }

  void offer_twremat(Race& race, int64_t budget) {
    if (twremat_plan && twremat_plan->has_schedule) {
      offer(race, budget, std::move(twremat_plan->schedule), "twremat", std::nullopt);
    } else if (twremat_plan) {
      Plan& best = race.best;
      if (twremat_plan->lowest_peak && (!best.lowest_peak || *twremat_plan->lowest_peak < *best.lowest_peak))
        best.lowest_peak = twremat_plan->lowest_peak;
      race.notes.push_back(fmt::format("twremat: {} ({})", to_string(twremat_plan->status), twremat_plan->note));
    }
  }

  // The H-ILP on each partitioning of the root. With the flat MILP, they share half the top's time
  // where the limit is long enough for the MILP, started from their best plan, to improve it in the
  // other half; under a short limit every top solve gets an equal share.
  // measured: bench/results/time_shares.md#planner-flat-milp
  // Each partitioning is solved twice: with top_small_options options in all (a model CBC settles
  // quickly) and with every option the quotas allow. The full model is the better one where CBC has
  // the time for it; where it has not, CBC's incumbent there can be far worse than the small
  // model's, or missing. With two threads or more both run at once, one CBC thread each, for the
  // whole share; with one, the small model first for top_small_share of it.
  void offer_hilp(Race& race, int64_t budget, const Deadline& top) {
    auto id = [](NodeId x) { return x; };
    const auto root_parts = partitionings(tree.root);
    const double n = static_cast<double>(root_parts.size());
    // Where the flat MILP runs from scratch on a thread of its own (flat_beside), the H-ILP keeps
    // the whole top: with half of it, unet-100 at 35 % (30 s, 2 threads) ended on TW-Remat's 30.49 %
    // (the full top model found nothing) where hilp alone has 20.78 %.
    const Deadline hilp_time = !flat_applies() || flat_alone.valid() || flat_probe_lost ? top
                               : flat_gets_time() ? top.share(portfolio.top_hilp_share_with_flat)
                                                  : top.share(n / (n + 1));
    const bool small_too = popt.top_small_options > 0 && popt.top_small_options < popt.total_options;
    const bool beside = small_too && hilp_threads >= 2;
    offer_flat_persistent(race, budget, root_parts, top);
    for (size_t i = 0; i < root_parts.size(); ++i) {
      const auto& p = root_parts[i];
      const Deadline mine = hilp_time.share(1.0 / static_cast<double>(root_parts.size() - i));
      const std::string who = fmt::format("hilp ({}, {} parts)", p.partitioner, p.parts.size());
      const std::string who_small = fmt::format("hilp ({}, {} parts, {} options)", p.partitioner, p.parts.size(),
                                                popt.top_small_options);
      if (std::min(top.left(), mine.left()) < 0.1) {
        race.notes.push_back(who + ": not solved, no time left");
        continue;
      }
      if (opt.progress) opt.progress->phase("top: " + who);
      if (popt.top_persistent_share > 0) offer_persistent_all(race, budget, p, std::min(top.left(), mine.left()));
      // Each full or grown CBC model starts from the fastest plan of the CBC models before it, where it
      // holds it (the small model's with one thread, the last grown one's). Not from the
      // persistent plan: from a greedy incumbent CBC can settle worse than from none (hilp_model.cpp's
      // starts; encoder_decoder-1200 at 25 %: 12.65 % against 11.84 %, bench/results/top_start.md).
      std::optional<TopStart> best;
      auto start = [&best] { return best ? best->solution : nullptr; };
      auto solve_parts = [&, budget](std::vector<hierarchy::HPart> ps, double limit, ClusterReport& cr,
                                     int cbc_threads, std::shared_ptr<const hierarchy::HilpSolution> from) {
        hierarchy::HGraph hg = hierarchy::build_hgraph(g, std::move(ps));
        return run(hg, budget, opt.save_budget, limit, cr, cbc_threads, std::move(from), popt.top_neighbourhood_share);
      };
      // The small model, from nothing: no CBC model of this partitioning comes before it.
      auto solve_small = [&, budget](double limit, ClusterReport& cr, int cbc_threads) {
        return solve_parts(parts(p, id, id, budget, popt.top_small_options), limit, cr, cbc_threads, nullptr);
      };
      auto take = [&](hierarchy::HilpResult r, const std::string& name) {
        ++rep.top_solves;
        if (r.has_schedule && r.solution && (!best || r.model_time < best->time))
          best = TopStart{r.solution, r.model_time};
        if (r.has_schedule) offer(race, budget, std::move(r.schedule), name, std::nullopt);
        else race.notes.push_back(fmt::format("{}: {}{}", name, to_string(r.status), r.note.empty() ? "" : " (" + r.note + ")"));
      };
      ClusterReport small_cr;
      std::future<hierarchy::HilpResult> small;
      if (beside) {
        const double limit = std::min(top.left(), mine.left());
        small = pool.run([&solve_small, limit, &small_cr] { return solve_small(limit, small_cr, 1); });
      } else if (small_too) {
        take(solve_small(std::min(top.left(), mine.left() * popt.top_small_share), small_cr, 0), who_small);
      }
      // The full model; where CBC proves it optimal with time left, again with top_options_growth
      // times the options (the time is the top's; nothing else would use it), until CBC is cut or
      // the quotas hold every option. select_options adds options one at a time whatever the quota,
      // so each model's options are a superset of the last one's, and the race keeps the best plan.
      // The small model's thread reads this frame (solve_small, small_cr): it is waited for before any
      // failure of the full one leaves it.
      std::exception_ptr failure;
      try {
        size_t last_options = 0;
        bool solved = false;
        for (int total = popt.total_options;;
             total = static_cast<int>(std::min(total * popt.top_options_growth, double{kEveryOption}))) {
          const double limit = std::min(top.left(), mine.left());
          if (limit < 0.1) break;
          std::vector<hierarchy::HPart> ps = parts(p, id, id, budget, total);
          size_t options = 0;
          for (const auto& hp : ps) options += hp.options.size();
          // Else every quota is still below its next option: grow on. (A part that is a single node
          // has no options: a root of single nodes is solved once.)
          if (!solved || options > last_options) {
            solved = true;
            last_options = options;
            // One thread less while the small model runs beside; every thread once it has ended.
            const bool small_running =
                small.valid() && small.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
            hierarchy::HilpResult r =
                solve_parts(std::move(ps), limit, rep.top, small_running ? hilp_threads - 1 : 0, start());
            const bool settled = r.status == PlanStatus::Optimal;
            take(std::move(r), total == popt.total_options
                                   ? who
                                   : fmt::format("hilp ({}, {} parts, {} options)", p.partitioner, p.parts.size(), total));
            if (!settled || !(popt.top_options_growth > 1)) break;
          }
          if (total >= kEveryOption || !(popt.top_options_growth > 1)) break;  // every option was in
        }
      } catch (...) {
        failure = std::current_exception();
      }
      if (small.valid()) small.wait();
      if (failure) std::rethrow_exception(failure);
      if (small.valid()) take(small.get(), who_small);
      rep.top.solves += small_cr.solves;
      rep.top.optimal += small_cr.optimal;
      rep.top.timed_out += small_cr.timed_out;
      rep.top.infeasible += small_cr.infeasible;
      rep.top.max_vars = std::max(rep.top.max_vars, small_cr.max_vars);
      rep.top.max_rows = std::max(rep.top.max_rows, small_cr.max_rows);
    }
  }

  // The H-ILP's persistent greedy (hilp_model.h) over every option of the parts' menus, no quota: no
  // CBC, and options the quotas leave out can make it faster than CBC's optimum over the quotas'
  // (1,211-node transformer at 25 %, 30 s: 10.05 % against 11.81 %; bench/results/option_selection.md).
  // Not where building its model would take more than a tenth of `seconds`; its greedy passes and
  // exchange search get PlannerOptions::top_persistent_share of them.
  void offer_persistent_all(Race& race, int64_t budget, const partition::Partitioning& p, double seconds) {
    auto id = [](NodeId x) { return x; };
    const std::string who = fmt::format("hilp ({}, {} parts, every option, persistent)", p.partitioner, p.parts.size());
    hierarchy::HGraph hg = hierarchy::build_hgraph(g, parts(p, id, id, budget, kEveryOption));
    if (estimated_build_seconds(hg) > 0.1 * seconds) {
      race.notes.push_back(who + ": not built, its model too large for the time left");
      return;
    }
    hierarchy::HilpResult r = hierarchy::persistent_hilp(hg, budget, opt.save_budget, popt.top_persistent_share * seconds);
    if (r.has_schedule) offer(race, budget, std::move(r.schedule), who, std::nullopt);
    else race.notes.push_back(fmt::format("{}: {}{}", who, to_string(r.status), r.note.empty() ? "" : " (" + r.note + ")"));
  }

  // The same over the root's flat partitioning (PlannerOptions::top_flat_persistent_share), unless
  // the root has no other (a root too small to partition is solved flat in offer_hilp's loop).
  void offer_flat_persistent(Race& race, int64_t budget, const std::vector<partition::Partitioning>& root_parts,
                             const Deadline& top) {
    if (!(popt.top_flat_persistent_share > 0 && popt.top_persistent_share > 0)) return;
    if (tree.cluster(tree.root).nodes.size() > popt.top_flat_persistent_max_units) return;
    for (const auto& p : root_parts)
      if (p.partitioner == "flat") return;
    if (opt.progress) opt.progress->phase("top: hilp (flat, persistent)");
    offer_persistent_all(race, budget, flat_partitioning(tree.root), popt.top_flat_persistent_share * top.left());
  }

  // One flat solve's failure (CBC ending in an error state) must not discard the plans in hand.
  template <class Solve>
  void offer_flat(Race& race, int64_t budget, const std::string& who, Solve solve) {
    try {
      Plan cm = solve();
      if (cm.has_schedule) offer(race, budget, std::move(cm.schedule), who, cm.bound);
      else race.notes.push_back(fmt::format("{}: {}{}", who, to_string(cm.status), cm.note.empty() ? "" : " (" + cm.note + ")"));
      if (!cm.has_schedule && cm.bound) race.lower = std::max(race.lower.value_or(*cm.bound), *cm.bound);
      if (cm.status == PlanStatus::Infeasible) race.proof = cm.note;
    } catch (const SolverFailure& e) {
      race.notes.push_back(who + ": " + e.what());
    }
  }

  // The flat MILP (portfolio.h) from the race's best plan with what is left of the top's time, and
  // the one from scratch that ran beside the hierarchy.
  void offer_flat_milps(Race& race, int64_t budget, const Deadline& top) {
    if (flat_applies() && top.left() > 0.5) {
      SolveOptions o = opt;
      o.threads = threads_now();
      o = part_of(o, top, top.left());
      offer_flat(race, budget, "checkmate (flat)", [&] {
        return checkmate_with_fallbacks(g, budget, o, race.best.has_schedule ? &race.best.schedule : nullptr,
                                        portfolio);
      });
    }
    if (flat_alone.valid()) offer_flat(race, budget, "checkmate (flat, from scratch)", [&] { return flat_alone.get(); });
    if (flat_probe) offer_flat(race, budget, "checkmate (flat, probe)", [&] { return std::move(*flat_probe); });
  }

  // The race's verdict: the winner with its bound, or why there is none.
  Plan verdict(Race& race, int64_t budget) {
    Plan& best = race.best;
    if (!best.has_schedule) {
      // "Infeasible" only on the flat MILP's proof for the graph; the H-ILP's options and the
      // heuristics that found nothing prove nothing, nor does a solve cut by the time limit.
      if (race.proof) best.status = PlanStatus::Infeasible;
      else if (rep.top.timed_out > 0 || left() <= 0.5) best.status = PlanStatus::TimedOut;
      best.note = fmt::format("{} {} bytes{}{}", race.proof ? "no plan fits" : "no plan found within", budget,
                              best.status == PlanStatus::TimedOut ? " within the time limit" : "",
                              race.notes.empty() ? "" : ": ");
      for (size_t i = 0; i < race.notes.size(); ++i) best.note += (i ? "; " : "") + race.notes[i];
      return std::move(best);
    }
    best.lowest_peak.reset();  // meaningful without a plan only
    best.note = fmt::format("best plan: {}", rep.winner);
    const auto& sb = race.schedule_bound;
    if (race.lower && *race.lower <= race.best_time && (!sb || *race.lower > sb->time)) {
      best.bound = race.lower;
      best.note += "; bound: the flat MILP's (RK-Checkmate's model; the graph has a single order)";
    } else if (sb) {
      best.bound = sb->time;
      best.note += "; bound: " + sb->why;
    }
    return std::move(best);
  }

  // The top level: the fast ones first, so that the slow ones cannot starve them: keep-all, Rotor,
  // TW-Remat (solved before the levels), then the H-ILP per partitioning and the flat MILP.
  Plan top(int64_t budget) {
    const Deadline top_time = popt.top_time_limit > 0 ? planned.within(popt.top_time_limit) : planned.share(1);
    Race race;
    race.best.status = PlanStatus::NoPlanFound;
    race.schedule_bound = every_plans_bound;
    if (opt.progress) {
      opt.progress->phase("top: keep-all, Rotor, TW-Remat");
      if (race.schedule_bound) opt.progress->bound(race.schedule_bound->time);
    }
    offer(race, budget, keep_all_schedule(g), "autograd", std::nullopt);
    offer_save_front(race, budget);
    offer_rotor(race, budget, top_time);
    offer_twremat(race, budget);
    offer_hilp(race, budget, top_time);
    offer_flat_milps(race, budget, top_time);
    // TW-Remat's run beside the hierarchy (twremat_first) ends with the limit: its plan comes last.
    if (twremat_beside.valid()) {
      twremat_plan = twremat_beside.get();
      offer_twremat(race, budget);
    }
    return verdict(race, budget);
  }
};

// Heights: a representative can be solved once the representatives its parts use are; those of one
// height are independent. Representatives by height, lowest first.
std::map<int, std::vector<int>> by_height(const partition::ClusterTree& tree) {
  std::map<int, int> height;
  std::map<int, std::vector<int>> out;
  for (int c : tree.bottom_up()) {
    if (c == tree.root) continue;
    int h = 0;
    for (const auto& part_set : tree.cluster(c).partitionings)
      for (const auto& part : part_set.parts)
        if (!part.leaf()) h = std::max(h, height.at(tree.representative_of(part.cluster)) + 1);
    height[c] = h;
    out[h].push_back(c);
  }
  return out;
}

// TW-Remat on the whole graph comes first (measured: bench/results/time_shares.md#planner-twremat-at-top);
// on small graphs it takes milliseconds.
void twremat_first(Planner& p, int64_t budget) {
  if (!p.popt.twremat_at_top) return;
  if (p.opt.progress) p.opt.progress->phase("TW-Remat on the whole graph");
  const bool probe = p.opt.threads >= 2 && p.portfolio.twremat_probe_share > 0;
  const double share = probe ? p.portfolio.twremat_probe_share : p.portfolio.twremat_at_top_share;
  const auto probe_start = Clock::now();
  p.twremat_plan = TwRematSolver().solve(p.g, budget, part_of(p.opt, p.run_deadline, std::max(0.05, share * p.opt.time_limit)));
  if (!probe || p.twremat_plan->status != PlanStatus::TimedOut) return;
  // Its walk raises the peak from a low-memory schedule towards the budget. Where, at the rate the
  // probe climbed (counted from 0 bytes, which flatters it), it would not reach the budget within
  // the limit, it gets no thread: the hierarchy keeps every one (20,000-node transformer at 50 %,
  // 30 s: TW-Remat reached 2 GB of a 53 GB budget in its probe; beside the hierarchy it ended at
  // 3.5 % of the keep-all peak, 44.6 %, and hiremate had 7.63 % where hilp alone has 1.53 %).
  if (p.twremat_plan->has_schedule) {
    const double climbed = static_cast<double>(simulate(p.g, p.twremat_plan->schedule).peak);
    if (climbed > 0 && static_cast<double>(budget) * since(probe_start) / climbed > p.left()) return;
  }
  SolveOptions o = p.opt;
  o.verbose = 0;
  o.progress = nullptr;  // beside the others: its phases would hide theirs (its plan is offered at the top)
  // Until the end of the run's limit, not of the planner's margin: alone it uses the whole limit, and
  // where the limit cuts its walk the last seconds are the lowest overheads (transformer-5000 at 35 %,
  // 30 s: 1.99 % ending at the margin against 1.74 % alone). Its plan is simulated once more at the top.
  o = part_of(o, p.run_deadline, std::max(0.05, p.run_deadline.left()));
  const Graph& g = p.g;
  p.twremat_beside = p.pool.run([&g, budget, o] { return TwRematSolver().solve(g, budget, o); });
}

// The whole-graph plan that every cluster's menu gets restricted (PlannerOptions::twremat_restrictions_share):
// TW-Remat's at the top where it ran, else a run of its own.
void restricted_plan(Planner& p, int64_t budget) {
  if (p.popt.twremat_restrictions_share <= 0) return;
  if (p.twremat_plan) {
    if (p.twremat_plan->has_schedule) p.restricted = p.twremat_plan->schedule;
    return;
  }
  if (p.opt.progress) p.opt.progress->phase("TW-Remat on the whole graph, for the clusters' menus");
  SolveOptions o = part_of(p.opt, p.run_deadline, std::max(0.05, p.popt.twremat_restrictions_share * p.opt.time_limit));
  o.verbose = 0;
  Plan tp = TwRematSolver().solve(p.g, budget, o);
  if (tp.has_schedule) p.restricted = std::move(tp.schedule);
}

// The time of TW-Remat's plan on the whole graph, where it has one.
std::optional<double> twremat_time(const Planner& p) {
  if (!p.twremat_plan || !p.twremat_plan->has_schedule) return std::nullopt;
  return simulate(p.g, p.twremat_plan->schedule).time;
}

// The portfolio's options with the flat MILP's probe set (CheckmateOptions::probe_seconds): its
// search stops at flat_probe_share of the limit unless it holds a plan faster than TW-Remat's
// (`twremat`: twremat_time(p)).
PortfolioOptions probing(const Planner& p, std::optional<double> twremat) {
  PortfolioOptions portfolio = p.portfolio;
  portfolio.checkmate.probe_seconds = portfolio.flat_probe_share * p.opt.time_limit;
  portfolio.checkmate.probe_time = twremat.value_or(std::numeric_limits<double>::infinity());
  return portfolio;
}

// Whether the flat MILP's probe earns the flat MILP its time: CBC found a plan faster than TW-Remat's
// (`twremat`: its time, none where it has no plan), or proved that none fits. `probe` empty: CBC failed.
bool flat_probe_won(const Graph& g, const std::optional<Plan>& probe, std::optional<double> twremat) {
  if (probe && probe->status == PlanStatus::Infeasible) return true;
  if (!probe || !probe->has_schedule) return false;
  return !twremat || simulate(g, probe->schedule).time < *twremat;
}

// Where the flat MILP gets time and there are two threads or more, one of them runs the flat MILP
// from scratch for the whole limit beside the hierarchy, whose warm-started MILP at the top it
// complements: CBC's search from the hierarchy's plan can settle worse than its own, and elsewhere
// the start is what helps. measured: bench/results/time_shares.md#planner-flat-from-scratch
// That search is probed as one thread's is (flat_probe): where it holds no plan faster than
// TW-Remat's after flat_probe_share of the limit, it stops and the thread goes back to the hierarchy
// (whose next height and top get it, threads_now): held for the whole limit, unet-100 at 35 % (30 s,
// 2 threads) ended on TW-Remat's 30.49 % where hilp alone, on both threads, has 23.16 %. Where it
// wins, the same search goes on to the end of the limit (CheckmateOptions::probe_seconds), as
// checkmate's alone: a second search from scratch lost the probe's seconds (transformer-100 at 50 %,
// 30 s: 9.02 % where checkmate alone has 8.61 %).
void flat_beside(Planner& p, int64_t budget) {
  p.threads = std::max(1, p.opt.threads - (p.twremat_beside.valid() ? 1 : 0));
  if (!p.flat_gets_time() || p.threads < 2) return;
  SolveOptions o = p.opt;
  // CBC's threads as checkmate alone has them: its deterministic search is then checkmate's own
  // (transformer-100 at 50 %, 30 s, 2 threads: one CBC thread 9.02 %, two 8.61 %, as alone); in that
  // mode the second thread mostly waits (27 s of CPU in 27 s here), so the hierarchy keeps its core.
  o.threads = p.opt.threads;
  o.verbose = false;
  o.progress = nullptr;  // beside the others: its phases would hide theirs (its plan is offered at the top)
  // The run's whole limit, as checkmate alone has it: its own shares (CheckmateOptions::cbc_share)
  // end the search before the top ends, and a CBC past its limit is killed at the planner's hard
  // stop. With the planner's margin its CBC had 23.5 of 30 s where alone it has 25.5.
  o = part_of(o, p.run_deadline, std::max(0.05, p.run_deadline.left()));
  const Graph& g = p.g;
  const std::optional<double> twremat = twremat_time(p);  // now: the top moves its plan out
  PortfolioOptions portfolio = probing(p, twremat);
  portfolio.checkmate.hard_stop_share = portfolio.hard_stop_share;
  const bool verbose = p.opt.verbose > 0;
  p.flat_alone = p.pool.run([&g, budget, o, portfolio, verbose, twremat, &verdict = p.beside_probe] {
    if (!(portfolio.checkmate.probe_seconds > 0)) return checkmate_with_fallbacks(g, budget, o, nullptr, portfolio);
    Plan flat;
    try {
      flat = flat_milp_alone(g, budget, o, portfolio);
    } catch (const SolverFailure&) {  // CBC in an error state: the thread goes back
      verdict = 2;
      throw;
    }
    const bool won = flat_probe_won(g, flat, twremat);
    verdict = won ? 1 : 2;
    if (verbose)
      std::cerr << fmt::format("planner: flat MILP beside the hierarchy: {}; {}\n",
                               flat.has_schedule ? "a plan" : to_string(flat.status),
                               won ? "it kept its thread" : "its thread went back to the hierarchy at its probe");
    return flat;
  });
  p.threads -= 1;
}

// With one thread, where the flat MILP gets time at the top (PortfolioOptions::flat_probe_share): the
// MILP alone first, for a share of the limit. Where it finds no plan faster than TW-Remat's, the
// hierarchy gets the rest as hilp alone would; otherwise the same search goes on for
// flat_probe_continue_share of the limit more (one search with a checkpoint, as flat_beside's), and
// the flat MILP's shares stand.
void flat_probe(Planner& p, int64_t budget) {
  if (!p.flat_gets_time() || p.flat_alone.valid() || !(p.portfolio.flat_probe_share > 0)) return;
  if (p.opt.progress) p.opt.progress->phase("checkmate (flat, probe)");
  SolveOptions o = p.opt;
  o.threads = p.threads;
  o.verbose = false;
  const std::optional<double> twremat = twremat_time(p);
  const PortfolioOptions portfolio = probing(p, twremat);
  o = part_of(o, p.planned, (portfolio.flat_probe_share + portfolio.flat_probe_continue_share) * p.opt.time_limit);
  try {
    p.flat_probe = flat_milp_alone(p.g, budget, o, portfolio);
  } catch (const SolverFailure&) {  // CBC in an error state: the hierarchy gets the time
    p.flat_probe.reset();
  }
  const bool found = p.flat_probe && p.flat_probe->has_schedule;
  p.flat_probe_lost = !flat_probe_won(p.g, p.flat_probe, twremat);
  p.rep.flat_probe = p.flat_probe_lost ? "lost" : "won";
  if (p.opt.verbose)
    std::cerr << fmt::format("planner: flat MILP probe: {} in {:.2f} s; {}\n",
                             found ? "a plan" : p.flat_probe ? to_string(p.flat_probe->status) : "failed",
                             p.run_deadline.elapsed(),
                             p.flat_probe_lost ? "the hierarchy gets the rest as hilp alone" : "the flat MILP keeps its shares");
}

// The levels below the top: representatives of one height go to the workers (CBC then gets one
// thread each). Each height gets a part of what is left of the levels' share in proportion to the
// rounds of `workers` it needs, so that the higher ones, solved last, are not starved by the lower
// (a 511-node transformer's two-layer cluster got 0.05 s of 18.6 s: no H-ILP options at all). Within
// a height a representative gets what is left divided by the rounds still ahead of it, the ones
// running beside it counted: what a quick one leaves flows to the next. A height's workers are the
// threads the hierarchy has (Planner::threads_now) when it begins, and those given back during it.
void solve_levels(Planner& p) {
  // Where the flat MILP gets its time at the top, the levels get less, so that the MILP, started
  // from the hierarchy's plan, has half of the rest to improve it.
  const Deadline levels =
      p.planned.share(p.flat_gets_time() && !p.flat_alone.valid() ? p.portfolio.levels_share_with_flat
                                                                   : p.portfolio.levels_share);
  const auto heights = by_height(p.tree);
  const int workers = p.threads;
  auto rounds = [workers](size_t n) { return static_cast<double>((n + workers - 1) / workers); };
  double rounds_left = 0;
  size_t clusters = 0;
  for (const auto& [h, reps] : heights) {
    rounds_left += rounds(reps.size());
    clusters += reps.size();
  }
  if (p.opt.progress) p.opt.progress->phase(fmt::format("levels: menus of {} clusters", clusters));
  for (const auto& [h, reps] : heights) {
    const Deadline height = levels.share(rounds(reps.size()) / rounds_left);
    rounds_left -= rounds(reps.size());
    const int height_workers = p.threads_now();
    p.hilp_threads = height_workers > 1 ? 1 : height_workers;
    if (p.opt.verbose)
      std::cerr << fmt::format("planner: height {}: {} representatives, {} workers, {:.2f} s ({:.2f} s into the run)\n", h,
                               reps.size(), height_workers, height.left(), p.run_deadline.elapsed());
    std::mutex mu;
    size_t running = 0;
    // A thread given back during the height (the flat MILP's probe lost, TW-Remat ended) joins its
    // workers: unet-100 at 25 %, 30 s, 2 threads, the one height ran on one worker to 16 s while
    // the probe's thread idled from 7 s.
    auto workers_now = [&p] { return p.threads_now(); };
    WorkerPool::for_each(reps.size(), height_workers, [&, &reps = reps](size_t i) {
      double share = 0;
      {
        std::lock_guard<std::mutex> lock(mu);
        const size_t ahead = reps.size() - i + running;
        const size_t w = static_cast<size_t>(std::max(height_workers, p.threads_now()));
        share = height.left() / static_cast<double>((ahead + w - 1) / w);
        ++running;
      }
      p.solve_cluster(reps[i], share, height);
      std::lock_guard<std::mutex> lock(mu);
      --running;
    }, workers_now);
  }
  p.hilp_threads = p.threads_now();
}

}  // namespace

Plan plan(const Graph& g, int64_t budget, const SolveOptions& opt, const PlannerOptions& popt, PlannerReport* report) {
  if (!g.is_training())
    throw BadInput(fmt::format("the hierarchical planner needs a training graph (forward, loss, backward); '{}' is a "
                               "generic DAG: use --solver hiremate (which plans it with dagremat), dagremat, checkmate or twremat",
                               g.name));
  // Below what some node alone needs, nothing fits: said at once, not after the levels' time (under
  // the sanitizers the levels used the whole of a 5 s limit on a 1-byte budget, and the top had no
  // time left to prove it). plan() is an entry point of its own (not only through solve_checked).
  if (const int64_t floor_budget = min_budget(g); budget < floor_budget) {
    Plan out;
    out.status = PlanStatus::Infeasible;
    out.note = below_min_budget_note(g, budget);
    return out;
  }
  Planner p(g, opt, popt);
  // First, while the whole limit is left: the bound is cheap, and a progress display shows it at once.
  p.every_plans_bound = schedule_bound(g, budget, p.run_deadline.share(kScheduleBoundShare).end());
  if (opt.progress && p.every_plans_bound) opt.progress->bound(p.every_plans_bound->time);
  twremat_first(p, budget);
  restricted_plan(p, budget);
  flat_beside(p, budget);
  flat_probe(p, budget);
  solve_levels(p);
  const auto top_start = Clock::now();
  Plan out = p.top(budget);
  if (p.beside_probe != 0) p.rep.flat_probe = p.beside_probe == 1 ? "won" : "lost";
  p.rep.top.seconds = since(top_start);
  p.rep.seconds = p.run_deadline.elapsed();
  out.note += fmt::format("; {} clusters ({} solved), {} H-ILP solves, partitioned in {:.2f} s", p.rep.clusters,
                          p.rep.solved.size(), p.rep.hilp_solves, p.rep.partition_seconds);
  if (p.rep.rejected > 0) out.note += fmt::format("; {} extracted schedules rejected by the simulator", p.rep.rejected);
  p.rep.top.units = g.compute.size();
  if (opt.verbose)
    for (const auto& line : p.rep.level_lines()) std::cerr << "planner: " << line << "\n";
  if (report) *report = p.rep;
  return out;
}

std::string HierarchicalSolver::description() const {
  return name_ == "hilp" ? "HiRemate's H-ILP on bottom_to_top's cluster tree (on chains also Rotor's DP over its menus)"
                         : "HiRemate: H-ILP at every level, TW-Remat beside it at the top";
}

std::optional<std::string> HierarchicalSolver::unsupported(const Graph& g) const {
  if (!g.is_training() && !popt_.dag_solver_for_generic_dags)
    return std::string("it needs a training graph (forward, loss, backward); use dagremat for generic DAGs");
  return std::nullopt;
}

Plan HierarchicalSolver::solve(const Graph& g, int64_t budget, const SolveOptions& opt) const {
  // A generic DAG has no forward/backward structure to partition: the fixed-order solvers plan it.
  if (!g.is_training() && popt_.dag_solver_for_generic_dags)
    return dagremat_then_checkmate(g, budget, opt, popt_.portfolio);
  PlannerReport report;
  Plan out = plan(g, budget, opt, popt_, &report);
  out.report = std::move(report);
  return out;
}

}  // namespace hiremate::planner
