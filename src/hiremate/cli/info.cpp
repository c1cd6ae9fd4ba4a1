// `hiremate info GRAPH`: what the graph holds and the budgets relative to its baseline.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "hiremate/cli/commands.h"
#include "hiremate/common/deadline.h"
#include "hiremate/common/units.h"
#include "hiremate/schedule/lower_bound.h"
#include "hiremate/solvers/dagremat/pebbling_bound.h"
#include "hiremate/solvers/min_budget.h"
#include "hiremate/solvers/solver.h"

namespace hiremate::cli {

namespace {
constexpr double kBoundSeconds = 2;  // per budget, at most: the bound's dual stops there on the largest graphs
}  // namespace

Runner add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "describe a graph: nodes, edges, kinds, baseline peak and time, "
                                         "budgets at 90/80/70 % (on training graphs with the least overhead any plan can have there), the floor below which no schedule exists and the node that sets it, and "
                                         "on generic DAGs a budget from which a plan is known to exist "
                                         "(bytes of activations: the sources excluded; % of the keep-all activation peak)");
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
    // Activation bytes (solvers/min_budget.h): the sources excluded, percentages of the keep-all
    // activation peak. A graph without sources (the public benchmark graphs) reads as its baseline
    // peak: their published budgets, ceil(p x peak(order)), come out unchanged.
    const int64_t source_bytes = g.source_bytes();
    const int64_t keep_all = b.peak - source_bytes;
    // Generic DAGs: from this budget on a plan exists (dagremat/pebbling_bound.h, or keep-all); between the floor and
    // it, whether one does is open.
    std::optional<int64_t> plan_exists_from;
    if (!g.is_training()) plan_exists_from = std::min(keep_all, dagremat::recursive_pebbling_bound(FixedOrderDag(g)).bytes);
    auto percent = [keep_all](int64_t bytes) { return 100.0 * static_cast<double>(bytes) / static_cast<double>(std::max<int64_t>(1, keep_all)); };
    nlohmann::ordered_json budgets;
    for (int p : {90, 80, 70}) budgets[std::to_string(p)] = parse_activation_budget(std::to_string(p) + "%", g);
    // Training graphs: the least overhead any plan can have at each of those budgets (lower_bound.h:
    // valid for every schedule, whatever the solver), so that a user sees what a budget costs at least.
    nlohmann::ordered_json least;
    if (g.is_training())
      for (int p : {90, 80, 70}) {
        const int64_t act = budgets[std::to_string(p)].get<int64_t>();
        const auto sb = schedule_bound(g, act + source_bytes, Deadline(kBoundSeconds).end());
        if (sb && b.time > 0) least[std::to_string(p)] = 100.0 * (sb->time / b.time - 1);
      }
    if (*json) {
      nlohmann::ordered_json out;
      out["graph"] = g.name;
      out["file"] = args->path;
      out["type"] = g.is_training() ? "training" : "generic";
      out["nodes"] = g.compute.size();
      out["edges"] = g.num_edges();
      out["data_nodes"] = g.data.size();
      out["sources"] = sources;
      out["source_bytes"] = source_bytes;
      out["units"] = std::string("activation bytes: the sources (inputs) excluded; budgets ") + kActivationConvention;
      out["kinds"] = kinds;
      out["baseline_peak"] = keep_all;  // the keep-all activation peak
      out["baseline_time"] = b.time;
      out["sum_time"] = sum_time;
      out["time_unit"] = g.time_unit;
      out["budgets"] = budgets;
      if (!least.empty()) out["least_overhead_percent"] = least;  // a lower bound per budget, over keep-all's time
      out["min_budget"] = mb.activations();  // below it no schedule exists (solve exits 3)
      out["min_budget_percent"] = min_budget_percent(g, mb);  // of the keep-all activation peak
      out["min_budget_node"] = g.compute[mb.node].name;
      out["min_budget_why"] = mb.why(g);
      if (plan_exists_from) {  // generic DAGs: a plan exists at this budget and above
        out["plan_exists_from"] = *plan_exists_from;
        out["plan_exists_from_percent"] = percent(*plan_exists_from);
      }
      out["memory_model"] = memory_model(g);
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    std::string kind_list;
    for (const auto& [k, n] : kinds) kind_list += fmt::format("{}{} {}", kind_list.empty() ? "" : ", ", n, k);
    fmt::print("graph          {} ({})\n", g.name, args->path);
    fmt::print("type           {}\n", g.is_training() ? "training graph" : "generic DAG");
    fmt::print("compute nodes  {}\nedges          {}\ndata nodes     {} ({} sources, {} B)\nkinds          {}\n",
               g.compute.size(), g.num_edges(), g.data.size(), sources, group_digits(source_bytes), kind_list);
    fmt::print("bytes          of activations: the sources (inputs) excluded; budgets {}\n", kActivationConvention);
    fmt::print("baseline peak  {} bytes ({}) of activations, the keep-all peak{}\nbaseline time  {} {}\n",
               group_digits(keep_all), format_bytes(keep_all),
               source_bytes > 0 ? fmt::format(" ({} bytes with the sources)", group_digits(b.peak)) : "",
               format_quantity(b.time), g.time_unit);
    for (int p : {90, 80, 70}) {
      const std::string key = std::to_string(p);
      fmt::print("budget {} %    {} bytes{}\n", p, group_digits(budgets[key].get<int64_t>()),
                 least.contains(key) ? fmt::format(": every plan at least +{:.2f} % time (a lower bound)",
                                                   least[key].get<double>())
                                     : "");
    }
    // A floor, not a promise on generic DAGs (schedule/min_budget.h): "min" asks for a plan there.
    fmt::print("min budget     {} bytes: {:.1f} % {} (below it no schedule exists; --budget min {} there)\n"
               "               set by {}\n",
               group_digits(mb.activations()), min_budget_percent(g, mb), kActivationConvention,
               g.is_training() ? "plans" : "looks for a plan", mb.why(g));
    if (plan_exists_from)
      fmt::print("plan exists    from {} bytes: {:.1f} % (recomputing each node's cone from nothing, one input at a time, "
                 "fits there; its recomputations grow exponentially with the depth; between the min budget and this, "
                 "whether a plan exists is open)\n",
                 group_digits(*plan_exists_from), percent(*plan_exists_from));
    fmt::print("memory model   {}\n", memory_model(g));
    return 0;
  };
}

}  // namespace hiremate::cli
