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
#include "hiremate/milp/solve.h"
#include "hiremate/schedule/schedule.h"

namespace hiremate::checkmate {

using Assignment = std::vector<std::pair<milp::Var, double>>;

struct LazyOutcome {
  bool infeasible = false;      // proven: then the model is infeasible too
  bool optimal = false;         // the last plan is optimal for the model
  std::optional<double> bound;  // a lower bound on the model's optimum
  std::vector<std::vector<Op>> plans;
  int rounds = 0;
};

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
  // The assignment of a plan's compute sequence, where the model can represent it: turns another
  // solver's plan into a MIP start.
  std::function<std::optional<Assignment>(const std::vector<Op>&)> assignment_of;
  std::function<std::vector<Op>(const std::vector<double>& solution)> decode;
  std::string summary;  // sizes, for --verbose
  // The lazy relaxation, solved before the model where there is one. The relaxation: the model
  // without FREE and U (memory only by the knapsack rows), a subset of its rows, so its optimum is a
  // lower bound; it is solved again with the memory rows of every stage whose memory its solution
  // exceeds, until a solution fits (then it is the model's optimum when
  // proven optimal) or the time is up. Every round's plan is returned, unchecked, and the best bound.
  std::function<LazyOutcome(double seconds, const milp::Options& options, bool verbose)> lazy;
  // CBC parameters that suit this model (name, value), set after the driver's own.
  std::vector<std::pair<std::string, std::string>> cbc_parameters;
};

// Generic DAGs in the fixed order (checkmate_dag.cpp). `heuristic_seconds`: at most this long for
// the greedy fallback plan.
StageModel build_dag_model(const Graph& g, int64_t budget, double heuristic_seconds = 1e9);
// Training graphs (checkmate_training.cpp).
// `save_budget`: the most bytes resident right after the loss, if any. `start`: a plan whose first
// computations give the stages' order (so that assignment_of can express it); g.order without one.
StageModel build_training_model(const Graph& g, int64_t budget, std::optional<int64_t> save_budget,
                                const std::vector<Op>* start = nullptr);

}  // namespace hiremate::checkmate
