// `hiremate profile MODEL.pt --inputs INPUTS.pt -o GRAPH.json`: captures a traced PyTorch model,
// measures every node and writes the training graph (with each forward node's ops and shapes).
// The torch bridge is behind a torch-free header; without LibTorch it says how to get it.
#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "hiremate/cli/commands.h"
#include "hiremate/common/error.h"
#include "hiremate/common/units.h"
#include "hiremate/solvers/solver.h"
#include "hiremate/torch/profile.h"

namespace hiremate::cli {

Runner add_profile(CLI::App& app) {
  auto* cmd = app.add_subcommand("profile", "capture a traced PyTorch model (TorchScript .pt) and measure each "
                                            "node: time, output, phantom and transient bytes; write the graph");
  struct Args {
    std::string model, inputs, out;
    torchbridge::ProfileOptions opt;
    bool compare = false, json = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("model", a->model, "the traced module; forward(*inputs) returns the scalar loss")->required();
  cmd->add_option("--inputs", a->inputs, "its example inputs: a list of tensors saved with torch.save")->required();
  cmd->add_option("-o,--output", a->out, "where to write the graph (hiremate JSON)");
  cmd->add_option("--runs", a->opt.runs, "timed runs per node (the fastest and slowest are dropped)")
      ->capture_default_str()->check(CLI::Range(1, 1000));
  cmd->add_option("--threads", a->opt.threads, "torch intra-op threads (0: torch's default)")
      ->capture_default_str()->check(CLI::Range(0, 1024));
  cmd->add_flag("--cpu-time", a->opt.cpu_time,
                "time with the process's CPU time, not the wall clock (steadier on a busy machine; use with --threads 1)");
  cmd->add_flag("--compare", a->compare,
                "also run plain PyTorch forward+backward and print how the graph's keep-all peak and time compare");
  cmd->add_flag("--debug", a->opt.debug, "print each distinct node's measurement on stderr");
  cmd->add_flag("--json", a->json, "print the summary as JSON on stdout");
  return [cmd, a]() {
    if (!cmd->parsed()) return -1;
    if (!torchbridge::available()) torchbridge::profile_model(a->model, a->inputs);  // throws, saying why
    // On a terminal one updating line; in a log file plain lines, at most about one a second.
    // The phase (signatures measured of all) with the seconds elapsed; no time limit applies.
    a->opt.progress = [tty = isatty(STDERR_FILENO) != 0, start = std::chrono::steady_clock::now(),
                       last = std::chrono::steady_clock::time_point()](size_t done, size_t total,
                                                                       const std::string& ops) mutable {
      const auto now = std::chrono::steady_clock::now();
      const std::string line = fmt::format("profiling: {}/{} signatures ({}), {:.0f} s elapsed", done, total,
                                           ops.substr(0, 40), std::chrono::duration<double>(now - start).count());
      if (tty) {
        std::cerr << "\r" << line << "\033[K";
        if (done == total) std::cerr << "\n";
        return;
      }
      if (done != total && now - last < std::chrono::seconds(1)) return;
      last = now;
      std::cerr << line << "\n";
    };
    auto pm = torchbridge::profile_model(a->model, a->inputs, a->opt);
    const Graph& g = pm.graph;
    Baseline b = baseline(g);
    int64_t activation_peak = b.peak - g.source_bytes();
    size_t forward = pm.info.size(), views = 0;  // captured nodes; view nodes are the other forwards
    double sum_time = 0;
    for (const auto& c : g.compute) {
      views += c.kind == ComputeKind::Forward;
      sum_time += c.time;
    }
    views -= forward;
    nlohmann::ordered_json s;
    s["model"] = a->model;
    s["torchscript_nodes"] = pm.torchscript_nodes;
    s["forward_nodes"] = forward;
    s["view_nodes"] = views;
    s["compute_nodes"] = g.compute.size();
    s["data_nodes"] = g.data.size();
    s["signatures"] = pm.signatures;
    s["parameter_bytes"] = pm.parameter_bytes;
    s["input_bytes"] = g.source_bytes();
    s["keep_all_peak"] = b.peak;
    s["keep_all_activation_peak"] = activation_peak;
    s["step_time"] = sum_time;
    s["profile_seconds"] = pm.seconds;
    if (a->compare) {
      auto ref = torchbridge::measure_reference(a->model, a->inputs, a->opt);
      s["reference_peak"] = ref.peak;
      s["reference_time"] = ref.time;
      s["reference_best_time"] = ref.best_time;
      s["peak_error"] = ref.peak ? double(activation_peak - ref.peak) / double(ref.peak) : 0.0;
      s["time_error"] = ref.time > 0 ? (sum_time - ref.time) / ref.time : 0.0;
      s["best_time_error"] = ref.best_time > 0 ? (sum_time - ref.best_time) / ref.best_time : 0.0;
    }
    if (!a->out.empty()) {
      // graph_to_json writes one node per line; the profile goes before its last brace, alike.
      std::string text = graph_to_json(g);
      nlohmann::ordered_json head = {{"model", a->model},
                                     {"inputs", a->inputs},
                                     {"parameter_bytes", pm.parameter_bytes},
                                     {"memory", "bytes of storages (views are free); parameters and their gradients excluded"}};
      std::string profile = head.dump();
      profile.pop_back();
      profile += ",\n  \"nodes\": [";
      for (size_t k = 0; k < pm.info.size(); ++k) {
        const auto& info = pm.info[k];
        nlohmann::ordered_json node = {{"name", info.node}, {"ops", info.ops}, {"shapes", info.shapes}, {"signature", info.signature}};
        profile += (k ? ",\n    " : "\n    ") + node.dump();
      }
      profile += "\n  ]}";
      std::ofstream f(a->out);
      if (!f) throw BadInput(a->out + ": cannot write the graph here");
      f << text.substr(0, text.find_last_of('}')) << ",\n  \"profile\": " << profile << "\n}\n";
    }
    if (a->json) {
      std::cout << s.dump(2) << "\n";
      return 0;
    }
    fmt::print("model               {}\n", a->model);
    fmt::print("nodes               {} forward from {} TorchScript nodes, {} view nodes; {} compute, {} data in all\n",
               forward, pm.torchscript_nodes, views, g.compute.size(), g.data.size());
    fmt::print("distinct signatures {}\n", pm.signatures);
    fmt::print("parameters          {} B ({}; outside the graph, as their gradients)\n", group_digits(pm.parameter_bytes),
               format_bytes(pm.parameter_bytes));
    fmt::print("inputs              {} B ({})\n", group_digits(g.source_bytes()), format_bytes(g.source_bytes()));
    fmt::print("keep-all peak       {} B ({}) activations, {} with the inputs\n", group_digits(activation_peak),
               format_bytes(activation_peak), format_bytes(b.peak));
    fmt::print("step time           {} (sum of node times)\n", format_seconds(sum_time));
    if (a->compare)
      fmt::print("plain PyTorch       peak {} ({:+.2f} %), time {:.6g} s ({:+.1f} %), fastest run {:.6g} s ({:+.1f} %)\n",
                 s["reference_peak"].get<int64_t>(), 100 * s["peak_error"].get<double>(),
                 s["reference_time"].get<double>(), 100 * s["time_error"].get<double>(),
                 s["reference_best_time"].get<double>(), 100 * s["best_time_error"].get<double>());
    fmt::print("profiled in         {:.1f} s{}\n", pm.seconds, a->out.empty() ? "" : ", graph written to " + a->out);
    return 0;
  };
}

}  // namespace hiremate::cli
