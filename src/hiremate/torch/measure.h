// Measures one group in isolation (research/hiremate.md §2.5) on copies of its real inputs: its
// forward and backward time (trimmed mean of several runs), the bytes of the storages it creates,
// the bytes its autograd graph keeps besides (phantoms), the transient overheads of both passes,
// and which inputs and outputs its backward really reads (their storages outlive our references
// only when autograd saved them).
#pragma once
#include <cstdint>
#include <vector>

#include "hiremate/torch/capture.h"

namespace hiremate::torchbridge {

struct Measurement {
  double fwd_time = 0, bwd_time = 0;  // seconds
  int64_t data_bytes = 0;             // new storages among the exports
  int64_t phantom_bytes = 0;          // kept by autograd beyond inputs and exports
  // Transient bytes above what stays: the forward with grad (as it runs when it keeps its
  // phantoms), the forward without grad (a recomputation that drops them: what the grad forward
  // saves, dropout's mask or matmul's reshaped copies, is then a transient), and the backward with
  // the data it reads held by the caller, as the step holds them.
  int64_t fwd_overhead = 0, fwd_overhead_no_grad = 0, bwd_overhead = 0;
  std::vector<bool> input_saved;      // per group input: its storage is saved for backward
  bool output_saved = false;          // an export's storage is saved for its own backward
  // Per group input: the bytes of the gradient the backward gives it (its storage: the gradient
  // of a sum is an expanded scalar of 4 bytes, not a full tensor).
  std::vector<int64_t> input_grad_bytes;
  // Per group input: the bytes of that gradient the backward newly allocates (not a gradient it
  // was given and passes on, as add's backward does). When the input's gradient is already
  // resident, the step holds them beside it until they are added in.
  std::vector<int64_t> input_grad_fresh;
};

struct MeasureOptions {
  int runs = 5, warmup = 1;
  bool cuda = false;
  bool cpu_time = false;  // ProfileOptions::cpu_time
};

// Seconds on the wall clock, or of the process's CPU time.
double clock_seconds(bool cpu_time);

Measurement measure_group(const Capture& cap, const Group& grp, const MeasureOptions& opt);

// The mean of the samples without the smallest and the largest (when there are at least three).
double trimmed_mean(std::vector<double> samples);

}  // namespace hiremate::torchbridge
