// `hiremate solve GRAPH --budget B --solver NAME`: plan under a budget; every plan is simulated.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "hiremate/cli/commands.h"
#include "hiremate/cli/progress.h"
#include "hiremate/common/error.h"
#include "hiremate/common/units.h"
#include "hiremate/planner/plan_with.h"
#include "hiremate/planner/registry.h"
#include "hiremate/schedule/schedule_json.h"
#include "hiremate/solvers/min_budget.h"
#include "hiremate/solvers/solver.h"

namespace hiremate::cli {

namespace {

struct SolveArgs {
  GraphArgs graph;
  std::string budget, save_budget, solver = "hiremate", schedule_out;
  SolveOptions options;
  std::vector<std::string> cbc_parameters;
  std::string dagremat_search = "mixed";
  bool json = false;
};

std::string solver_help() {
  std::string s = "solver: ";
  for (const auto& n : solver_names()) s += n + ", ";
  return s.substr(0, s.size() - 2) + " (default: hiremate, the hierarchical planner; autograd is the keep-all baseline)";
}

}  // namespace

Runner add_solve(CLI::App& app) {
  auto* cmd = app.add_subcommand("solve", "plan one training step (or a DAG) under a memory budget");
  auto a = std::make_shared<SolveArgs>();
  a->graph.add_to(*cmd);
  cmd->add_option("-b,--budget", a->budget,
                  "memory budget: bytes (41688), a size with a unit (1.5GiB, 800MB, 1.5gb: units are "
                  "case-insensitive), or a fraction of the baseline peak (0.8) or a percentage (80%); a bare "
                  "integer is bytes (--budget 50 warns: 50% was probably meant); 'min': the floor below which no schedule exists "
                  "(see `hiremate info`). Activation bytes, as everywhere in hiremate: the graph's sources (a profiled "
                  "model's inputs) excluded, and a fraction or percentage is of the keep-all activation peak; a graph "
                  "without sources (the public benchmark graphs) counts every byte")
      ->required();
  cmd->add_option("-s,--solver", a->solver, solver_help());
  cmd->add_option("--time-limit", a->options.time_limit, "wall-clock seconds for the solve (default: 60)")
      ->check(positive_number());
  cmd->add_option("--threads", a->options.threads, "solver threads (default: 2)")->check(CLI::Range(1, 256));
  cmd->add_option("--save-budget", a->save_budget,
                  "training graphs: the most bytes held at the loss (what the forward half hands the backward "
                  "half); same syntax and units as --budget");
  cmd->add_option("--schedule-out", a->schedule_out, "write the schedule (hiremate-schedule JSON) to this file");
  cmd->add_flag("-v,--verbose", a->options.verbose,
                "-v: the solvers' and the planner's own log on stderr (per-level report, phases) instead of the "
                "status line; -vv: also CBC's log");
  cmd->add_flag("--json", a->json, "print JSON on stdout");
  cmd->add_option("--cbc-parameter", a->cbc_parameters,
                  "for experiments: a CBC parameter name=value for checkmate's MILP (repeatable)")
      ->group("Experiments");
  cmd->add_option("--dagremat-search", a->dagremat_search,
                  "for experiments: dagremat's improvement search on every thread: mixed (default), annealing, "
                  "ruin-and-recreate")
      ->check(CLI::IsMember({"mixed", "annealing", "ruin-and-recreate"}))
      ->group("Experiments");
  return [cmd, a]() {
    if (!cmd->parsed()) return -1;
    if (!(a->options.time_limit > 0))  // positive_number() checks the text; this, the value
      throw BadInput(fmt::format("--time-limit: expected a positive number of seconds, got {}", a->options.time_limit));
    warn_if_bare_percentage("--budget", a->budget);
    Graph g = a->graph.load();
    Baseline b = baseline(g);
    // Every number below is in activation bytes (DESIGN §3, solvers/min_budget.h): the sources
    // excluded; the solvers and the simulator count them (`budget`, the plan's peaks).
    const int64_t sources = g.source_bytes();
    const int64_t keep_all = b.peak - sources;
    const int64_t activations = parse_activation_budget(a->budget, g);
    const int64_t budget = activations + sources;
    if (!a->save_budget.empty()) a->options.save_budget = parse_activation_budget(a->save_budget, g) + sources;
    auto percent = [&](int64_t act) { return keep_all > 0 ? 100.0 * double(act) / double(keep_all) : 0.0; };
    auto act_json = [&](std::optional<int64_t> graph_bytes) {
      return graph_bytes ? nlohmann::ordered_json(*graph_bytes - sources) : nlohmann::ordered_json();
    };
    for (const auto& p : a->cbc_parameters) {
      const size_t eq = p.find('=');
      if (eq == std::string::npos || eq == 0)
        throw BadInput(fmt::format("--cbc-parameter: expected name=value, got '{}'", p));
      a->options.cbc_parameters.emplace_back(p.substr(0, eq), p.substr(eq + 1));
    }
    using Search = SolveOptions::DagRematSearch;
    a->options.dagremat_search = a->dagremat_search == "annealing"           ? Search::Annealing
                                 : a->dagremat_search == "ruin-and-recreate" ? Search::RuinAndRecreate
                                                                             : Search::Mixed;
    Plan plan = [&] {
      // -v has the solver's own log on stderr: no status line between its lines.
      a->options.progress = std::make_shared<Progress>();
      a->options.progress->baseline(b.time);
      Ticker ticker(fmt::format("hiremate: solving with {}", a->solver), a->options.time_limit, !a->options.verbose,
                    a->options.progress);
      return planner::plan_with(a->solver, g, budget, a->options);
    }();
    bool ok = plan.has_schedule;
    double overhead = ok && b.time > 0 ? 100.0 * (plan.sim.time - b.time) / b.time : 0.0;
    std::optional<double> gap;
    if (ok && plan.bound && plan.sim.time > 0) gap = (plan.sim.time - *plan.bound) / plan.sim.time;
    if (ok && !a->schedule_out.empty()) save_schedule(g, plan.schedule, a->schedule_out);
    if (a->json) {
      nlohmann::ordered_json out;
      out["graph"] = g.name;
      out["solver"] = plan.solver;
      out["status"] = to_string(plan.status);
      out["valid"] = ok && plan.sim.valid;
      // Activation bytes (the sources excluded), as the budget was given; add source_bytes for the graph's.
      out["units"] = std::string("activation bytes: the graph's sources (inputs) excluded; percentages ") +
                     kActivationConvention;
      out["budget"] = activations;
      out["budget_percent"] = percent(activations);
      out["source_bytes"] = sources;
      out["peak"] = act_json(ok ? std::optional<int64_t>(plan.sim.peak) : std::nullopt);
      out["time"] = ok ? nlohmann::ordered_json(plan.sim.time) : nlohmann::ordered_json();
      out["baseline_peak"] = keep_all;  // the keep-all activation peak
      out["baseline_time"] = b.time;
      out["overhead_percent"] = ok ? nlohmann::ordered_json(overhead) : nlohmann::ordered_json();
      out["bound"] = plan.bound ? nlohmann::ordered_json(*plan.bound) : nlohmann::ordered_json();
      out["gap"] = gap ? nlohmann::ordered_json(*gap) : nlohmann::ordered_json();
      if (plan.model_bound) out["model_bound"] = *plan.model_bound;
      if (plan.optimal_in_model) out["optimal_in_model"] = true;  // over the order the note names
      out["solve_seconds"] = plan.solve_seconds;
      out["recomputations"] = ok ? plan.sim.recomputations : 0;
      out["bytes_at_loss"] = act_json(ok ? std::optional<int64_t>(plan.sim.bytes_at_loss) : std::nullopt);
      if (a->options.save_budget) out["save_budget"] = *a->options.save_budget - sources;
      out["lowest_peak"] = act_json(plan.lowest_peak);
      out["note"] = plan.note;
      out["memory_model"] = memory_model(g);
      std::cout << out.dump(2) << "\n";
    } else {
      fmt::print("solver         {} ({})\n", plan.solver, to_string(plan.status));
      fmt::print("budget         {} bytes of activations ({}, {:.1f} % of the keep-all activation peak {} bytes, "
                 "inputs excluded)\n",
                 group_digits(activations), format_bytes(activations), percent(activations), group_digits(keep_all));
      if (sources > 0)
        fmt::print("               the inputs' {} B come on top: the graph holds at most {} bytes\n",
                   group_digits(sources), group_digits(budget));
      if (ok) {
        fmt::print("peak           {} bytes of activations ({:.1f} % {}), simulated: valid\n",
                   group_digits(plan.sim.peak - sources), percent(plan.sim.peak - sources), kActivationConvention);
        fmt::print("time           {} {} (baseline {}, overhead {:.2f} %), {} recomputations\n",
                   format_quantity(plan.sim.time), g.time_unit, format_quantity(b.time), overhead,
                   plan.sim.recomputations);
        if (plan.bound)
          fmt::print("bound          {} (gap {:.2f} %)\n", format_quantity(*plan.bound), gap ? *gap * 100 : 0.0);
      }
      // The solvers' notes count the graph's bytes: the inputs included.
      if (!plan.note.empty())
        fmt::print("note           {}{}\n",
                   sources > 0 && plan.note.find("byte") != std::string::npos ? "(the solver's bytes, with the inputs) " : "",
                   tidy_numbers(plan.note));
      fmt::print("solve time     {}\n", format_seconds(plan.solve_seconds));
    }
    // Exit 3 only on a proof that no schedule fits (the floor, an exact solver's proof for this
    // graph); a solver that gave up, or ran out of time, says "no plan found" with exit 4.
    if (plan.status == PlanStatus::Infeasible) {
      std::cerr << fmt::format("hiremate: infeasible: no plan within {} bytes of activations (inputs excluded) exists "
                               "(solver '{}'){}{}\n", group_digits(activations), plan.solver, plan.note.empty() ? "" : ": ",
                               tidy_numbers(plan.note));
      return 3;
    }
    if (!ok) {
      std::string lowest = plan.lowest_peak ? fmt::format("; the lowest peak it reached is {} bytes of activations "
                                                          "({:.1f} % {})", group_digits(*plan.lowest_peak - sources),
                                                          percent(*plan.lowest_peak - sources), kActivationConvention)
                                            : "";
      std::cerr << fmt::format("hiremate: no plan found: solver '{}' ({}) found none within {}, which is not a "
                               "proof that none exists{}{}{}; another --solver{}, or a larger --budget, may find one\n",
                               plan.solver, to_string(plan.status), group_digits(activations) + " bytes of activations", plan.note.empty() ? "" : ": ",
                               tidy_numbers(plan.note),
                               lowest, plan.status == PlanStatus::TimedOut ? ", a longer --time-limit" : "");
      return 4;
    }
    return 0;
  };
}

}  // namespace hiremate::cli
