// What a stage MILP knows of its stages before it builds anything (research/hiremate.md §5): the
// per-stage and per-data tables that RK-Checkmate (solvers/checkmate/checkmate_training.cpp) and the
// H-ILP (hierarchy/hilp_model.cpp) fill from their own nodes and that the shared builder
// (stage_vars.h) reads. Stage t runs node t for the first time; only forwards are recomputed.
// A node offers choices (RK-Checkmate: keep its phantoms or fast-forward; the H-ILP: an HCN's
// choices); every size is in memory units.
#pragma once
#include <cstdint>
#include <vector>

#include "hiremate/graph/graph.h"

namespace hiremate::stage_milp {

struct StageTables {
  int T = 0;
  // Per stage.
  std::vector<ComputeKind> kind;
  std::vector<std::vector<NodeId>> data_in;   // data it reads (data kind, not sources)
  std::vector<std::vector<NodeId>> data_out;  // data it writes (data kind)
  std::vector<int64_t> out_units;             // units of data_out
  std::vector<std::vector<int64_t>> kept;     // [stage][choice]: left for the backward by a keeping choice
  std::vector<std::vector<int64_t>> overhead;  // [stage][choice]: held while it runs beyond outputs and kept
  std::vector<int> last_need;                 // the last stage where running it can help
  // Grads (produced by backwards and the loss, which run once) are resident from their first producer
  // to their last use: a constant per stage.
  std::vector<int64_t> grads_at_start;  // [stage, T + 1 entries]: resident on entry
  std::vector<int64_t> grads_new;       // [stage]: appearing while its own node runs
  // Per data id.
  std::vector<int64_t> mem;             // units
  std::vector<int> producer;            // the forward stage writing it, -1
  std::vector<std::vector<int>> users;  // the stages reading it

  // The last stage where a copy of d resident can help.
  int data_need(NodeId d) const;
  // Counts `units` of a grad from stage `first` (where it appears) to `last` (its last use).
  void add_grad(int first, int last, int64_t units);
  // Fills last_need: a forward helps in stage t when something it feeds (a backward, the loss, or a
  // forward that helps) can still run at t or later. `keeps_for[t]`: the stage of the backward that
  // consumes what forward t may keep, -1 when it keeps nothing.
  void find_last_need(const std::vector<int>& keeps_for);
};

}  // namespace hiremate::stage_milp
