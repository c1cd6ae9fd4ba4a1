#include "hiremate/planner/planner.h"

#include <fmt/format.h>

#include "hiremate/solvers/dagremat/dagremat.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <atomic>
#include <exception>
#include <future>
#include <map>
#include <optional>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "hiremate/common/error.h"
#include "hiremate/partition/translate.h"
#include "hiremate/schedule/lower_bound.h"
#include "hiremate/schedule/min_budget.h"
#include "hiremate/solvers/min_budget.h"
#include "hiremate/solvers/checkmate/checkmate.h"
#include "hiremate/solvers/checkmate/model_size.h"
#include "hiremate/hierarchy/cluster_problem.h"
#include "hiremate/hierarchy/hgraph.h"
#include "hiremate/hierarchy/hilp_model.h"
#include "hiremate/hierarchy/menu.h"
#include "hiremate/hierarchy/option.h"
#include "hiremate/hierarchy/rotor.h"
#include "hiremate/solvers/twremat/twremat.h"

namespace hiremate::planner {

namespace {

constexpr size_t kRotorAtTopMaxBlocks = 300;
constexpr double kLimitMargin = 0.93;
constexpr double kHilpVariablesPerSecond = 1e6;
constexpr double kFlatTimeMinLimit = 20;  // seconds
// A generic DAG whose flat MILP builds within this share of the limit is planned by dagremat for
// kDagRematShare of it, then by checkmate's MILP started from dagremat's plan: on
// resnet50-b256-train at 80 % with 55 s, checkmate so reached 0.306 % CI against dagremat's 0.391 %
// alone (the optimum is 0.28 %), and its lazy relaxation's bound is the tighter one (rl2-n250 at
// 80 %: 2.21 % against 1.46 %). Larger DAGs go to dagremat alone.
constexpr double kDagMilpBuildShare = 0.1;
constexpr double kDagRematShare = 0.4;

using Clock = std::chrono::steady_clock;
using hierarchy::FastForward;
using hierarchy::Option;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// A representative's options and fast forward, in the ids of the graph being planned.
struct HostMenu {
  std::vector<Option> options;
  FastForward ff;
};

// The options that fit `budget`, at most `quota` of them (menu.h: farthest-point sampling on the
// saved memory, the extremes kept).
std::vector<Option> select(const std::vector<Option>& menu, int64_t budget, size_t quota) {
  std::vector<Option> fit;
  for (const Option& o : menu)
    if (o.mem <= budget) fit.push_back(o);
  return hierarchy::select_options(std::move(fit), quota);
}

// Peak-grid positions 1..n in an order that covers the range early (bisection order: n/2, n/4,
// 3n/4, ...), so that a cluster whose time share runs out still has options spread over it.
std::vector<int> coverage_order(int n) {
  std::vector<int> order;
  std::vector<char> seen(n + 1, 0);
  for (int step = n + 1; step >= 1; step /= 2)
    for (int i = step / 2; i <= n; i += std::max(step, 1))
      if (i >= 1 && !seen[i]) {
        seen[i] = 1;
        order.push_back(i);
      }
  for (int i = 1; i <= n; ++i)
    if (!seen[i]) order.push_back(i);
  return order;
}

struct Planner {
  const Graph& g;
  const SolveOptions& opt;
  const PlannerOptions& popt;
  Clock::time_point start = Clock::now();
  partition::ClusterTree tree;
  PlannerReport rep;
  std::optional<Plan> twremat_plan;  // TW-Remat on the whole graph, solved before the levels
  std::unordered_map<int, HostMenu> menus;  // representative -> menu in g's ids
  // Representatives of one height are solved by parallel workers: menus and the report are shared.
  mutable std::mutex mu;
  int hilp_threads = 1;                  // CBC threads per H-ILP solve
  int threads = 1;                       // threads for the hierarchy (the levels' workers, the top's MILPs)
  // The flat MILP from scratch, beside the hierarchy (see plan()); offered at the top.
  std::future<Plan> flat_alone;

  Planner(const Graph& graph, const SolveOptions& o, const PlannerOptions& p) : g(graph), opt(o), popt(p) {
    partition::PartitionOptions po;
    po.partitioners = popt.partitioners;
    auto t0 = Clock::now();
    tree = partition::partition(g, po);
    rep.partition_seconds = since(t0);
    rep.clusters = tree.clusters.size();
  }

  // The flat MILP runs at the top (small graphs), and with half of the top's time when the limit is
  // long enough for it to improve the hierarchy's plan (at 10 s on a 91-node transformer it had not:
  // 5.34 % against 3.04 % with the levels' usual share).
  bool flat_applies() const {
    return popt.flat_checkmate_max_nodes > 0 && g.compute.size() <= popt.flat_checkmate_max_nodes;
  }
  bool flat_gets_time() const { return flat_applies() && opt.time_limit >= kFlatTimeMinLimit; }

  // What is left of the limit, less a margin for the last checks and the caller's own work (the
  // CLI's wall time, graph loading included, measured 10-12 % over a 10 s limit without it).
  double left() const { return kLimitMargin * opt.time_limit - since(start); }

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
                                      const hierarchy::IdMap& fd, int64_t budget) const {
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
        size_t quota = hierarchy::option_quota(sc.size(), sub_units, static_cast<size_t>(popt.total_options));
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
    partition::Partitioning flat;
    flat.partitioner = "flat";
    for (NodeId u : cl.nodes) flat.parts.push_back({u, -1});
    return {flat};
  }

  hierarchy::HilpResult run(const hierarchy::HGraph& hg, int64_t budget, std::optional<int64_t> save,
                            double limit, ClusterReport& cr) {
    // A model that would take longer to build than the solve may last is not built (measured: 0.9
    // million variables at the top of a 4,991-node transformer took 1.1 s, with 0.1 s left).
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
    ho.threads = hilp_threads;
    ho.verbose = opt.verbose;
    ho.save_budget = save;
    // A CBC that ignores its limit is killed before the caller's limit is overrun by more than 5 %.
    ho.grace_seconds = std::max(0.05, 1.05 * opt.time_limit - since(start) - limit);
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

  // TW-Remat's plans of the cluster graph on the peak grid, as options: milliseconds on a cluster,
  // and lower-memory ways to run it than recompute_all (which holds the whole cluster's forward in
  // its backward), so that the parent's H-ILP can reach the budgets a flat TW-Remat reaches.
  template <class Left>
  void add_twremat_options(const hierarchy::ClusterProblem& cg, int64_t lb, int64_t ub, const Left& budget_left,
                           std::vector<Option>& opts) const {
    for (int i = 1; i <= popt.peak_points; ++i) {
      const double limit = std::min(popt.cheap_solver_time_limit, budget_left() / 4);
      if (limit <= 0.01) return;
      SolveOptions o;
      o.time_limit = limit;
      o.threads = 1;
      const int64_t peak = grid_peak(lb, ub, i);
      Plan tp = TwRematSolver().solve(cg.graph, peak, o);
      if (tp.has_schedule) opts.push_back(hierarchy::make_option(cg, tp.schedule, "twremat", peak));
    }
  }

  // Solves representative c within `share` seconds (and the levels' deadline).
  void solve_cluster(int c, double share, Clock::time_point levels_deadline) {
    auto t0 = Clock::now();
    const auto deadline = std::min(levels_deadline, t0 + std::chrono::duration_cast<Clock::duration>(
                                                             std::chrono::duration<double>(share)));
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
    auto budget_left = [&] { return std::chrono::duration<double>(deadline - Clock::now()).count(); };
    if (popt.twremat_options) add_twremat_options(cg, lb, ub, budget_left, opts);
    for (const auto& p : partitionings(c)) {
      ++cr.partitionings;
      for (int i : coverage_order(popt.peak_points)) {
        int64_t peak = grid_peak(lb, ub, i);
        hierarchy::HGraph hg = hierarchy::build_hgraph(cg.graph, parts(p, fc, fd, peak));
        const int64_t step = std::max<int64_t>(1, (peak - iface) / (2 * popt.save_points));
        std::optional<int64_t> save;
        for (int j = 0; j < popt.max_saves; ++j) {
          double limit = std::min(popt.level_time_limit, budget_left());
          if (limit <= 0.2 || (save && *save < iface)) break;
          hierarchy::HilpResult r = run(hg, peak, save, limit, cr);
          if (!r.has_schedule) break;
          opts.push_back(hierarchy::make_option(cg, r.schedule, "hilp", peak));
          save = r.sim.bytes_at_loss - step;
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
                               "{} infeasible; largest {} vars, {} rows), {} options, {:.2f} s\n",
                               c, cr.units, cr.level, cr.solves, cr.optimal, cr.timed_out, cr.infeasible, cr.max_vars,
                               cr.max_rows, cr.options, cr.seconds);
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

  Plan top(int64_t budget) {
    const double top_limit = popt.top_time_limit > 0 ? std::min(popt.top_time_limit, left()) : left();
    const auto top_start = Clock::now();
    auto top_left = [&] { return top_limit - since(top_start); };
    Plan best;
    best.status = PlanStatus::NoPlanFound;
    double best_time = 0;
    // The best lower bound known, whichever plan wins: the loss-point bound (valid for every
    // schedule), or the flat MILP's where it proved more (RK-Checkmate's model, forward order fixed:
    // a plan outside that model may beat it, then it is no bound for that plan and is dropped).
    std::optional<double> lower;
    const auto loss_bound = loss_point_bound(g, budget);
    if (opt.progress) {
      opt.progress->phase("top: keep-all, Rotor, TW-Remat");
      if (loss_bound) opt.progress->bound(loss_bound->time);
    }
    std::vector<std::string> notes;
    std::optional<std::string> proof;  // the flat MILP's proof that nothing fits, where it gave one
    auto offer = [&](Schedule s, const std::string& who, std::optional<double> bound) {
      SimResult r = simulate(g, s);
      if (opt.verbose)
        std::cerr << fmt::format("planner: top: {} offers {} ({:.2f} s into the run)\n", who,
                                 r.valid ? fmt::format("time {}, peak {}", r.time, r.peak) : "an invalid plan",
                                 since(start));
      bool fits = r.valid && r.peak <= budget && (!opt.save_budget || r.bytes_at_loss <= *opt.save_budget);
      if (!fits) {
        if (r.valid && r.peak > budget && (!best.lowest_peak || r.peak < *best.lowest_peak)) best.lowest_peak = r.peak;
        notes.push_back(who + (!r.valid ? ": rejected by the simulator (" + r.reason + ")"
                               : r.peak > budget ? fmt::format(": over budget (peak {})", r.peak)
                                                 : fmt::format(": over the save budget ({} at the loss)", r.bytes_at_loss)));
        if (!r.valid) ++rep.rejected;
        return;
      }
      if (bound) lower = std::max(lower.value_or(*bound), *bound);
      if (best.has_schedule && r.time >= best_time) return;
      if (opt.progress) opt.progress->best(r.time);
      best.has_schedule = true;
      best.status = PlanStatus::Feasible;
      best.schedule = std::move(s);
      best_time = r.time;
      rep.winner = who;
    };
    // The fast ones first, so that the slow ones cannot starve them: keep-all, Rotor, TW-Remat
    // (solved before the levels), then the H-ILP per partitioning and the flat MILP.
    offer(keep_all_schedule(g), "autograd", std::nullopt);
    // Rotor's DP is not time-limited and costs O(blocks^3 x slots): 1.5 s at 300 blocks, 25 s at
    // 1,000 (bench/results/solvers.md); a longer chain would overrun the caller's limit (a 712-layer
    // transformer: 30.6 s for 12 s), so it is skipped there.
    if (popt.rotor_at_top && !RotorSolver().unsupported(g)) {
      auto blocks = hierarchy::chain_clusters(g, nullptr);
      if (blocks && blocks->size() <= kRotorAtTopMaxBlocks) {
        SolveOptions ro = opt;
        ro.time_limit = std::max(0.05, top_left() / 4);
        Plan rp = RotorSolver().solve(g, budget, ro);
        if (rp.has_schedule) offer(std::move(rp.schedule), "rotor", std::nullopt);
        // HiRemate's chain level: the same DP, each block offering the menu the levels built for it
        // (Rotor above alone knows the baselines; rockmate builds such menus again).
        SolveOptions o = opt;
        o.time_limit = std::max(0.05, top_left() / 4);
        auto menus_chain =
            hierarchy::make_chain(g, [&](const hierarchy::ClusterProblem& cg) { return block_menu(cg); });
        Plan mp = hierarchy::solve_chain(g, menus_chain, budget, o);
        if (mp.has_schedule) offer(std::move(mp.schedule), "rotor over the levels' menus", std::nullopt);
      } else if (blocks) {
        notes.push_back(fmt::format("rotor: skipped, {} blocks (at most {} within a time limit)", blocks->size(),
                                    kRotorAtTopMaxBlocks));
      }
    }
    if (twremat_plan && twremat_plan->has_schedule) {
      offer(std::move(twremat_plan->schedule), "twremat", std::nullopt);
    } else if (twremat_plan) {
      if (twremat_plan->lowest_peak && (!best.lowest_peak || *twremat_plan->lowest_peak < *best.lowest_peak))
        best.lowest_peak = twremat_plan->lowest_peak;
      notes.push_back(fmt::format("twremat: {} ({})", to_string(twremat_plan->status), twremat_plan->note));
    }
    auto id = [](NodeId x) { return x; };
    const auto root_parts = partitionings(tree.root);
    const bool flat = flat_applies();
    // With the flat MILP, the H-ILP solves share half the top's time where the limit is long enough
    // for the MILP, started from their best plan, to improve it in the other half (measured on a
    // 91-node transformer at 60 %, 30 s: 3.04 % with an equal share for the MILP and no start, 1.14 %
    // so); under a short limit every top solve gets an equal share.
    const double hilp_time = !flat ? top_left()
                             : flat_gets_time() ? 0.5 * top_left()
                                                : top_left() * static_cast<double>(root_parts.size()) /
                                                      static_cast<double>(root_parts.size() + 1);
    const auto hilp_start = Clock::now();
    for (size_t i = 0; i < root_parts.size(); ++i) {
      const auto& p = root_parts[i];
      double limit = std::min(top_left(), (hilp_time - since(hilp_start)) / static_cast<double>(root_parts.size() - i));
      std::string who = fmt::format("hilp ({}, {} parts)", p.partitioner, p.parts.size());
      if (limit < 0.1) {
        notes.push_back(who + ": not solved, no time left");
        continue;
      }
      if (opt.progress) opt.progress->phase("top: " + who);
      hierarchy::HGraph hg = hierarchy::build_hgraph(g, parts(p, id, id, budget));
      hierarchy::HilpResult r = run(hg, budget, opt.save_budget, limit, rep.top);
      ++rep.top_solves;
      if (r.has_schedule) offer(std::move(r.schedule), who, std::nullopt);
      else notes.push_back(fmt::format("{}: {}{}", who, to_string(r.status), r.note.empty() ? "" : " (" + r.note + ")"));
    }
    // One flat solve's failure (CBC ending in an error state) must not discard the plans in hand.
    auto offer_flat = [&](const std::string& who, auto solve) {
      try {
        Plan cm = solve();
        if (cm.has_schedule) offer(std::move(cm.schedule), who, cm.bound);
        else notes.push_back(fmt::format("{}: {}{}", who, to_string(cm.status), cm.note.empty() ? "" : " (" + cm.note + ")"));
        if (!cm.has_schedule && cm.bound) lower = std::max(lower.value_or(*cm.bound), *cm.bound);
        if (cm.status == PlanStatus::Infeasible) proof = cm.note;
      } catch (const SolverFailure& e) {
        notes.push_back(who + ": " + e.what());
      }
    };
    if (flat && top_left() > 0.5) {
      SolveOptions o = opt;
      o.threads = threads;
      o.time_limit = top_left();
      offer_flat("checkmate (flat)", [&] {
        return CheckmateSolver().solve_from(g, budget, o, best.has_schedule ? &best.schedule : nullptr);
      });
    }
    if (flat_alone.valid()) offer_flat("checkmate (flat, from scratch)", [&] { return flat_alone.get(); });
    if (!best.has_schedule) {
      // "Infeasible" only on the flat MILP's proof for the graph; the H-ILP's options and the
      // heuristics that found nothing prove nothing, nor does a solve cut by the time limit.
      if (proof) best.status = PlanStatus::Infeasible;
      else if (rep.top.timed_out > 0 || left() <= 0.5) best.status = PlanStatus::TimedOut;
      best.note = fmt::format("{} {} bytes{}{}", proof ? "no plan fits" : "no plan found within", budget,
                              best.status == PlanStatus::TimedOut ? " within the time limit" : "",
                              notes.empty() ? "" : ": ");
      for (size_t i = 0; i < notes.size(); ++i) best.note += (i ? "; " : "") + notes[i];
    } else {
      best.lowest_peak.reset();  // meaningful without a plan only
      best.note = fmt::format("best plan: {}", rep.winner);
      if (lower && *lower <= best_time && (!loss_bound || *lower > loss_bound->time)) {
        best.bound = lower;
        best.note += "; bound: the flat MILP's (RK-Checkmate's model, forward order fixed)";
      } else if (loss_bound) {
        best.bound = loss_bound->time;
        best.note += fmt::format("; bound: what the budget cannot hold while the loss runs ({} of {} bytes the "
                                 "backward reads) must be recomputed",
                                 std::max<int64_t>(0, loss_bound->needed - loss_bound->held_at_loss),
                                 loss_bound->needed);
      }
    }
    return best;
  }
};

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
  // The levels below the top share two thirds of the time (a third, see below), each representative an equal part of
  // what is left when its turn comes (what a quick one leaves flows to the next).
  // TW-Remat on the whole graph comes first, with up to 40 % of the time: at 5,000 nodes it needs
  // about a minute and gives a plan the H-ILP cannot match in the time left (measured: transformer
  // of 4,991 nodes, 0.11 % against 13.26 % when it had only a tenth of the top's time); on small
  // graphs it takes milliseconds.
  if (popt.twremat_at_top) {
    if (opt.progress) opt.progress->phase("TW-Remat on the whole graph");
    SolveOptions o = opt;
    o.time_limit = std::max(0.05, 0.4 * opt.time_limit);
    p.twremat_plan = TwRematSolver().solve(g, budget, o);
  }
  // Where the flat MILP gets its time at the top, the levels get a third, so that the MILP, started
  // from the hierarchy's plan, has half of the rest to improve it.
  const double levels_share = p.flat_gets_time() ? 1.0 / 3 : 2.0 / 3;
  const auto levels_deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                  std::chrono::duration<double>(std::max(0.0, p.left()) * levels_share));
  // Heights: a representative can be solved once the representatives its parts use are; those of
  // one height are independent and go to `workers` threads (CBC then gets one thread each).
  std::map<int, int> height;
  std::map<int, std::vector<int>> by_height;
  for (int c : p.tree.bottom_up()) {
    if (c == p.tree.root) continue;
    int h = 0;
    for (const auto& part_set : p.tree.cluster(c).partitionings)
      for (const auto& part : part_set.parts)
        if (!part.leaf()) h = std::max(h, height.at(p.tree.representative_of(part.cluster)) + 1);
    height[c] = h;
    by_height[h].push_back(c);
  }
  // Where the flat MILP gets time and there are two threads or more, one of them runs the flat MILP
  // from scratch for the whole limit beside the hierarchy, whose warm-started MILP at the top it
  // complements: CBC's search from the hierarchy's plan can settle worse than its own, and elsewhere
  // the start is what helps. Measured, `--solver hiremate`, 60 s, before -> after: 85-node
  // encoder-decoder at 50 % 8.55 -> 7.45 %, its tiny variant (tests/support) 7.41 -> 6.97, 2-layer
  // transformer at 50 % 7.70 -> 7.64 (the optimum), 65-node U-Net at 60 % 10.88 -> 10.67, 6-layer
  // transformer at 60 % 0.79 -> 0.62, 3-layer 1.14 both; the encoder-decoder at 60 % 2.32 -> 2.43
  // (won by the warm-started MILP, which now has one thread, not two).
  p.threads = std::max(1, opt.threads);
  if (p.flat_gets_time() && opt.threads >= 2) {
    SolveOptions o = opt;
    o.threads = 1;
    o.verbose = false;
    o.progress = nullptr;  // beside the others: its phases would hide theirs (its plan is offered at the top)
    o.time_limit = std::max(0.05, p.left());
    p.flat_alone = std::async(std::launch::async, [&g, budget, o] { return CheckmateSolver().solve(g, budget, o); });
    p.threads = opt.threads - 1;
  }
  const int workers = p.threads;
  p.hilp_threads = workers > 1 ? 1 : p.threads;
  size_t remaining = height.size();
  if (opt.progress) opt.progress->phase(fmt::format("levels: menus of {} clusters", height.size()));
  for (const auto& [h, reps] : by_height) {
    std::atomic<size_t> next{0};
    std::exception_ptr failure;
    auto work = [&] {
      try {
        for (size_t i = next++; i < reps.size(); i = next++) {
          double left = std::chrono::duration<double>(levels_deadline - Clock::now()).count();
          // An equal share of what is left for the representatives not started yet, per worker.
          double share = left * workers / static_cast<double>(remaining - i);
          p.solve_cluster(reps[i], std::max(0.0, share), levels_deadline);
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(p.mu);
        if (!failure) failure = std::current_exception();
      }
    };
    std::vector<std::thread> pool;
    for (int w = 1; w < std::min<int>(workers, static_cast<int>(reps.size())); ++w) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
    remaining -= reps.size();
  }
  p.hilp_threads = p.threads;
  const auto top_start = Clock::now();
  Plan out = p.top(budget);
  p.rep.top.seconds = since(top_start);
  p.rep.seconds = since(p.start);
  out.note += fmt::format("; {} clusters ({} solved), {} H-ILP solves, partitioned in {:.2f} s", p.rep.clusters,
                          p.rep.solved.size(), p.rep.hilp_solves, p.rep.partition_seconds);
  if (p.rep.rejected > 0) out.note += fmt::format("; {} extracted schedules rejected by the simulator", p.rep.rejected);
  p.rep.top.units = g.compute.size();
  if (opt.verbose)
    for (const auto& line : p.rep.level_lines()) std::cerr << "planner: " << line << "\n";
  if (report) *report = p.rep;
  return out;
}

std::vector<std::string> PlannerReport::level_lines() const {
  std::map<int, ClusterReport> levels;
  std::map<int, int> count;
  for (const ClusterReport& c : solved) {
    ClusterReport& l = levels[c.level];
    ++count[c.level];
    l.units = std::max(l.units, c.units);
    l.solves += c.solves;
    l.optimal += c.optimal;
    l.timed_out += c.timed_out;
    l.infeasible += c.infeasible;
    l.max_vars = std::max(l.max_vars, c.max_vars);
    l.max_rows = std::max(l.max_rows, c.max_rows);
    l.options += c.options;
    l.seconds += c.seconds;
  }
  std::vector<std::string> out;
  out.push_back(fmt::format("top: {} H-ILP solves ({} optimal, {} timed out, {} infeasible; largest {} vars, {} rows), "
                            "{:.2f} s; returned {}",
                            top.solves, top.optimal, top.timed_out, top.infeasible, top.max_vars, top.max_rows,
                            top.seconds, winner.empty() ? "nothing" : winner));
  for (const auto& [level, l] : levels)
    out.push_back(fmt::format("level {}: {} clusters (up to {} units), {} H-ILP solves ({} optimal, {} timed out, {} "
                              "infeasible; largest {} vars, {} rows), {} options, {:.2f} s",
                              level, count.at(level), l.units, l.solves, l.optimal, l.timed_out, l.infeasible, l.max_vars,
                              l.max_rows, l.options, l.seconds));
  return out;
}

std::string HierarchicalSolver::description() const {
  return name_ == "hilp" ? "HiRemate's H-ILP on bottom_to_top's cluster tree"
                         : "HiRemate: every partitioner, H-ILP at every level, TW-Remat beside it at the top";
}

std::optional<std::string> HierarchicalSolver::unsupported(const Graph& g) const {
  if (!g.is_training() && !popt_.dag_solver_for_generic_dags)
    return std::string("it needs a training graph (forward, loss, backward); use dagremat for generic DAGs");
  return std::nullopt;
}

Plan HierarchicalSolver::solve(const Graph& g, int64_t budget, const SolveOptions& opt) const {
  // A generic DAG has no forward/backward structure to partition: the fixed-order solver plans it.
  if (!g.is_training() && popt_.dag_solver_for_generic_dags) {
    auto by_dagremat = [](Plan p) {
      p.note = "generic DAG, planned by dagremat" + std::string(p.note.empty() ? "" : ": ") + p.note;
      return p;
    };
    const double build = checkmate_build_seconds(g);
    if (opt.verbose)
      std::cerr << fmt::format("hiremate: generic DAG, its flat MILP would build in about {:.2f} s\n", build);
    if (build <= kDagMilpBuildShare * opt.time_limit) {
      const auto t0 = Clock::now();
      SolveOptions o = opt;
      o.time_limit = kDagRematShare * opt.time_limit;
      if (opt.progress) opt.progress->phase("dagremat");
      Plan d = DagRematSolver().solve(g, budget, o);
      if (d.status == PlanStatus::Optimal || d.status == PlanStatus::Infeasible) return d;
      // CBC's end and the final checks overrun a little: the margin.
      o.time_limit = kLimitMargin * opt.time_limit - std::chrono::duration<double>(Clock::now() - t0).count();
      if (o.time_limit > 0.5) {
        try {
          Plan c = CheckmateSolver().solve_from(g, budget, o, d.has_schedule ? &d.schedule : nullptr);
          // Its proof is one for the graph (the fixed order is a generic DAG's own): said as such.
          if (c.status == PlanStatus::Infeasible) {
            c.note = "generic DAG: dagremat found no plan, and checkmate's MILP " + c.note;
            return c;
          }
          // solve_from never returns a plan slower than its start; the check says so if it did.
          if (c.has_schedule && (!d.has_schedule || simulate(g, c.schedule).time <= simulate(g, d.schedule).time)) {
            if (d.bound && (!c.bound || *d.bound > *c.bound)) c.bound = d.bound;
            c.note = "generic DAG, planned by dagremat then checkmate's MILP from its plan: " + c.note;
            return c;
          }
        } catch (const SolverFailure& e) {
          d.note += std::string("; checkmate after it failed: ") + e.what();
        }
      }
      return by_dagremat(std::move(d));
    }
    return by_dagremat(DagRematSolver().solve(g, budget, opt));
  }
  return plan(g, budget, opt, popt_);
}

}  // namespace hiremate::planner
