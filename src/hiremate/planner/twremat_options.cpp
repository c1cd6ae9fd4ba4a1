#include "hiremate/planner/twremat_options.h"

#include <algorithm>

#include "hiremate/schedule/simulate.h"
#include "hiremate/solvers/twremat/twremat.h"

namespace hiremate::planner {

std::optional<hierarchy::Option> twremat_option(const hierarchy::ClusterProblem& cg, const Graph& graph, int64_t peak,
                                                double per_solve, const std::function<double()>& seconds_left) {
  const double limit = std::min(per_solve, seconds_left() / 4);
  if (limit <= 0.01) return std::nullopt;
  SolveOptions o;
  o.time_limit = limit;
  o.threads = 1;
  Plan tp = TwRematSolver().solve(graph, peak, o);
  if (!tp.has_schedule) return std::nullopt;
  return hierarchy::make_option(cg, tp.schedule, "twremat", peak);
}

std::vector<hierarchy::Option> twremat_save_options(const hierarchy::ClusterProblem& cg, const hierarchy::Option& plain,
                                                    int64_t peak, int save_points, double per_solve,
                                                    const std::function<double()>& seconds_left) {
  std::vector<hierarchy::Option> out;
  const NodeId loss = cg.graph.loss;
  if (loss == kNone || plain.mem <= 0) return out;
  const int64_t at_loss = simulate(cg.graph, hierarchy::cluster_schedule(cg, plain)).bytes_at_loss;
  Graph held = cg.graph;
  for (int k = 1; k <= save_points; ++k) {
    const int64_t target = at_loss - plain.mem * k / (save_points + 1);
    // The loss holds its inputs and outputs (in bytes_at_loss) and this overhead while it runs.
    held.compute[loss].overhead = std::max<int64_t>(0, peak - target);
    std::optional<hierarchy::Option> lean = twremat_option(cg, held, peak, per_solve, seconds_left);
    if (!lean) break;  // a lower target would not be reached either
    out.push_back(std::move(*lean));
  }
  return out;
}

}  // namespace hiremate::planner
