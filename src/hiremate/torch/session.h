// A session: one traced model planned for training from Python (python/hiremate, research/hiremate.md
// §1.3). Capture, then either profile and plan under a budget, or load a saved plan; then the
// executor runs the plan's two halves, one step at a time, on the module's own parameters.
//
// The plan file (save / load) holds the measured graph and the schedule beside a fingerprint of the
// capture (its groups' signatures: code, shapes, dtypes), so that loading skips profiling and
// planning, and refuses a plan made for another model or other input shapes.
#pragma once
#include <torch/script.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hiremate/solvers/solver.h"
#include "hiremate/torch/capture.h"
#include "hiremate/torch/executor.h"
#include "hiremate/torch/profile.h"

namespace hiremate::torchbridge {

// What the plan is, in activation bytes (the graph's bytes less the model inputs; parameters and
// their gradients are outside, as in HiRemate).
struct PlanSummary {
  std::string solver, status, note;
  int64_t budget = 0;          // the plan's activation budget
  int64_t keep_all = 0;        // the keep-all schedule's simulated activation peak
  int64_t simulated_peak = 0;  // the plan's simulated activation peak
  int64_t bytes_at_loss = 0;   // activation bytes resident at the loss
  double simulated_time = 0, keep_all_time = 0;  // seconds (summed measured node times)
  double solve_seconds = 0, profile_seconds = 0;
  // A lower bound on every plan's simulated time under `budget` (Plan::bound: plan_with gives one to
  // every plan of a training graph; a plan file written before it may lack it).
  std::optional<double> bound;
  size_t computes = 0, recomputations = 0;
  bool loaded = false;         // read from a plan file (no profiling, no planning in this process)
  bool has_levels = false;     // the hierarchical planner ran: `levels` is filled
  PlannerReport levels;
};

class Session {
 public:
  // Captures `traced` (a torch.jit.trace of the user's module, sharing its parameters) on `inputs`;
  // `name` names the model in messages. Throws BadInput when the model cannot be captured (control
  // flow, an output that is not one tensor requiring grad).
  Session(torch::jit::Module traced, std::vector<c10::IValue> inputs, const std::string& name);
  ~Session();

  // Measures the captured graph (profile_capture). Needed before plan().
  void profile(const ProfileOptions& opt);
  const ProfiledModel& profiled() const;

  // Plans under `budget` (parse_activation_budget: "min", or parse_budget of the keep-all activation peak) with `solver`, checks the
  // plan with the simulator, and makes the executor. Throws Infeasible when no plan fits. `verbose`
  // is SolveOptions::verbose (1: the solvers' own log on stderr, 2: also CBC's); the phase, the best
  // plan so far and the bound go to progress() as it runs.
  void plan(const std::string& budget, const std::string& solver, double time_limit, int verbose = 0);
  // What plan() is doing, for a status line (another thread may read it while plan() runs).
  const std::shared_ptr<Progress>& progress() const { return progress_; }
  // Reads a plan file's text instead (origin names it in messages). Throws BadInput for another
  // model's plan, a damaged file or a schedule the simulator refuses.
  void load(const std::string& text, const std::string& origin);
  // The plan file's text (JSON): the summary, the graph and the schedule.
  std::string plan_text() const;

  const PlanSummary& summary() const { return summary_; }
  const Graph& graph() const { return graph_; }
  const Schedule& schedule() const { return schedule_; }
  std::string fingerprint() const { return fingerprint_; }

  // The executor's parameters (aliases of the module's, tied weights once), in the order that
  // backward_half takes the module's parameters.
  std::vector<at::Tensor> parameters() const;
  // One training step in two halves (Executor::forward_half / backward_half). `params[k]` is the
  // module's parameter whose storage executor parameter k aliases: its gradient goes through that
  // tensor's own AccumulateGrad node (into .grad, through its hooks and DDP's), as in plain
  // PyTorch; an undefined one, or one that does not require grad, drops it.
  at::Tensor forward_half(const std::vector<c10::IValue>& inputs);
  void backward_half(const at::Tensor& grad, const std::vector<at::Tensor>& params);
  bool in_step() const;

 private:
  void make_executor();
  std::unique_ptr<Capture> cap_;
  std::unique_ptr<ProfiledModel> profiled_;
  Graph graph_;
  Schedule schedule_;
  PlanSummary summary_;
  std::string fingerprint_;
  std::unique_ptr<Executor> executor_;
  std::shared_ptr<Progress> progress_ = std::make_shared<Progress>();
};

}  // namespace hiremate::torchbridge
