// `hiremate train`: capture, profile, plan under a budget, then run SGD steps with the executor
// beside plain PyTorch on a second copy of the model, and compare (research/hiremate.md §7).
// Torch-free, like profile.h: the CLI reaches it through the plugin.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hiremate/common/progress.h"
#include "hiremate/torch/profile.h"

namespace hiremate::torchbridge {

struct TrainOptions {
  std::string budget = "1.0";   // parse_activation_budget(): bytes, 0.5, 50% of the keep-all activation peak, or "min"
  std::string solver = "hiremate";
  int steps = 3;
  double time_limit = 60;       // the solver's, seconds
  double lr = 1e-3;             // plain SGD, fixed
  uint64_t seed = 0;            // step k draws its random numbers from seed + k, in both runs
  bool compare = true;          // also train plain PyTorch and compare
  std::string times_from;       // a graph of an earlier profile of this model: plan on its times (adopt_times)
  // Print, per op of the first step, the simulated and the measured activation bytes during and
  // after it (stderr; `hiremate train --trace`), and take the step's peak from that trace; after the
  // last step, per op, the profile's time beside the executor's median CPU time for it ("op-time").
  bool trace = false;
  ProfileOptions profile;
  // Where set: the phase (capturing, profiling k/n signatures, planning and the solver's own phases,
  // training step k), the best plan so far and the bound, for a status line (`hiremate train`).
  std::shared_ptr<Progress> progress;
};

struct StepReport {
  double loss = 0, plain_loss = 0;
  double time = 0, plain_time = 0;       // seconds, wall clock
  double cpu_time = 0, plain_cpu_time = 0;  // seconds of the process's CPU time (steadier on a busy machine)
  int64_t peak = 0, plain_peak = 0;      // measured activation bytes above the step's start
  double grad_diff = 0;                  // max over parameters of max|g - g_plain| / max|g_plain|
  bool grads_identical = false;          // every gradient bit-identical to plain PyTorch's
};

struct TrainReport {
  std::string model, solver, status;
  int64_t keep_all = 0;        // the keep-all schedule's simulated activation peak
  int64_t budget = 0;          // activation bytes (the plan's budget less the inputs)
  int64_t simulated_peak = 0;  // the plan's simulated activation peak
  double simulated_time = 0, keep_all_time = 0;
  size_t recomputations = 0;
  double buffer_diff = 0;      // after the last step: max|b - b_plain| over buffers (batch-norm statistics)
  double profile_seconds = 0, solve_seconds = 0;
  std::vector<StepReport> steps;
};

// Throws BadInput for unusable files or budgets, and when the solver finds no plan.
TrainReport train_model(const std::string& model_path, const std::string& inputs_path, const TrainOptions& opt);

}  // namespace hiremate::torchbridge
