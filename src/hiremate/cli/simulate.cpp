// `hiremate simulate GRAPH SCHEDULE`: the simulator's verdict on a schedule file.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "hiremate/cli/commands.h"
#include "hiremate/common/error.h"
#include "hiremate/common/units.h"
#include "hiremate/schedule/schedule_json.h"
#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/solver.h"

namespace hiremate::cli {

Runner add_simulate(CLI::App& app) {
  auto* cmd = app.add_subcommand("simulate", "check a schedule against a graph: validity (or the first invalid "
                                             "op and why), peak bytes and where, total time");
  auto args = std::make_shared<GraphArgs>();
  auto schedule_path = std::make_shared<std::string>();
  auto timeline_path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  args->add_to(*cmd);
  cmd->add_option("schedule", *schedule_path, "schedule file (hiremate-schedule JSON, see docs/graph-format.md)")
      ->required();
  cmd->add_flag("--json", *json, "print JSON on stdout");
  cmd->add_option("--timeline", *timeline_path, "write the memory timeline as CSV (op,what,during,after)");
  return [=]() {
    if (!cmd->parsed()) return -1;
    Graph g = args->load();
    Schedule s = load_schedule(g, *schedule_path);
    SimResult r = simulate(g, s);
    Baseline b = baseline(g);
    if (!timeline_path->empty()) {
      std::ofstream out(*timeline_path);
      if (!out) throw BadInput("cannot write the timeline to '" + *timeline_path + "'");
      out << "op,what,during,after\n";
      for (size_t i = 0; i < r.timeline.size(); ++i)
        out << i << ",\"" << describe(g, s.ops[i]) << "\"," << r.timeline[i].during << "," << r.timeline[i].after << "\n";
    }
    double overhead = b.time > 0 ? 100.0 * (r.time - b.time) / b.time : 0.0;
    if (*json) {
      nlohmann::ordered_json out;
      out["valid"] = r.valid;
      if (!r.valid) {
        out["invalid_op"] = r.invalid_op;
        out["op"] = r.invalid_op < s.ops.size() ? describe(g, s.ops[r.invalid_op]) : "end of schedule";
        out["reason"] = r.reason;
      }
      out["ops"] = s.ops.size();
      out["peak"] = r.peak;
      out["peak_op"] = r.peak_op;
      out["time"] = r.time;
      out["recomputations"] = r.recomputations;
      out["bytes_at_loss"] = r.bytes_at_loss;
      out["baseline_peak"] = b.peak;
      out["baseline_time"] = b.time;
      out["overhead_percent"] = overhead;
      out["memory_model"] = memory_model(g);
      std::cout << out.dump(2) << "\n";
    } else {
      if (r.valid)
        fmt::print("valid schedule: {} ops, {} recomputations\n", s.ops.size(), r.recomputations);
      else
        fmt::print("INVALID at op {} ({}): {}\n", r.invalid_op,
                   r.invalid_op < s.ops.size() ? describe(g, s.ops[r.invalid_op]) : "end of schedule", r.reason);
      fmt::print("peak           {} bytes ({}) at op {} ({}){}\n", r.peak, format_bytes(r.peak), r.peak_op,
                 r.peak_op < s.ops.size() ? describe(g, s.ops[r.peak_op]) : "-",
                 r.valid ? "" : ", over the valid prefix");
      fmt::print("time           {:.6g} {} (baseline {:.6g}, overhead {:.2f} %)\n", r.time, g.time_unit, b.time, overhead);
      fmt::print("baseline peak  {} bytes; this schedule uses {:.1f} % of it\n", b.peak,
                 b.peak > 0 ? 100.0 * r.peak / b.peak : 0.0);
    }
    if (!r.valid) {
      std::cerr << fmt::format("hiremate: error: invalid schedule '{}': op {}: {}\n", *schedule_path, r.invalid_op,
                               r.reason);
      return 2;
    }
    return 0;
  };
}

}  // namespace hiremate::cli
