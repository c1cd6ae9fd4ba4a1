// `hiremate info GRAPH`: what the graph holds and the budgets relative to its baseline.
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "hiremate/cli/commands.h"
#include "hiremate/common/units.h"
#include "hiremate/solvers/min_budget.h"
#include "hiremate/solvers/solver.h"

namespace hiremate::cli {

Runner add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "describe a graph: nodes, edges, kinds, baseline peak and time, "
                                         "budgets at 90/80/70 %, the floor below which no schedule exists and the node that sets it");
  auto args = std::make_shared<GraphArgs>();
  auto json = std::make_shared<bool>(false);
  args->add_to(*cmd);
  cmd->add_flag("--json", *json, "print JSON on stdout");
  return [cmd, args, json]() {
    if (!cmd->parsed()) return -1;
    Graph g = args->load();
    Baseline b = baseline(g);
    std::map<std::string, int> kinds;
    int sources = 0;
    double sum_time = 0;
    for (const auto& c : g.compute) {
      ++kinds[to_string(c.kind)];
      sum_time += c.time;
    }
    for (const auto& d : g.data) {
      ++kinds[to_string(d.kind)];
      sources += d.source;
    }
    const MinBudget mb = min_budget_details(g);
    nlohmann::ordered_json budgets;
    for (int p : {90, 80, 70}) budgets[std::to_string(p)] = ceil_fraction(b.peak, p, 2);
    if (*json) {
      nlohmann::ordered_json out;
      out["graph"] = g.name;
      out["file"] = args->path;
      out["type"] = g.is_training() ? "training" : "generic";
      out["nodes"] = g.compute.size();
      out["edges"] = g.num_edges();
      out["data_nodes"] = g.data.size();
      out["sources"] = sources;
      out["kinds"] = kinds;
      out["baseline_peak"] = b.peak;
      out["baseline_time"] = b.time;
      out["sum_time"] = sum_time;
      out["time_unit"] = g.time_unit;
      out["budgets"] = budgets;
      out["min_budget"] = mb.bytes;  // below it no schedule exists (solve exits 3)
      out["min_budget_activations"] = mb.activations();  // the same, inputs (sources) excluded
      out["min_budget_percent"] = min_budget_percent(g, mb);  // of the keep-all activation peak
      out["min_budget_node"] = g.compute[mb.node].name;
      out["min_budget_why"] = mb.why(g);
      out["memory_model"] = memory_model(g);
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    std::string kind_list;
    for (const auto& [k, n] : kinds) kind_list += fmt::format("{}{} {}", kind_list.empty() ? "" : ", ", n, k);
    fmt::print("graph          {} ({})\n", g.name, args->path);
    fmt::print("type           {}\n", g.is_training() ? "training graph" : "generic DAG");
    fmt::print("compute nodes  {}\nedges          {}\ndata nodes     {} ({} sources)\nkinds          {}\n",
               g.compute.size(), g.num_edges(), g.data.size(), sources, kind_list);
    fmt::print("baseline peak  {} bytes ({})\nbaseline time  {} {}\n", group_digits(b.peak), format_bytes(b.peak),
               format_quantity(b.time), g.time_unit);
    for (int p : {90, 80, 70})
      fmt::print("budget {} %    {} bytes\n", p, group_digits(budgets[std::to_string(p)].get<int64_t>()));
    fmt::print("min budget     {} bytes (below it no schedule exists; --budget min plans there)\n"
               "               {} B of activations: {:.1f} % of the keep-all activation peak (inputs excluded)\n"
               "               set by {}, plus the sources' {} B\n",
               group_digits(mb.bytes), group_digits(mb.activations()), min_budget_percent(g, mb), mb.why(g),
               group_digits(mb.sources));
    fmt::print("memory model   {}\n", memory_model(g));
    return 0;
  };
}

}  // namespace hiremate::cli
