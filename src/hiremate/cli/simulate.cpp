// `hiremate simulate GRAPH SCHEDULE`: the simulator's verdict on a schedule file.
#include <fmt/format.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "hiremate/cli/commands.h"
#include "hiremate/common/error.h"
#include "hiremate/common/units.h"
#include "hiremate/schedule/schedule_json.h"
#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/min_budget.h"
#include "hiremate/solvers/solver.h"

namespace hiremate::cli {

namespace {

// Draws the memory timeline with matplotlib (python3-matplotlib), through Debian's python3.
const char* kPlotScript = R"PY(
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
path, out, budget, baseline, title = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
ops, during, after, recompute = [], [], [], []
with open(path) as f:
    for row in csv.DictReader(f):
        ops.append(int(row["op"]))
        during.append(int(row["during"]))
        after.append(int(row["after"]))
        recompute.append(row["recompute"] == "1")
fig, ax = plt.subplots(figsize=(10, 4))
ax.fill_between(ops, after, step="mid", alpha=0.3, color="tab:blue", label="resident after the op")
ax.step(ops, during, where="mid", color="tab:blue", linewidth=0.8, label="during the op")
xs = [o for o, r in zip(ops, recompute) if r]
if xs:
    ax.scatter(xs, [during[o] for o in xs], marker="v", color="tab:orange", s=14, zorder=3,
               label=f"recomputations ({len(xs)})")
ax.axhline(baseline, color="gray", linestyle=":", label=f"keep-all peak ({baseline:,} B)")
if budget > 0:
    ax.axhline(budget, color="tab:red", linestyle="--", label=f"budget ({budget:,} B)")
ax.set_xlabel("op of the schedule")
ax.set_ylabel("activation bytes (inputs excluded)")
ax.set_title(title)
ax.legend(loc="upper right", fontsize=8)
fig.tight_layout()
fig.savefig(out, dpi=120)
)PY";

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Bytes drawn in activations: the sources (`sources` bytes) excluded, as every budget.
void plot_timeline(const Schedule& s, const SimResult& r, int64_t budget, int64_t baseline, int64_t sources,
                   const std::string& title, const std::string& png) {
  char csv_path[] = "/tmp/hiremate-timeline-XXXXXX";
  const int fd = mkstemp(csv_path);
  if (fd < 0) throw BadInput("--plot: cannot create a temporary file in /tmp");
  close(fd);
  {
    std::ofstream csv(csv_path);
    csv << "op,during,after,recompute\n";
    std::set<NodeId> computed;
    for (size_t i = 0; i < r.timeline.size(); ++i) {
      const Op& op = s.ops[i];
      const bool again = op.kind == Op::Kind::Compute && !computed.insert(op.node).second;
      csv << i << "," << r.timeline[i].during - sources << "," << r.timeline[i].after - sources << ","
          << (again ? 1 : 0) << "\n";
    }
  }

  const std::string cmd = fmt::format("/usr/bin/python3 - {} {} {} {} {} 1>&2", quoted(csv_path), quoted(png), budget,
                                      baseline, quoted(title));
  FILE* py = popen(cmd.c_str(), "w");
  if (!py) {
    std::remove(csv_path);
    throw BadInput("--plot: cannot start /usr/bin/python3");
  }
  std::fputs(kPlotScript, py);
  const int status = pclose(py);
  std::remove(csv_path);
  if (status != 0)
    throw BadInput(fmt::format("--plot: /usr/bin/python3 could not draw '{}' (its message is above); it needs "
                               "matplotlib (apt-get install python3-matplotlib) and a writable path",
                               png));
}

}  // namespace

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
  cmd->add_option("--timeline", *timeline_path,
                  "write the memory timeline as CSV (op,what,during,after: activation bytes, the sources excluded)");
  auto plot_path = std::make_shared<std::string>();
  auto budget_text = std::make_shared<std::string>();
  cmd->add_option("--plot", *plot_path,
                  "draw the memory timeline as a PNG: resident bytes per op, the keep-all peak, the --budget line, "
                  "recomputations marked (needs /usr/bin/python3 with matplotlib)");
  cmd->add_option("--budget", *budget_text,
                  "with --plot: the budget line to draw (as solve --budget: activation bytes, 80% of the keep-all "
                  "activation peak, 1.5GiB)");
  return [=]() {
    if (!cmd->parsed()) return -1;
    Graph g = args->load();
    Schedule s = load_schedule(g, *schedule_path);
    SimResult r = simulate(g, s);
    Baseline b = baseline(g);
    // Activation bytes, as every budget (solvers/min_budget.h): the sources excluded.
    const int64_t sources = g.source_bytes();
    const int64_t keep_all = b.peak - sources;
    if (!timeline_path->empty()) {
      std::ofstream out(*timeline_path);
      if (!out) throw BadInput("cannot write the timeline to '" + *timeline_path + "'");
      out << "op,what,during,after\n";
      for (size_t i = 0; i < r.timeline.size(); ++i)
        out << i << ",\"" << describe(g, s.ops[i]) << "\"," << r.timeline[i].during - sources << ","
            << r.timeline[i].after - sources << "\n";
    }
    if (!plot_path->empty()) {
      const int64_t budget = budget_text->empty() ? 0 : parse_activation_budget(*budget_text, g);
      plot_timeline(s, r, budget, keep_all, sources,
                    fmt::format("{}: {} ops, {} recomputations, peak {} B of activations (inputs excluded)", g.name,
                                s.ops.size(), r.recomputations, group_digits(r.peak - sources)),
                    *plot_path);
      std::cerr << fmt::format("memory timeline drawn in {}\n", *plot_path);
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
      out["units"] = "activation bytes: the sources (inputs) excluded";
      out["source_bytes"] = sources;
      out["peak"] = r.peak - sources;
      out["peak_op"] = r.peak_op;
      out["time"] = r.time;
      out["recomputations"] = r.recomputations;
      out["bytes_at_loss"] = r.bytes_at_loss - sources;
      out["baseline_peak"] = keep_all;
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
      fmt::print("peak           {} bytes ({}) of activations, inputs excluded, at op {} ({}){}\n",
                 group_digits(r.peak - sources), format_bytes(r.peak - sources), r.peak_op,
                 r.peak_op < s.ops.size() ? describe(g, s.ops[r.peak_op]) : "-",
                 r.valid ? "" : ", over the valid prefix");
      fmt::print("time           {} {} (baseline {}, overhead {:.2f} %)\n", format_quantity(r.time), g.time_unit,
                 format_quantity(b.time), overhead);
      fmt::print("baseline peak  {} bytes of activations; this schedule uses {:.1f} % {}\n", group_digits(keep_all),
                 keep_all > 0 ? 100.0 * (r.peak - sources) / keep_all : 0.0, kActivationConvention);
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
