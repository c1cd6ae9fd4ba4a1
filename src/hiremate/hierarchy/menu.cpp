#include "hiremate/hierarchy/menu.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "hiremate/common/error.h"
#include "hiremate/schedule/min_budget.h"

namespace hiremate::hierarchy {

namespace {

bool is_baseline(const Option& o) { return o.solver == "autograd" || o.solver == "recompute_all"; }
double total_time(const Option& o) { return o.fwd_time + o.bwd_time; }
int64_t fwd_peak(const Option& o) { return o.mem + o.fwd_overhead; }
int64_t bwd_peak(const Option& o) { return o.mem + o.bwd_overhead; }

// Times are sums of the same node times in different orders: equal up to rounding.
bool time_le(double a, double b) { return a <= b + 1e-9 * (1 + std::abs(b)); }
bool time_eq(double a, double b) { return time_le(a, b) && time_le(b, a); }

bool subset(const std::vector<NodeId>& a, const std::vector<NodeId>& b) {  // both sorted
  return std::includes(b.begin(), b.end(), a.begin(), a.end());
}

// b dominates a: no worse on every axis, better on one.
bool dominates(const Option& b, const Option& a) {
  if (!time_le(total_time(b), total_time(a)) || b.mem > a.mem || fwd_peak(b) > fwd_peak(a) ||
      bwd_peak(b) > bwd_peak(a) || !subset(b.dep_interfaces_data, a.dep_interfaces_data))
    return false;
  return !time_eq(total_time(b), total_time(a)) || b.mem < a.mem || fwd_peak(b) < fwd_peak(a) ||
         bwd_peak(b) < bwd_peak(a) || b.dep_interfaces_data.size() < a.dep_interfaces_data.size();
}

// n evenly spread integers from lo to hi (hi first when `descending`), distinct.
std::vector<int64_t> linspace(int64_t lo, int64_t hi, int n, bool descending) {
  std::vector<int64_t> v;
  if (hi < lo) std::swap(lo, hi);
  for (int i = 0; i < n; ++i) {
    double f = n == 1 ? 1.0 : static_cast<double>(i) / (n - 1);
    v.push_back(lo + static_cast<int64_t>(std::llround(f * static_cast<double>(hi - lo))));
  }
  v.erase(std::unique(v.begin(), v.end()), v.end());
  if (descending) std::reverse(v.begin(), v.end());
  return v;
}

// The lower convex hull of the kept options on (mem, total time), as indices by increasing mem.
std::vector<size_t> lower_hull(const std::vector<Option>& options, const std::vector<char>& keep) {
  std::vector<size_t> pts;
  for (size_t i = 0; i < options.size(); ++i)
    if (keep[i]) pts.push_back(i);
  std::sort(pts.begin(), pts.end(), [&](size_t a, size_t b) {
    return options[a].mem != options[b].mem ? options[a].mem < options[b].mem
                                            : total_time(options[a]) < total_time(options[b]);
  });
  std::vector<size_t> hull;
  auto x = [&](size_t i) { return static_cast<double>(options[i].mem); };
  auto y = [&](size_t i) { return total_time(options[i]); };
  for (size_t p : pts) {
    if (!hull.empty() && options[hull.back()].mem == options[p].mem) continue;  // the faster of equal mems
    // Pops the last point while it is not strictly below the segment from its predecessor to p.
    while (hull.size() >= 2) {
      const size_t a = hull[hull.size() - 2], b = hull.back();
      const double cross = (x(b) - x(a)) * (y(p) - y(a)) - (y(b) - y(a)) * (x(p) - x(a));
      if (cross > 0) break;
      hull.pop_back();
    }
    hull.push_back(p);
  }
  return hull;
}

// The hull's time at `mem` (linear between its points; outside them, infinity).
double hull_time_at(const std::vector<Option>& options, const std::vector<size_t>& hull, int64_t mem) {
  if (hull.empty() || mem < options[hull.front()].mem || mem > options[hull.back()].mem)
    return std::numeric_limits<double>::infinity();
  size_t j = 0;
  while (j + 1 < hull.size() && options[hull[j + 1]].mem < mem) ++j;
  if (j + 1 == hull.size() || options[hull[j]].mem == mem) return total_time(options[hull[j]]);
  const Option &a = options[hull[j]], &b = options[hull[j + 1]];
  const double f = static_cast<double>(mem - a.mem) / static_cast<double>(b.mem - a.mem);
  return total_time(a) + f * (total_time(b) - total_time(a));
}

}  // namespace

std::vector<Option> prune_options(std::vector<Option> options) {
  std::vector<char> drop(options.size(), 0);
  for (size_t i = 0; i < options.size(); ++i) {
    if (is_baseline(options[i])) continue;
    for (size_t j = 0; j < options.size() && !drop[i]; ++j) {
      if (j == i || drop[j]) continue;
      const Option &a = options[i], &b = options[j];
      // A duplicate goes when the other is a baseline or comes first.
      bool duplicate = time_eq(total_time(a), total_time(b)) && a.mem == b.mem && (is_baseline(b) || j < i);
      if (duplicate || dominates(b, a)) drop[i] = 1;
    }
  }
  std::vector<Option> out;
  for (size_t i = 0; i < options.size(); ++i)
    if (!drop[i]) out.push_back(std::move(options[i]));
  return out;
}

Menu build_menu(const ClusterProblem& cg, const MenuOptions& opt) {
  if (opt.peak_points < 1 || opt.save_points < 1)
    throw BadInput(fmt::format("menu: peak_points ({}) and save_points ({}) must be at least 1", opt.peak_points,
                               opt.save_points));
  if (!(opt.time_limit > 0)) throw BadInput(fmt::format("menu: time_limit must be positive, not {}", opt.time_limit));
  const auto& solvers = opt.solvers;
  for (const auto& solver : solvers)
    if (!solver) throw BadInput("menu: a bottom solver is missing (null)");

  auto start = std::chrono::steady_clock::now();
  Menu menu;
  std::vector<Option> all{autograd_option(cg), recompute_all_option(cg)};
  const Graph& g = cg.graph;
  const int64_t save_hi = simulate(g, cluster_schedule(cg, all[0])).bytes_at_loss;
  const int64_t save_lo = simulate(g, cluster_schedule(cg, all[1])).bytes_at_loss;
  const int64_t peak_lo = std::min(min_budget(g), all[0].peak);
  std::vector<int64_t> peaks = linspace(peak_lo, all[0].peak, opt.peak_points, false);

  std::vector<Option> found;
  for (const auto& solver : solvers) {
    if (auto why = solver->unsupported(g)) {
      menu.notes.push_back(fmt::format("{} does not apply to {}: {}", solver->name(), g.name, *why));
      continue;
    }
    for (int64_t peak : peaks) {
      for (int64_t save : linspace(save_lo, std::min(peak, save_hi), opt.save_points, true)) {
        const double left = opt.deadline == std::chrono::steady_clock::time_point::max()
                                ? opt.time_limit
                                : std::chrono::duration<double>(opt.deadline - std::chrono::steady_clock::now()).count();
        if (left < 0.05) {
          menu.notes.push_back("no time left before the menu's deadline");
          break;
        }
        SolveOptions so;
        so.time_limit = std::min(opt.time_limit, left);
        so.threads = opt.threads;
        so.save_budget = save;
        ++menu.solves;
        Plan plan;
        try {
          plan = solve_checked(*solver, g, peak, so);
        } catch (const Error& e) {
          menu.notes.push_back(fmt::format("{} at peak {} / save {} bytes failed: {}", solver->name(), peak, save,
                                           e.what()));
          break;
        }
        if (opt.verbose)
          fmt::print(stderr, "menu {}: {} peak {} save {}: {} ({:.2f} s)\n", g.name, solver->name(), peak, save,
                     to_string(plan.status), plan.solve_seconds);
        if (!plan.has_schedule) {
          menu.notes.push_back(fmt::format("{} at peak {} / save {} bytes: {}{}{}", solver->name(), peak, save,
                                           to_string(plan.status), plan.note.empty() ? "" : ": ", plan.note));
          break;  // a smaller save budget would not fit either
        }
        found.push_back(make_option(cg, plan));
      }
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const Option& a, const Option& b) {
    return total_time(a) != total_time(b) ? total_time(a) < total_time(b) : a.mem < b.mem;
  });
  for (auto& o : found) all.push_back(std::move(o));
  menu.options = prune_options(std::move(all));
  menu.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return menu;
}

size_t option_quota(size_t cluster_size, size_t parent_size, size_t total_cap) {
  if (parent_size == 0 || cluster_size > parent_size)
    throw BadInput(fmt::format("option quota: a sub-cluster of {} nodes in sub-clusters of {} nodes in all",
                               cluster_size, parent_size));
  return std::max<size_t>(1, total_cap * cluster_size / parent_size);
}

std::vector<Option> select_options(std::vector<Option> options, size_t quota) {
  if (options.size() <= quota) return options;
  if (quota == 0) return {};
  auto better = [](const Option& a, const Option& b) {  // fastest, then least held
    return total_time(a) != total_time(b) ? total_time(a) < total_time(b) : a.mem < b.mem;
  };
  std::vector<char> keep(options.size(), 0);
  size_t fastest = 0, most = 0, least = 0;
  for (size_t i = 1; i < options.size(); ++i) {
    if (better(options[i], options[fastest])) fastest = i;
    if (options[i].mem > options[most].mem || (options[i].mem == options[most].mem && better(options[i], options[most])))
      most = i;
    if (options[i].mem < options[least].mem ||
        (options[i].mem == options[least].mem && better(options[i], options[least])))
      least = i;
  }
  size_t kept = 0;
  if (quota == 1) {
    keep[fastest] = 1;
    kept = 1;
  } else {
    keep[most] = keep[least] = 1;
    kept = most == least ? 1 : 2;
  }
  // Then, in turn, (a) the option farthest below the lower convex hull of the kept ones on (mem,
  // time), in time at its mem, and (b) farthest-point sampling on mem (§4.3). (a): where copies of a
  // cluster share a budget (the repeated layers of a transformer), the H-ILP's cheapest mixes are
  // points of that hull, which (b) alone samples by chance. hilp at 30 s, 2 threads, 500- and
  // 1,200-node graphs at 35 / 25 %: better in 9 of 12 cells, by 1.3 points on average, worse in
  // none; at 100 nodes worse in 3 of 4, by up to 1.7 (bench/results/option_selection.md).
  std::vector<int64_t> dist(options.size(), INT64_MAX);  // of each option's mem to the nearest kept one
  auto update = [&](size_t k) {
    for (size_t i = 0; i < options.size(); ++i) dist[i] = std::min(dist[i], std::abs(options[i].mem - options[k].mem));
  };
  for (size_t i = 0; i < options.size(); ++i)
    if (keep[i]) update(i);
  auto deepest_below_hull = [&] {
    const std::vector<size_t> hull = lower_hull(options, keep);
    size_t below = options.size();
    double deepest = 0;
    for (size_t i = 0; i < options.size(); ++i) {
      if (keep[i]) continue;
      const double depth = hull_time_at(options, hull, options[i].mem) - total_time(options[i]);
      if (depth > 1e-9 * (1 + std::abs(total_time(options[i]))) && depth > deepest) {
        deepest = depth;
        below = i;
      }
    }
    return below;
  };
  auto farthest = [&] {
    size_t far = options.size();
    for (size_t i = 0; i < options.size(); ++i)
      if (!keep[i] && dist[i] > 0 && (far == options.size() || dist[i] > dist[far])) far = i;
    return far;
  };
  for (bool hull_turn = true; kept < quota; hull_turn = !hull_turn) {
    size_t next = hull_turn ? deepest_below_hull() : farthest();
    if (next == options.size()) next = hull_turn ? farthest() : deepest_below_hull();
    if (next == options.size()) break;  // on the hull and at a kept mem, all of them
    keep[next] = 1;
    ++kept;
    update(next);
  }
  std::vector<Option> out;
  for (size_t i = 0; i < options.size(); ++i)
    if (keep[i]) out.push_back(std::move(options[i]));
  return out;
}

}  // namespace hiremate::hierarchy
