#include "hiremate/solvers/planner_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace hiremate {

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
    l.reused += c.reused;
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
                              "infeasible; largest {} vars, {} rows; {} grid points decided by an earlier solve), {} "
                              "options, {:.2f} s",
                              level, count.at(level), l.units, l.solves, l.optimal, l.timed_out, l.infeasible, l.max_vars,
                              l.max_rows, l.reused, l.options, l.seconds));
  return out;
}

}  // namespace hiremate
