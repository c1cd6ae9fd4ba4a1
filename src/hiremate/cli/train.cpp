// `hiremate train MODEL.pt --inputs INPUTS.pt --budget B`: capture, profile and plan the model,
// run SGD steps with the executor beside plain PyTorch, and print how they compare. Through the
// torch plugin, like `profile`.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "hiremate/cli/commands.h"
#include "hiremate/cli/progress.h"
#include "hiremate/common/units.h"
#include "hiremate/torch/train.h"

namespace hiremate::cli {

Runner add_train(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "plan a traced PyTorch model under a memory budget and train it with the "
                                          "plan (SGD), beside plain PyTorch: peaks, step times, gradients");
  struct Args {
    std::string model, inputs;
    torchbridge::TrainOptions opt;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("model", a->model, "the traced module; forward(*inputs) returns the scalar loss")->required();
  cmd->add_option("--inputs", a->inputs, "its inputs: a list of tensors saved with torch.save")->required();
  cmd->add_option("--budget", a->opt.budget,
                  "activation memory: bytes (800MB, 64MiB), or a fraction (0.5) or percentage (50%) of the "
                  "keep-all activation peak, or 'min' (the floor below which no plan exists, as `hiremate info` prints it)")->capture_default_str();
  cmd->add_option("--solver", a->opt.solver, "any solver of `hiremate solve`")->capture_default_str();
  cmd->add_option("--steps", a->opt.steps, "SGD steps")->capture_default_str()->check(CLI::Range(1, 100000));
  cmd->add_option("--time-limit", a->opt.time_limit, "the solver's time limit, seconds")
      ->capture_default_str()->check(positive_number());
  cmd->add_option("--lr", a->opt.lr, "SGD learning rate")->capture_default_str();
  cmd->add_option("--seed", a->opt.seed, "step k draws its random numbers from seed + k")->capture_default_str();
  cmd->add_option("--threads", a->opt.profile.threads, "torch intra-op threads (0: torch's default)")
      ->capture_default_str()->check(CLI::Range(0, 1024));
  cmd->add_option("--times-from", a->opt.times_from,
                  "plan on the node times of this graph, an earlier `hiremate profile` of the same model "
                  "(sizes stay this run's): several runs then plan on the same times")->check(CLI::ExistingFile);
  cmd->add_flag("--trace", a->opt.trace,
                "print, per op of the first step, the simulated and measured activation bytes during and after it; "
                "after the last step, per op, the profile's time beside the executor's median CPU time for it "
                "(`op-time` lines)");
  cmd->add_flag("--json", a->json, "print the report as JSON");
  return [cmd, a]() {
    if (!cmd->parsed()) return -1;
    warn_if_bare_percentage("--budget", a->opt.budget);
    a->opt.progress = std::make_shared<Progress>();
    auto r = [&] {
      // Profiling, planning (the solver's phases, best plan so far and bound) and the steps.
      Ticker ticker(fmt::format("hiremate: training {} (the solver's limit: {} s)", a->model, a->opt.time_limit), 0,
                    true, a->opt.progress);
      return torchbridge::train_model(a->model, a->inputs, a->opt);
    }();
    // Step times: the median over the steps after the first (which warms the operator caches up),
    // robust to the preemptions of a shared machine.
    size_t from = r.steps.size() > 1 ? 1 : 0;
    auto median = [&](double torchbridge::StepReport::*field) {
      std::vector<double> v;
      for (size_t k = from; k < r.steps.size(); ++k) v.push_back(r.steps[k].*field);
      std::sort(v.begin(), v.end());
      return v.empty() ? 0.0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    };
    double time = median(&torchbridge::StepReport::time), plain_time = median(&torchbridge::StepReport::plain_time);
    double cpu = median(&torchbridge::StepReport::cpu_time), plain_cpu = median(&torchbridge::StepReport::plain_cpu_time);
    double diff = 0;
    int64_t peak = 0, plain_peak = 0;
    bool identical = true;
    for (const auto& s : r.steps) {
      peak = std::max(peak, s.peak);
      plain_peak = std::max(plain_peak, s.plain_peak);
      diff = std::max(diff, s.grad_diff);
      identical &= s.grads_identical;
    }
    if (a->json) {
      nlohmann::ordered_json j = {{"model", r.model},          {"solver", r.solver},
                                  {"status", r.status},        {"keep_all_peak", r.keep_all},
                                  {"budget", r.budget},        {"simulated_peak", r.simulated_peak},
                                  {"measured_peak", peak},     {"plain_peak", plain_peak},
                                  {"step_time", time},         {"plain_step_time", plain_time},
                                  {"step_cpu_time", cpu},      {"plain_step_cpu_time", plain_cpu},
                                  {"simulated_time", r.simulated_time}, {"keep_all_time", r.keep_all_time},
                                  {"recomputations", r.recomputations}, {"max_grad_diff", diff},
                                  {"profile_seconds", r.profile_seconds}, {"solve_seconds", r.solve_seconds},
                                  {"grads_identical", identical},
                                  {"units", "activation bytes: inputs, parameters and their gradients excluded; "
                                            "budgets of the keep-all activation peak"}};
      for (const auto& s : r.steps)
        j["steps"].push_back({{"loss", s.loss}, {"plain_loss", s.plain_loss}, {"time", s.time},
                              {"plain_time", s.plain_time}, {"cpu_time", s.cpu_time}, {"plain_cpu_time", s.plain_cpu_time},
                              {"peak", s.peak}, {"plain_peak", s.plain_peak}, {"grad_diff", s.grad_diff}});
      std::cout << j.dump(2) << "\n";
      return 0;
    }
    auto pct = [&](int64_t b) { return r.keep_all ? 100.0 * double(b) / double(r.keep_all) : 0.0; };
    fmt::print("model             {} ({} steps, solver {}: {}, {} recomputations, planned in {:.1f} s)\n", r.model,
               r.steps.size(), r.solver, r.status, r.recomputations, r.solve_seconds);
    fmt::print("{:<17} {:>13} {:>10} {:>7}\n", "activations", "bytes", "", "keep-all");
    fmt::print("{:<17} {:>13} {:>10} {:>6.1f}%\n", "keep-all (sim.)", group_digits(r.keep_all), format_bytes(r.keep_all), 100.0);
    fmt::print("{:<17} {:>13} {:>10} {:>6.1f}%\n", "budget", group_digits(r.budget), format_bytes(r.budget), pct(r.budget));
    fmt::print("{:<17} {:>13} {:>10} {:>6.1f}%\n", "simulated peak", group_digits(r.simulated_peak), format_bytes(r.simulated_peak),
               pct(r.simulated_peak));
    fmt::print("{:<17} {:>13} {:>10} {:>6.1f}%\n", "measured peak", group_digits(peak), format_bytes(peak), pct(peak));
    fmt::print("{:<17} {:>13} {:>10} {:>6.1f}%\n", "plain PyTorch", group_digits(plain_peak), format_bytes(plain_peak), pct(plain_peak));
    fmt::print("                  (activation bytes: inputs, parameters and their gradients excluded; % of the keep-all "
               "activation peak)\n");
    fmt::print("step time         {:.4g} ms, plain PyTorch {:.4g} ms ({:+.1f} %); simulated {:.4g} ms, keep-all {:.4g} ms\n",
               time * 1e3, plain_time * 1e3, plain_time > 0 ? 100 * (time - plain_time) / plain_time : 0.0,
               r.simulated_time * 1e3, r.keep_all_time * 1e3);
    fmt::print("step CPU time     {:.4g} ms, plain PyTorch {:.4g} ms ({:+.1f} %)\n", cpu * 1e3, plain_cpu * 1e3,
               plain_cpu > 0 ? 100 * (cpu - plain_cpu) / plain_cpu : 0.0);
    fmt::print("gradients         largest relative difference to plain PyTorch {:.3g}{}\n", diff,
               identical ? " (bit-identical)" : "");
    fmt::print("losses           ");
    for (const auto& s : r.steps) fmt::print(" {:.6g}", s.loss);
    fmt::print(" (plain:");
    for (const auto& s : r.steps) fmt::print(" {:.6g}", s.plain_loss);
    fmt::print(")\n");
    return 0;
  };
}

}  // namespace hiremate::cli
