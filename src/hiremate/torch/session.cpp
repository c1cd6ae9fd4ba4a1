#include "hiremate/torch/session.h"

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "hiremate/common/error.h"
#include "hiremate/common/units.h"
#include "hiremate/graph/io/graph_io.h"
#include "hiremate/planner/plan_with.h"
#include "hiremate/schedule/schedule_json.h"
#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/min_budget.h"
#include "hiremate/torch/memory_counter.h"
#include "hiremate/torch/profile_capture.h"

namespace hiremate::torchbridge {
namespace {

constexpr const char* kFormat = "hiremate-python-plan";
constexpr int kVersion = 1;

// Torch's own errors carry a C++ backtrace; the user gets the first line, with what we were doing.
template <class F>
auto torch_errors(const std::string& doing, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const c10::Error& e) {
    std::string msg = e.what_without_backtrace();
    throw Error(doing + ": " + msg.substr(0, msg.find('\n')));
  }
}

// FNV-1a over the groups' signatures and the inputs' layouts: equal for the same model code,
// parameter shapes and input shapes; a plan is only valid for those.
std::string fingerprint_of(const Capture& cap) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  for (const auto* v : cap.sources) mix(describe(cap.values.at(v), false));
  for (const Group& g : cap.groups) mix(g.signature);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace

Session::Session(torch::jit::Module traced, std::vector<c10::IValue> inputs, const std::string& name) {
  MemoryCounter installed;  // nodes are measured and run under the same (counting) allocator
  cap_ = torch_errors("cannot capture " + name, [&] { return capture(traced, inputs, name, /*any_output=*/true); });
  fingerprint_ = fingerprint_of(*cap_);
}

Session::~Session() = default;

void Session::profile(const ProfileOptions& opt) {
  if (executor_) throw Error("internal: the session is already planned");
  auto t0 = std::chrono::steady_clock::now();
  profiled_ = std::make_unique<ProfiledModel>(
      torch_errors("cannot profile the model", [&] { return profile_capture(*cap_, "model", opt); }));
  profiled_->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  graph_ = profiled_->graph;
  summary_.profile_seconds = profiled_->seconds;
}

const ProfiledModel& Session::profiled() const {
  if (!profiled_) throw Error("internal: the session was not profiled");
  return *profiled_;
}

void Session::plan(const std::string& budget, const std::string& solver_name, double time_limit, int verbose) {
  if (!profiled_) throw Error("internal: plan() before profile()");
  const int64_t inputs = graph_.source_bytes();
  Baseline keep_all = baseline(graph_);
  summary_.keep_all = keep_all.peak - inputs;
  summary_.keep_all_time = keep_all.time;
  summary_.budget = parse_activation_budget(budget, graph_);

  SolveOptions so;
  so.time_limit = time_limit;
  so.verbose = verbose;
  so.progress = progress_;
  progress_->baseline(keep_all.time);
  Plan plan = planner::plan_with(solver_name, graph_, summary_.budget + inputs, so);
  // The hierarchical planner's per-level table, where it planned.
  summary_.has_levels = plan.report.has_value();
  if (plan.report) summary_.levels = *plan.report;
  summary_.solver = solver_name;
  summary_.status = to_string(plan.status);
  summary_.note = plan.note;
  summary_.solve_seconds = plan.solve_seconds;
  summary_.bound = plan.bound;
  require_schedule(plan, solver_name + " found no plan under " + format_bytes(summary_.budget) + " of activations (" +
                             std::to_string(summary_.budget) + " B; the keep-all peak is " +
                             format_bytes(summary_.keep_all) + "; peaks below include the inputs' " +
                             std::to_string(inputs) + " B)");
  schedule_ = plan.schedule;
  summary_.simulated_peak = plan.sim.peak - inputs;
  summary_.bytes_at_loss = plan.sim.bytes_at_loss - inputs;
  summary_.simulated_time = plan.sim.time;
  summary_.computes = plan.sim.computes;
  summary_.recomputations = plan.sim.recomputations;
  make_executor();
}

void Session::load(const std::string& text, const std::string& origin) {
  if (executor_) throw Error("internal: the session is already planned");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw BadInput(origin + ": not a plan file (" + e.what() + "); write one with save_plan()");
  }
  if (!j.is_object() || j.value("format", "") != kFormat)
    throw BadInput(origin + ": not a hiremate plan file (no \"format\": \"" + kFormat + "\"); write one with save_plan()");
  if (j.value("version", 0) != kVersion)
    throw BadInput(origin + ": plan file version " + j.value("version", nlohmann::json()).dump() + ", this hiremate reads " +
                   std::to_string(kVersion) + "; plan again");
  std::string fp = j.value("fingerprint", "");
  if (fp != fingerprint_)
    throw BadInput(origin + ": the plan was made for another model or other input shapes (fingerprint " + fp +
                   ", this model and inputs " + fingerprint_ + "); plan again with HiRemate(model, inputs, budget)");
  if (!j.contains("graph") || !j.contains("schedule") || !j.contains("summary"))
    throw BadInput(origin + ": the plan file lacks \"graph\", \"schedule\" or \"summary\"; write it with save_plan()");
  graph_ = parse_graph(j["graph"].dump(), origin + " /graph");
  for (size_t i = 0; i < cap_->groups.size(); ++i)
    if (!graph_.find_compute(group_node_name(i, cap_->groups[i])))
      throw BadInput(origin + " /graph: no node " + group_node_name(i, cap_->groups[i]) +
                     " for the model's captured node; the file was edited or made by another hiremate: plan again");
  schedule_ = parse_schedule(graph_, j["schedule"].dump(), origin + " /schedule");
  const nlohmann::json& s = j["summary"];
  try {
    summary_.solver = s.at("solver").get<std::string>();
    summary_.status = s.at("status").get<std::string>();
    summary_.note = s.value("note", "");
    summary_.budget = s.at("budget").get<int64_t>();
    summary_.solve_seconds = s.value("solve_seconds", 0.0);
    if (s.contains("bound") && s["bound"].is_number()) summary_.bound = s["bound"].get<double>();
  } catch (const nlohmann::json::exception& e) {
    throw BadInput(origin + " /summary: " + e.what() + "; write the file with save_plan()");
  }
  const int64_t inputs = graph_.source_bytes();
  SimResult sim = simulate(graph_, schedule_);
  if (!sim.valid)
    throw BadInput(origin + ": the schedule is not valid for its graph (op " + std::to_string(sim.invalid_op) + ": " +
                   sim.reason + "); plan again");
  if (sim.peak - inputs > summary_.budget)
    throw BadInput(origin + ": the schedule's simulated peak (" + std::to_string(sim.peak - inputs) +
                   " B of activations) exceeds the plan's budget (" + std::to_string(summary_.budget) + " B); plan again");
  Baseline keep_all = baseline(graph_);
  summary_.keep_all = keep_all.peak - inputs;
  summary_.keep_all_time = keep_all.time;
  summary_.simulated_peak = sim.peak - inputs;
  summary_.bytes_at_loss = sim.bytes_at_loss - inputs;
  summary_.simulated_time = sim.time;
  summary_.computes = sim.computes;
  summary_.recomputations = sim.recomputations;
  summary_.loaded = true;
  make_executor();
}

std::string Session::plan_text() const {
  if (!executor_) throw Error("internal: no plan to save");
  nlohmann::json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["fingerprint"] = fingerprint_;
  j["summary"] = {{"solver", summary_.solver},
                  {"status", summary_.status},
                  {"note", summary_.note},
                  {"budget", summary_.budget},
                  {"keep_all_peak", summary_.keep_all},
                  {"simulated_peak", summary_.simulated_peak},
                  {"simulated_time", summary_.simulated_time},
                  {"keep_all_time", summary_.keep_all_time},
                  {"solve_seconds", summary_.solve_seconds}};
  if (summary_.bound) j["summary"]["bound"] = *summary_.bound;
  j["graph"] = nlohmann::json::parse(graph_to_json(graph_));
  j["schedule"] = schedule_to_json(graph_, schedule_);
  return j.dump(1);
}

void Session::make_executor() {
  torch_errors("cannot prepare the executor", [&] {
    executor_ = std::make_unique<Executor>(*cap_, graph_);
    // Gradients go through the module parameters' AccumulateGrad nodes (backward_half), not to buffers of our own.
    for (auto& p : executor_->parameters()) p.sink->buffer = at::Tensor();
  });
  // The capture run's values (every activation of one keep-all forward) are no longer needed.
  cap_->values.clear();
}

std::vector<at::Tensor> Session::parameters() const {
  if (!executor_) throw Error("internal: the session is not planned");
  std::vector<at::Tensor> out;
  for (const auto& p : executor_->parameters()) out.push_back(p.value);
  return out;
}

at::Tensor Session::forward_half(const std::vector<c10::IValue>& inputs) {
  if (!executor_) throw Error("internal: the session is not planned");
  return torch_errors("the plan's forward failed", [&] { return executor_->forward_half(schedule_, inputs); });
}

void Session::backward_half(const at::Tensor& grad, const std::vector<at::Tensor>& params) {
  if (!executor_) throw Error("internal: the session is not planned");
  auto& sinks = executor_->parameters();
  if (params.size() != sinks.size())
    throw Error("internal: " + std::to_string(params.size()) + " module parameters for " +
                std::to_string(sinks.size()) + " executor parameters");
  struct Release {  // the module's autograd nodes are not ours to keep; a failed step drops its sums
    std::vector<Parameter>& sinks;
    ~Release() {
      for (auto& p : sinks) p.sink->stop_delivery();
    }
  } release{sinks};
  for (size_t k = 0; k < sinks.size(); ++k) {
    const at::Tensor& p = params[k];
    bool wants = p.defined() && p.requires_grad();
    sinks[k].sink->begin_delivery(wants ? torch::autograd::impl::grad_accumulator(p) : nullptr, p);
  }
  torch_errors("the plan's backward failed", [&] {
    executor_->backward_half(schedule_, grad);
    for (auto& p : sinks) p.sink->end_delivery();  // inside: a hook that throws is the step's error
  });
}

bool Session::in_step() const { return executor_ && executor_->in_step(); }

}  // namespace hiremate::torchbridge
