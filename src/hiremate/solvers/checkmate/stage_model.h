// What a Checkmate model builder hands the shared driver (checkmate.cpp): the MILP, an optional
// MIP start, and how to read a solution back as a sequence of compute and loss ops (the driver
// inserts the frees, simulates and checks the budget).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hiremate/graph/graph.h"
#include "hiremate/milp/model.h"
#include "hiremate/schedule/schedule.h"

namespace hiremate::checkmate {

using Assignment = std::vector<std::pair<milp::Var, double>>;

struct StageModel {
  milp::Model model;
  // The keep-all assignment, handed to CBC as a MIP start (when it fits it is optimal).
  std::optional<Assignment> start;
  // A heuristic plan (greedy eviction, recompute-heavy) for when CBC finds nothing better. It is not
  // given to CBC: measured on fcn8 at 90 %, such a start sent CBC 2.10 down a path that had not
  // proven optimality after 90 s, against 14 s without it.
  std::optional<Assignment> fallback;
  // A heuristic compute sequence that the model cannot represent (empty if none): the driver
  // simulates it and returns it if nothing better is found.
  std::vector<Op> heuristic_plan;
  std::function<std::vector<Op>(const std::vector<double>& solution)> decode;
  std::string summary;  // sizes, for --verbose
  // For models too large for CBC to get through the root in usual time limits: a relaxation (same
  // objective, a subset of the rows, fewer variables) whose optimum is a lower bound on the
  // model's, solved first for a bound; a solution of it that the simulator accepts under the budget
  // is a plan, and an optimal one is optimal for the model too.
  std::optional<milp::Model> relaxation;
  std::function<std::vector<Op>(const std::vector<double>& solution)> decode_relaxation;
  // CBC parameters that suit this model (name, value), set after the driver's own.
  std::vector<std::pair<std::string, std::string>> cbc_parameters;
};

// Generic DAGs in the fixed order (checkmate_dag.cpp).
// `with_relaxation`: build StageModel::relaxation also when the model is small (for tests).
StageModel build_dag_model(const Graph& g, int64_t budget, bool with_relaxation = false);
// Training graphs (checkmate_training.cpp).
// `save_budget`: the most bytes resident right after the loss, if any.
StageModel build_training_model(const Graph& g, int64_t budget, std::optional<int64_t> save_budget);

}  // namespace hiremate::checkmate
