// The simulator: the one authority on validity and memory (DESIGN §2). Every solver's schedule
// passes through simulate() before it is returned.
//
// Memory rule. Sources are resident from the start. While compute op k runs, memory = bytes
// resident before k + bytes of k's outputs that were not resident + k's overhead. Deletes free at
// once. Peak = the maximum over all ops. A compute is valid only if all its deps are resident; a
// grad dep must also have received every producer's contribution; a backward needs its forward's
// phantoms (a real dep) resident. Forward with keep_phantoms = false writes no phantoms.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hiremate/graph/graph.h"
#include "hiremate/schedule/schedule.h"

namespace hiremate {

struct SimulateOptions {
  // Generic DAGs (no backward): first computations must follow graph.order (Checkmate's model).
  bool enforce_fixed_order = true;
  // Every compute node must run at least once and every grad be fully produced by the end.
  bool require_complete = true;
};

struct MemoryPoint {
  int64_t during = 0;  // bytes while the op runs (compute: resident + new outputs + overhead)
  int64_t after = 0;   // bytes resident after the op
};

struct SimResult {
  bool valid = true;
  size_t invalid_op = 0;   // index of the first invalid op; ops.size() if the end is invalid
  std::string reason;      // why it is invalid (empty when valid)
  int64_t peak = 0;        // bytes, over the valid prefix
  size_t peak_op = 0;      // index of the op where the peak is reached
  double time = 0;         // sum of compute times (the loss included)
  int64_t bytes_at_loss = 0;  // resident right after the loss op, before the deletes that follow it
  size_t computes = 0;     // compute ops run (the loss included)
  size_t recomputations = 0;  // compute ops beyond the first run of each node
  std::vector<MemoryPoint> timeline;  // one point per op of the valid prefix
};

SimResult simulate(const Graph& g, const Schedule& s, const SimulateOptions& opt = {});

}  // namespace hiremate
